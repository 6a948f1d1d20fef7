"""Server configuration for the UI tests (scripts/serve.py --mode test).

!! Never use this configuration in production: it opens the server without a
token and exposes JupyterLab's JavaScript objects to the page.
"""

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821

# Port, root folder and settings folders are given on the command line by
# scripts/serve.py, which also starts the S3 server the tests use.

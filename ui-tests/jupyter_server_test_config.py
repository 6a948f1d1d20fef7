"""Server configuration for the UI tests (scripts/serve.py --mode test).

!! Never use this configuration in production: it opens the server without a
token and exposes JupyterLab's JavaScript objects to the page.
"""

import sys
from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821
# Files the tests and benchmarks delete are deleted, not moved to the user's trash
# (~/.local/share/Trash), where every run left gigabytes of test notebooks.
c.FileContentsManager.delete_to_trash = False  # noqa: F821
# The same for Notebook 7, which the tests start beside Lab.
c.JupyterNotebookApp.expose_app_in_browser = True  # noqa: F821
# No "build recommended" check on every page load: JupyterLab's page asks /lab/api/build,
# and the server answers by running Node (yarn) to read its registry setting, 0.5 s each time.
# The tests and benchmarks load Lab about 200 times, and neither builds JupyterLab.
c.ServerApp.tornado_settings = {  # noqa: F821
    "page_config_data": {"buildCheck": False, "buildAvailable": False}
}

# The test-only credentials endpoint of the "endpoint" mode tests
# (test_server/bookshelf_test_credentials.py): it is not in the package.
sys.path.insert(0, str(Path(__file__).resolve().parent / "test_server"))
c.ServerApp.jpserver_extensions.update({"bookshelf_test_credentials": True})  # noqa: F821

# Port, root folder and settings folders are given on the command line by
# scripts/serve.py, which also starts the S3 server the tests use.

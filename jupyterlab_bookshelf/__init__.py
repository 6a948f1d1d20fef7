try:
    from ._version import __version__
except ImportError:
    # Fallback when using the package in dev mode without installing
    # in editable mode with pip. It is highly recommended to install
    # the package from a stable release or in editable mode: https://pip.pypa.io/en/stable/topics/local-project-installs/#editable-installs
    import warnings

    warnings.warn("Importing 'jupyterlab_bookshelf' outside a proper installation.", stacklevel=2)
    __version__ = "dev"
from .commit import hide_temporary_files
from .routes import setup_route_handlers
from .server_access import Bookshelf


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyterlab-bookshelf"}]


def _jupyter_server_extension_points():
    return [{"module": "jupyterlab_bookshelf"}]


def _load_jupyter_server_extension(server_app):
    """Registers the API handler to receive HTTP requests from the frontend extension.

    Parameters
    ----------
    server_app: jupyterlab.labapp.LabApp
        JupyterLab application instance
    """
    # The administrator's options (c.Bookshelf.…), read from the server's configuration.
    config = server_app.web_app.settings["bookshelf_config"] = Bookshelf(parent=server_app)
    setup_route_handlers(server_app.web_app)
    hide_temporary_files(server_app.contents_manager)
    name = "jupyterlab_bookshelf"
    mode = (
        "server-side mode on: the server clones and publishes"
        if config.server_access
        else ("S3 is reached from the browser")
    )
    server_app.log.info(f"Registered {name} server extension ({mode})")

"""A JupyterLite site with the extension, for the UI tests: built with ``jupyterlite-core``
(offline: no kernel is added) from the extension's own build, with the admin's settings as
the site's overrides, and served as static files on 127.0.0.1.

JupyterLite has no Jupyter server: files live in the browser, the server extension's commit
path and checks are absent, and the extension falls back to what the page can do alone
(README, "without it (JupyterLite)"). The site is what a user of a Lite deployment loads.
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABEXTENSION = REPO / "jupyterlab_bookshelf" / "labextension"


class LiteSite:
    """A built Lite site served from a thread; ``stop()`` ends the server."""

    def __init__(self, server: http.server.ThreadingHTTPServer, url: str) -> None:
        self._server = server
        self.url = url
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def build_site(work: Path, overrides: dict) -> Path:
    """Build the site into ``work / "site"``; returns that folder."""
    lite_dir = work / "lite"
    extensions = lite_dir / "extensions"
    extensions.mkdir(parents=True, exist_ok=True)
    link = extensions / "jupyterlab-bookshelf"
    if not link.exists():
        link.symlink_to(LABEXTENSION, target_is_directory=True)
    (lite_dir / "overrides.json").write_text(json.dumps(overrides, indent=2) + "\n")
    # The tests reach the application as window.jupyterapp, as Galata's do in Lab.
    config = {"jupyter-lite-schema-version": 0, "jupyter-config-data": {"exposeAppInBrowser": True}}
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=2) + "\n")
    output = work / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyterlite_core",
            "build",
            "--lite-dir",
            str(lite_dir),
            "--output-dir",
            str(output),
            # Only this extension: not the others of the environment, some of
            # which need a Jupyter server.
            "--LiteBuildConfig.ignore_sys_prefix=True",
            f"--FederatedExtensionAddon.extra_labextensions_path={extensions}",
        ],
        cwd=lite_dir,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return output


def start_lite(port: int, work: Path, overrides: dict) -> LiteSite:
    site = build_site(work, overrides)
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    return LiteSite(server, f"http://127.0.0.1:{port}")

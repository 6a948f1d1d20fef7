"""A real ``jupyter server`` process in server-side mode, for the CLI tests and the benchmark.

Started with its own config, runtime, data and settings folders below ``work`` (the admin's
Bookshelf overrides given as ``overrides``), the local S3 server's keys in the standard AWS
variables and no AWS profile or Jupyter/JupyterHub variables of the caller, so that nothing of
the machine it runs on leaks in. Stopped by its PID (``processes.stop_process``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests

try:  # imported as part of the ``scripts`` package
    from .processes import stop_process
    from .s3_fixture import DEMO_ACCESS_KEY, DEMO_SECRET_KEY
except ImportError:  # run with scripts/ on sys.path
    from processes import stop_process  # type: ignore[no-redef]
    from s3_fixture import DEMO_ACCESS_KEY, DEMO_SECRET_KEY  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parent.parent

# Variables of the caller that would point the server (or a client started with this
# environment) elsewhere.
_FOREIGN = (
    "JUPYTER_SERVER_URL",
    "JUPYTER_TOKEN",
    "JUPYTERHUB_API_TOKEN",
    "JUPYTERHUB_SERVICE_URL",
    "AWS_PROFILE",
)


def server_access_environment(work: Path, config_dir: Path) -> dict[str, str]:
    """The environment of the server and of clients that should find it."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "JUPYTER_CONFIG_DIR": str(config_dir),
        "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
        "JUPYTER_DATA_DIR": str(work / "data"),
        "AWS_ACCESS_KEY_ID": DEMO_ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": DEMO_SECRET_KEY,
        "AWS_CONFIG_FILE": str(work / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(work / "no-aws-credentials"),
    }
    for name in _FOREIGN:
        env.pop(name, None)
    return env


def start_server_access_jupyter(
    root: Path, work: Path, overrides: dict[str, Any], port: int, token: str, timeout: float = 30
) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """Start ``jupyter server --Bookshelf.server_access=True`` serving ``root`` on
    127.0.0.1:``port``; answer the process and its environment once it answers."""
    settings_dir = work / "app_settings"
    config_dir = work / "config"
    for folder in (settings_dir, config_dir):
        folder.mkdir(parents=True, exist_ok=True)
    (settings_dir / "overrides.json").write_text(
        json.dumps({"jupyterlab-bookshelf:core": overrides})
    )
    (config_dir / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {
                    "jpserver_extensions": {"jupyterlab": True, "jupyterlab_bookshelf": True},
                    "root_dir": str(root),
                    "open_browser": False,
                    "allow_root": True,
                },
                "LabApp": {"app_settings_dir": str(settings_dir)},
                # Deleted test files go, not to the user's trash.
                "FileContentsManager": {"delete_to_trash": False},
            }
        )
    )
    env = server_access_environment(work, config_dir)
    log_path = work / "jupyter.log"
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}",
             "--ip=127.0.0.1", f"--IdentityProvider.token={token}",
             "--Bookshelf.server_access=True"],
            cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if requests.get(url + "api/status", timeout=1).status_code < 500:
                return process, env
        except requests.RequestException:
            time.sleep(0.2)
    stop_process(process)
    raise RuntimeError("jupyter server did not start: " + log_path.read_text()[-2000:])

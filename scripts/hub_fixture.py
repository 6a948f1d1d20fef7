"""A real JupyterHub on 127.0.0.1 for the hub tests and ``make demo-hub``.

JupyterHub (pip) with configurable-http-proxy (npm, a dev dependency of ui-tests), the dummy
authenticator (any user named below, one shared password) and the local-process spawner: each
user's single-user server runs this Python with this extension, in a home folder of its own
under the run folder, with the admin's Bookshelf settings (an overrides file shared by every
user, as an admin deploys it). Started and stopped by PID; the hub stops the proxy and the
single-user servers it started when it ends.

Usage: python scripts/hub_fixture.py --port 18900 --s3-port 9000 --run-dir .run/hub
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

try:  # imported as part of the ``scripts`` package
    from .processes import stop_process
except ImportError:  # run with scripts/ on sys.path
    from processes import stop_process  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HOST = "127.0.0.1"
# The two users of the tests and the demo; the password guards nothing but the local hub.
USERS = ("ana", "bob")
PASSWORD = "bookshelf-hub"
# The role the credentials service assumes for the users (moto accepts any role).
ROLE_ARN = "arn:aws:iam::123456789012:role/bookshelf-users"
PROXY = REPO / "ui-tests" / "node_modules" / ".bin" / "configurable-http-proxy"

CONFIG = """\
# Written by scripts/hub_fixture.py: a local JupyterHub for Bookshelf's tests and demo.
import sys

c = get_config()  # noqa: F821
c.JupyterHub.ip = {host!r}
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = {host!r}
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://{host}:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.auth_token = {proxy_token!r}
c.JupyterHub.cookie_secret_file = {cookie_secret!r}
c.JupyterHub.db_url = {db_url!r}
c.JupyterHub.pid_file = {pid_file!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = set({users!r})

c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.port = 0
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.args = {spawner_args!r}
c.Spawner.environment = {environment!r}
# Users may use the credentials service, and their server's token may call it as them.
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=bookshelf-credentials"]}}
]
c.Spawner.server_token_scopes = [
    "users:activity!user",
    "access:servers!server",
    "access:services!service=bookshelf-credentials",
]

# Temporary S3 credentials per user (jupyterlab_bookshelf/hub_service.py), from STS.
c.JupyterHub.services = [
    {{
        "name": "bookshelf-credentials",
        "url": "http://{host}:{service_port}",
        "command": [sys.executable, "-m", "jupyterlab_bookshelf.hub_service"],
        "environment": {service_environment!r},
    }}
]
"""


def _free_ports(count: int) -> list[int]:
    """``count`` distinct ports free now. The probes stay bound until all are chosen: a port
    probed and closed may be handed out again at once (the hub and its proxy's API were once
    given the same one, and the hub could not start)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind((HOST, 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def _port_is_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex((HOST, port)) == 0


class HubFixture:
    """A running JupyterHub; ``stop()`` ends it by PID (it stops its proxy and servers)."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, run_dir: Path) -> None:
        self._process = process
        self.pid = process.pid
        self.port = port
        self.url = f"http://{HOST}:{port}"
        self.run_dir = run_dir

    def home(self, user: str) -> Path:
        """The user's home folder: the root of their server's file tree."""
        return self.run_dir / "homes" / user

    def info(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "users": list(USERS),
            "password": PASSWORD,
            "homes": {user: str(self.home(user)) for user in USERS},
        }

    def stop(self) -> None:
        # JupyterHub shuts its proxy and the single-user servers down on SIGTERM.
        stop_process(self._process, timeout=30)


def write_config(run_dir: Path, port: int, s3_settings: dict[str, Any]) -> Path:
    """Write jupyterhub_config.py and the admin's Bookshelf overrides below ``run_dir``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    homes = run_dir / "homes"
    homes.mkdir(exist_ok=True)
    lab_settings = run_dir / "lab-settings"
    lab_settings.mkdir(exist_ok=True)
    (lab_settings / "overrides.json").write_text(
        json.dumps({"jupyterlab-bookshelf:core": s3_settings}, indent=2) + "\n"
    )
    spawner_args = [
        f"--LabApp.app_settings_dir={lab_settings}",
        # Each user keeps their own settings and workspaces in their home (the default).
        # The page's app object is reachable, for the tests (as in Galata's own config).
        "--LabApp.expose_app_in_browser=True",
        # Deleted test files go, not to each user's trash.
        "--FileContentsManager.delete_to_trash=False",
    ]
    if os.geteuid() == 0:
        spawner_args.append("--ServerApp.allow_root=True")
    # The single-user servers load this checkout's build of the extension: a labextensions
    # folder of their own, first on JUPYTER_PATH, links to it.
    extensions = run_dir / "jupyter-path" / "labextensions"
    extensions.mkdir(parents=True, exist_ok=True)
    link = extensions / "jupyterlab-bookshelf"
    if not link.exists():
        link.symlink_to(REPO / "jupyterlab_bookshelf" / "labextension", target_is_directory=True)
    environment = {
        "JUPYTER_PATH": os.pathsep.join(
            filter(None, [str(run_dir / "jupyter-path"), os.environ.get("JUPYTER_PATH")])
        ),
        # The single-user servers import this checkout's extension and scripts.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "PATH": os.environ.get("PATH", ""),
    }
    service_port, hub_port, proxy_api_port = _free_ports(3)
    environment["BOOKSHELF_CREDENTIALS_SERVICE_URL"] = (
        f"http://{HOST}:{service_port}/services/bookshelf-credentials/"
    )
    service_environment = {
        "PYTHONPATH": environment["PYTHONPATH"],
        "BOOKSHELF_ROLE_ARN": ROLE_ARN,
        "BOOKSHELF_READ_BUCKETS": ",".join(s3_settings.get("allowedBuckets", [])),
        "BOOKSHELF_PUBLISH_BUCKET": s3_settings["publishBucket"],
        "BOOKSHELF_PUBLISH_PREFIX": s3_settings["publishPrefix"],
        "BOOKSHELF_STS_ENDPOINT_URL": s3_settings["endpointUrl"],
        "AWS_REGION": s3_settings["region"],
        # The service's own keys for STS: the local S3 server's demo keys.
        "AWS_ACCESS_KEY_ID": s3_settings["credentials"]["accessKeyId"],
        "AWS_SECRET_ACCESS_KEY": s3_settings["credentials"]["secretAccessKey"],
    }
    config = CONFIG.format(
        host=HOST,
        service_port=service_port,
        service_environment=service_environment,
        port=port,
        hub_port=hub_port,
        proxy_api_port=proxy_api_port,
        proxy=str(PROXY),
        proxy_token=secrets.token_hex(32),
        cookie_secret=str(run_dir / "cookie_secret"),
        db_url=f"sqlite:///{run_dir / 'jupyterhub.sqlite'}",
        pid_file=str(run_dir / "jupyterhub.pid"),
        password=PASSWORD,
        users=sorted(USERS),
        homes=str(homes),
        spawner_args=spawner_args,
        environment=environment,
    )
    path = run_dir / "jupyterhub_config.py"
    path.write_text(config)
    return path


def start_hub(
    port: int,
    s3_settings: dict[str, Any],
    run_dir: Path,
    log_path: str | None = None,
    timeout: float = 60,
) -> HubFixture:
    """Start JupyterHub on 127.0.0.1:``port`` and wait until its API answers."""
    if not PROXY.exists():
        raise RuntimeError(
            f"configurable-http-proxy is missing at {PROXY}: run `jlpm install` in ui-tests"
        )
    if _port_is_open(port):
        raise RuntimeError(f"port {port} on {HOST} is already in use")
    config = write_config(run_dir, port, s3_settings)
    log = open(log_path or run_dir / "hub.log", "ab")  # noqa: SIM115  (the child owns it)
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(config)],
        cwd=str(run_dir),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    hub = HubFixture(process, port, run_dir)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _stop_orphaned_proxy(run_dir)
            raise RuntimeError(f"JupyterHub exited with {process.returncode}; see {log.name}")
        try:
            with urllib.request.urlopen(f"{hub.url}/hub/api", timeout=2) as answer:
                if answer.status == 200:
                    return hub
        except OSError:
            pass
        time.sleep(0.3)
    hub.stop()
    raise RuntimeError(f"JupyterHub did not answer within {timeout} s; see {log.name}")


def _stop_orphaned_proxy(run_dir: Path) -> None:
    """Stop the proxy of a JupyterHub that failed while starting (its port taken): it exits
    without stopping the proxy it started, which would go on listening on the hub's port. The
    proxy's PID is in the PID file JupyterHub writes in its working folder (``run_dir``)."""
    pid_file = run_dir / "jupyterhub-proxy.pid"
    try:
        pid = int(pid_file.read_text().strip())
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if b"configurable-http-proxy" in command:
        os.kill(pid, signal.SIGTERM)
    pid_file.unlink(missing_ok=True)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    sys.path.insert(0, str(HERE))
    from s3_fixture import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, start_s3_server

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("BOOKSHELF_HUB_PORT", 8000)))
    parser.add_argument(
        "--s3-port", type=int, default=int(os.environ.get("BOOKSHELF_S3_PORT", "9000"))
    )
    parser.add_argument("--run-dir", default=str(REPO / ".run" / "hub"))
    args = parser.parse_args()
    run_dir = Path(args.run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    origins = [f"http://{host}:{args.port}" for host in (HOST, "localhost")]
    s3 = start_s3_server(args.s3_port, origins, log_path=str(run_dir / "s3.log"))
    settings = hub_settings(s3.endpoint_url, DEMO_ACCESS_KEY, DEMO_SECRET_KEY)
    try:
        hub = start_hub(args.port, settings, run_dir)
    except BaseException:
        s3.stop()
        raise
    print(
        f"\nJupyterHub at {hub.url}/hub/login: users {', '.join(USERS)}, password {PASSWORD}."
        f"\n  S3 server at {s3.endpoint_url}. Press Ctrl-C to stop.\n",
        flush=True,
    )
    # Stopped by a signal (kill, a service manager), as by Ctrl-C: the hub, its proxy, the
    # users' servers and the S3 server go too, not on without their parent.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        hub._process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        hub.stop()
        s3.stop()
    return 0


def hub_settings(endpoint_url: str, access_key_id: str, secret_access_key: str) -> dict[str, Any]:
    """The admin's Bookshelf settings for the hub: every user publishes below their own prefix."""
    return {
        "endpointUrl": endpoint_url,
        "region": "us-east-1",
        "forcePathStyle": True,
        "credentials": {
            "mode": "settings",
            "accessKeyId": access_key_id,
            "secretAccessKey": secret_access_key,
            "sessionToken": "",
            "endpoint": "",
        },
        "publishBucket": "published",
        "publishPrefix": "users/{username}/",
        "overwritePolicy": "confirm",
        "allowedBuckets": ["examples", "published"],
        "openAfterClone": True,
    }


if __name__ == "__main__":
    sys.exit(main())

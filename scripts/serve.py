"""Start the S3 fixture server and JupyterLab configured to use it.

Used by `make demo` (mode "demo") and by the Galata UI tests (mode "test").
The extension is configured the way an admin configures a deployment: a
JupyterLab settings overrides file in the app settings folder. When Lab exits
(Ctrl-C, or SIGTERM from the test runner) the S3 server is stopped too.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from fault_proxy import start_fault_proxy  # noqa: E402
from hub_fixture import hub_settings, start_hub  # noqa: E402
from lite_fixture import start_lite  # noqa: E402
from processes import stop_process  # noqa: E402
from s3_fixture import DEMO_ACCESS_KEY, DEMO_SECRET_KEY, start_s3_server  # noqa: E402
from s3rver_fixture import start_s3rver  # noqa: E402

#: A name of the test Lab other than localhost, as a server on the local network is reached
#: (http://10.0.0.5:8888): the page is then not a secure context. The UI tests' browser
#: resolves it to 127.0.0.1 (ui-tests/tests/insecure-context.spec.ts); the test Lab accepts
#: it as its host, and the buckets' CORS rules allow its origin.
LAN_HOST = "bookshelf-lan.test"


def overrides(s3_port: int, allowed_buckets: list[str]) -> dict:
    """The admin's settings for the extension."""
    return {
        "jupyterlab-bookshelf:core": {
            "endpointUrl": f"http://127.0.0.1:{s3_port}",
            "region": "us-east-1",
            "forcePathStyle": True,
            # Demo keys for the local S3 server (it does not check signatures);
            # a real deployment uses the "session" or "endpoint" mode.
            "credentials": {
                "mode": "settings",
                "accessKeyId": DEMO_ACCESS_KEY,
                "secretAccessKey": DEMO_SECRET_KEY,
                "sessionToken": "",
                "endpoint": "",
            },
            "publishBucket": "published",
            "publishPrefix": "",
            "overwritePolicy": "confirm",
            "allowedBuckets": allowed_buckets,
            "openAfterClone": True,
        }
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=["demo", "test"], default="demo")
    parser.add_argument(
        "--s3-port", type=int, default=int(os.environ.get("BOOKSHELF_S3_PORT", "9000"))
    )
    parser.add_argument(
        "--lab-port", type=int, default=int(os.environ.get("BOOKSHELF_LAB_PORT", "8888"))
    )

    def optional_port(flag: str, variable: str, help_text: str) -> None:
        """A port of an optional part of the test set-up; off unless given here or in the
        environment ``variable``."""
        parser.add_argument(
            flag, type=int, default=int(os.environ.get(variable, "0")) or None, help=help_text
        )

    optional_port(
        "--proxy-port",
        "BOOKSHELF_TEST_PROXY_PORT",
        "test mode: also start the fault-injecting proxy (scripts/fault_proxy.py) in "
        "front of the S3 server on this port",
    )
    optional_port(
        "--notebook-port",
        "BOOKSHELF_TEST_NOTEBOOK_PORT",
        "test mode: also start Jupyter Notebook 7 (default URL /tree) on this port, "
        "with the same files, settings and S3 server",
    )
    optional_port(
        "--s3rver-port",
        "BOOKSHELF_TEST_S3RVER_PORT",
        "test mode: port of the signature-verifying s3rver (default: S3 port + 5)",
    )
    optional_port(
        "--hub-port",
        "BOOKSHELF_TEST_HUB_PORT",
        "test mode: also start a JupyterHub (scripts/hub_fixture.py) with two users on "
        "this port, using the same S3 server",
    )
    optional_port(
        "--lite-port",
        "BOOKSHELF_TEST_LITE_PORT",
        "test mode: also build a JupyterLite site with the extension and serve it on "
        "this port, using the same S3 server",
    )
    optional_port(
        "--nginx-port",
        "BOOKSHELF_TEST_NGINX_PORT",
        "test mode: the port of the nginx that UI tests start in front of JupyterLab "
        "(ui-tests/tests/nginx.ts); its origin is allowed by the buckets' CORS rules",
    )
    optional_port(
        "--nginx-tls-port",
        "BOOKSHELF_TEST_NGINX_TLS_PORT",
        "test mode: the port of the nginx that UI tests start in front of JupyterLab to "
        "end TLS there (https); its origin is allowed by the buckets' CORS rules",
    )
    parser.add_argument("--run-dir", default=None, help="state folder (default .run/<mode>)")
    args = parser.parse_args()

    run_dir = Path(args.run_dir or REPO / ".run" / args.mode).resolve()
    test = args.mode == "test"
    if test and run_dir.exists():
        # Every test run starts from an empty file tree and default settings.
        shutil.rmtree(run_dir)
    root_dir = run_dir / "notebooks"
    app_settings_dir = run_dir / "lab-settings"
    user_settings_dir = run_dir / "user-settings"
    workspaces_dir = run_dir / "workspaces"
    for folder in (root_dir, app_settings_dir, user_settings_dir, workspaces_dir):
        folder.mkdir(parents=True, exist_ok=True)

    ports = [args.lab_port] + ([args.notebook_port] if test and args.notebook_port else [])
    if test and args.hub_port:
        ports.append(args.hub_port)
    if test and args.lite_port:
        ports.append(args.lite_port)
    if test and args.nginx_port:
        ports.append(args.nginx_port)
    origins = [f"http://{host}:{port}" for port in ports for host in ("127.0.0.1", "localhost")]
    if test and args.nginx_tls_port:
        origins += [f"https://{host}:{args.nginx_tls_port}" for host in ("127.0.0.1", "localhost")]
    if test:
        origins += [
            f"http://{LAN_HOST}:{port}"
            for port in (args.lab_port, args.lite_port, args.hub_port)
            if port
        ]
    allowed = ["examples", "published"]
    if test:
        allowed += ["nocors", "versioned-examples", "missing-bucket"]
    (app_settings_dir / "overrides.json").write_text(
        json.dumps(overrides(args.s3_port, allowed), indent=2) + "\n"
    )

    fixture = start_s3_server(
        args.s3_port, origins, test_buckets=test, log_path=str(run_dir / "s3.log")
    )
    proxy = None
    if test and args.proxy_port:
        try:
            proxy = start_fault_proxy(
                args.proxy_port, fixture.endpoint_url, log_path=str(run_dir / "proxy.log")
            )
        except BaseException:
            fixture.stop()
            raise
    # The signature-verifying S3 server that ignores conditional writes
    # (scripts/s3rver_fixture.py).
    s3rver = None
    if test:
        try:
            s3rver = start_s3rver(
                args.s3rver_port or args.s3_port + 5, origins, log_path=str(run_dir / "s3rver.log")
            )
        except BaseException:
            if proxy:
                proxy.stop()
            fixture.stop()
            raise
    # A JupyterHub whose users' servers use the same S3 server (scripts/hub_fixture.py).
    hub = None
    if test and args.hub_port:
        try:
            hub = start_hub(
                args.hub_port,
                {
                    **hub_settings(fixture.endpoint_url, DEMO_ACCESS_KEY, DEMO_SECRET_KEY),
                    "allowedBuckets": allowed,
                },
                run_dir / "hub",
            )
        except BaseException:
            for server in (s3rver, proxy, fixture):
                if server:
                    server.stop()
            raise
    # A JupyterLite site (scripts/lite_fixture.py): no Jupyter server, files in the browser.
    lite = None
    if test and args.lite_port:
        try:
            lite = start_lite(args.lite_port, run_dir, overrides(args.s3_port, allowed))
        except BaseException:
            for server in (hub, s3rver, proxy, fixture):
                if server:
                    server.stop()
            raise
    (run_dir / "fixture.json").write_text(
        json.dumps(
            {
                "endpoint_url": fixture.endpoint_url,
                "proxy_url": proxy.url if proxy else None,
                "s3rver": s3rver.info() if s3rver else None,
                "version_ids": fixture.version_ids,
                "root_dir": str(root_dir),
                "lab_port": args.lab_port,
                "nginx_port": args.nginx_port if test else None,
                "nginx_tls_port": args.nginx_tls_port if test else None,
                "notebook_port": args.notebook_port if test else None,
                "hub": hub.info() if hub else None,
                "lite_url": lite.url if lite else None,
            },
            indent=2,
        )
        + "\n"
    )

    env = dict(os.environ)
    env["JUPYTERLAB_SETTINGS_DIR"] = str(user_settings_dir)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(workspaces_dir)

    def server_command(module: str, apps: list[str], port: int) -> list[str]:
        command = [
            sys.executable,
            "-m",
            module,
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={root_dir}",
        ]
        for app in apps:
            command += [
                f"--{app}.app_settings_dir={app_settings_dir}",
                f"--{app}.user_settings_dir={user_settings_dir}",
                f"--{app}.workspaces_dir={workspaces_dir}",
            ]
        if os.geteuid() == 0:
            command.append("--ServerApp.allow_root=True")
        if test:
            # Galata's settings: no token, the app exposed to the test page.
            command.insert(3, f"--config={REPO / 'ui-tests' / 'jupyter_server_test_config.py'}")
            command += ["--ServerApp.local_hostnames=localhost",
                        f"--ServerApp.local_hostnames={LAN_HOST}"]  # fmt: skip
        return command

    token = ""
    if not test:
        token = env.get("JUPYTER_TOKEN") or secrets.token_hex(24)
        env["JUPYTER_TOKEN"] = token

    # The tests keep the servers' logs in files, beside the S3 server's.
    log = open(run_dir / "lab.log", "ab") if test else None  # noqa: SIM115
    # The Lab server also serves Notebook 7 (/tree; its server extension is enabled): same
    # folders, so that the tests meet Notebook 7 in server-side mode there too.
    lab_command = server_command("jupyterlab", ["LabApp", "JupyterNotebookApp"], args.lab_port)
    lab_env = env
    if test:
        # The test Lab does clones and publishes itself too (server-side mode), with the S3
        # server's keys in the standard AWS variables (for its /tree too); Notebook 7 beside
        # it does not, so the tests meet both.
        lab_command.append("--Bookshelf.server_access=True")
        lab_env = {
            **env,
            "AWS_ACCESS_KEY_ID": DEMO_ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": DEMO_SECRET_KEY,
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    lab = subprocess.Popen(
        lab_command,
        env=lab_env,
        cwd=str(root_dir),
        stdout=log,
        stderr=subprocess.STDOUT if log else None,
    )
    # Notebook 7 beside Lab: same files and settings; its default URL is /tree,
    # so the clone link hands off to Notebook there.
    notebook = None
    notebook_log = None
    if test and args.notebook_port:
        notebook_log = open(run_dir / "notebook.log", "ab")  # noqa: SIM115
        notebook = subprocess.Popen(
            server_command(
                # Lab's server extension loads too and may answer the
                # settings API: both get the same folders.
                "notebook",
                ["JupyterNotebookApp", "LabApp"],
                args.notebook_port,
            ),
            env=env,
            cwd=str(root_dir),
            stdout=notebook_log,
            stderr=subprocess.STDOUT,
        )

    def forward(signum, _frame):
        if lab.poll() is None:
            lab.send_signal(signal.SIGTERM if signum == signal.SIGTERM else signal.SIGINT)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)

    base = f"http://127.0.0.1:{args.lab_port}"
    query = f"?token={token}" if token else ""
    shown_root = root_dir.relative_to(REPO) if root_dir.is_relative_to(REPO) else root_dir
    print(
        "\n".join(
            [
                "",
                f"Bookshelf {args.mode}: S3 server at {fixture.endpoint_url}"
                " (buckets: examples, published)",
                f"  Open JupyterLab:  {base}/lab{query}",
                f"  Try a clone link: {base}/bookshelf/clone?s3_bucket=examples"
                "&s3_key=reports/2026/q3.ipynb",
                f"  Files are in {shown_root}",
                "  Press Ctrl-C to stop JupyterLab and the S3 server.",
                "",
            ]
        ),
        flush=True,
    )
    try:
        code = lab.wait()
        # A second Ctrl-C while Lab asks "Shutdown this Jupyter server?".
        while code is None:
            code = lab.wait()
    finally:
        for server in (lab, notebook):
            if server is not None:
                stop_process(server, timeout=15)
        if notebook_log:
            notebook_log.close()
        if hub:
            hub.stop()
        if lite:
            lite.stop()
        if proxy:
            proxy.stop()
        if s3rver:
            s3rver.stop()
        fixture.stop()
        if log:
            log.close()
    return 0 if code in (0, -signal.SIGINT, -signal.SIGTERM) else code


if __name__ == "__main__":
    sys.exit(main())

"""Fixtures of the server-side mode tests: real S3 servers (moto, the fault proxy in front of it,
the signature-verifying s3rver) and a Jupyter server with ``c.Bookshelf.server_access`` on,
configured for them through the administrator's overrides file.

The S3 servers are started once per session of each pytest-xdist worker, on ports from 29000
(from ``BOOKSHELF_TEST_PYTEST_PORT`` when set: another checkout's tests on the same machine then
use other ports), 20 for each worker; their objects are written under keys unique to each test.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import uuid
from pathlib import Path

import pytest

from jupyterlab_bookshelf.server_access.s3 import forget_clients

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

import s3_fixture  # noqa: E402

#: pytest-xdist's workers (gw0, gw1, …) each take 20 ports of their own: two workers probing
#: the same free port at once would both take it.
WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
PORT_BASE = int(os.environ.get("BOOKSHELF_TEST_PYTEST_PORT") or 29000) + 20 * WORKER
PORTS = range(PORT_BASE, PORT_BASE + 20)


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


@pytest.fixture(scope="session")
def moto():
    """moto with the fixture's buckets (examples, published (versioned), versioned-examples,
    denied, nocors)."""
    with s3_fixture.start_s3_server(
        free_port(), ["http://127.0.0.1:8888"], test_buckets=True
    ) as server:
        yield server


@pytest.fixture(scope="session")
def moto_client(moto):
    return moto.client()


@pytest.fixture(scope="session")
def fault_proxy(moto):
    """The fault-injecting proxy in front of moto (``scripts/fault_proxy.py``)."""
    from fault_proxy import start_fault_proxy

    with start_fault_proxy(free_port(), moto.endpoint_url) as proxy:
        yield proxy


@pytest.fixture
def unique():
    """A key prefix of this test's own."""
    return f"t-{uuid.uuid4().hex[:12]}/"


@pytest.fixture
def aws_env(monkeypatch, tmp_path):
    """The server's AWS credential chain: the environment (moto checks no signature)."""
    yield from keys_in_environment(
        monkeypatch, tmp_path, s3_fixture.DEMO_ACCESS_KEY, s3_fixture.DEMO_SECRET_KEY
    )


def keys_in_environment(monkeypatch, tmp_path, access_key_id: str, secret: str):
    """Give the server these keys through the environment, the only part of the AWS chain
    that counts (no profile, no shared files of the machine's user), with fresh clients
    before and after. For ``yield from`` in a fixture."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", access_key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    forget_clients()
    yield
    forget_clients()


@pytest.fixture
def server_access():
    """``c.Bookshelf.server_access`` (parametrize to change)."""
    return True


@pytest.fixture
def lab_dirs(tmp_path):
    dirs = {name: tmp_path / name for name in ("app_settings", "user_settings", "labextensions")}
    for path in dirs.values():
        path.mkdir()
    return dirs


@pytest.fixture
def admin_settings(moto):
    """The Bookshelf settings the administrator sets (overrides); tests may change them
    before the first request."""
    return {
        "endpointUrl": moto.endpoint_url,
        "region": "us-east-1",
        "forcePathStyle": True,
        "publishBucket": "published",
        "publishPrefix": "notebooks/",
        "overwritePolicy": "confirm",
    }


@pytest.fixture
def jp_server_config(jp_server_config, lab_dirs, server_access, admin_settings, aws_env):
    config = json.loads(json.dumps(jp_server_config))
    config["ServerApp"]["jpserver_extensions"]["jupyterlab"] = True
    config["LabApp"] = {
        "app_settings_dir": str(lab_dirs["app_settings"]),
        "user_settings_dir": str(lab_dirs["user_settings"]),
        "labextensions_path": [str(lab_dirs["labextensions"])],
    }
    config["Bookshelf"] = {"server_access": server_access}
    return config


@pytest.fixture
def write_settings(lab_dirs, admin_settings):
    """Write the overrides file from ``admin_settings`` (changed by ``**changes``)."""

    def write(**changes):
        settings = {**admin_settings, **changes}
        path = lab_dirs["app_settings"] / "overrides.json"
        path.write_text(json.dumps({"jupyterlab-bookshelf:core": settings}), encoding="utf-8")

    return write


@pytest.fixture
def api(jp_fetch, jp_asyncio_loop, write_settings):
    """Call the server's API on its loop; any status is returned, not raised. The default
    overrides are written first; a test may write others before its first request (the
    overrides are read once)."""
    write_settings()

    def call(*parts, method="GET", body=None, **kwargs):
        kwargs.setdefault("raise_error", False)
        data = body if body is None or isinstance(body, (str, bytes)) else json.dumps(body)
        return jp_asyncio_loop.run_until_complete(
            jp_fetch(*parts, method=method, body=data, **kwargs)
        )

    return call


def reply(response):
    return json.loads(response.body)


@pytest.fixture
def publish_puts(monkeypatch):
    """The headers of each PutObject the server's publish sends, its probes aside (its S3
    clients are spied on: the server runs in the test's process)."""
    from jupyterlab_bookshelf.server_access import publish as publish_module

    sent: list[dict[str, str]] = []
    real_client = publish_module.s3_client
    probes = (publish_module.PROBE_KEY_STEM, publish_module.CHECKSUM_PROBE_KEY_STEM)

    def record(request, **_):
        if any(stem in request.url for stem in probes):
            return
        sent.append(
            {
                name: value.decode() if isinstance(value, bytes) else str(value)
                for name, value in request.headers.items()
            }
        )

    def spied_client(settings, **kwargs):
        client = real_client(settings, **kwargs)
        client.meta.events.register(
            "before-send.s3.PutObject", record, unique_id="bookshelf-test-publish-puts"
        )
        return client

    monkeypatch.setattr(publish_module, "s3_client", spied_client)
    return sent

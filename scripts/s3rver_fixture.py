"""A second S3 server for the UI tests: @20minutes/s3rver (npm, a dev dependency of ui-tests).

Why a second server: moto does not verify request signatures and honours conditional writes.
s3rver verifies SigV4 against the keys configured here (a wrong secret gets
``SignatureDoesNotMatch``, an unknown key id ``InvalidAccessKeyId``) and silently ignores
``If-None-Match``/``If-Match`` on PUT, like some S3-compatible servers in the wild: the
tests of refused credentials and of the conditional-writes check run against it.

It runs in Node (``scripts/s3rver_server.js``) on 127.0.0.1, with its files in a temporary
folder, buckets ``examples`` and ``published`` (empty, no versioning: s3rver has none) and
the CORS rule of the moto fixture. Stopped by its PID.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

try:  # imported as part of the ``scripts`` package
    from .processes import stop_process
except ImportError:  # run with scripts/ on sys.path
    from processes import stop_process  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
# Test keys of the project's choosing; they guard nothing but the test server.
S3RVER_ACCESS_KEY = "bookshelf-s3rver"
S3RVER_SECRET_KEY = "bookshelf-s3rver-secret"


class S3rverFixture:
    """A running s3rver; ``stop()`` ends it (by PID) and removes its folder."""

    def __init__(self, process: subprocess.Popen[bytes], directory: str, endpoint_url: str):
        self._process = process
        self._directory = directory
        self.pid = process.pid
        self.endpoint_url = endpoint_url

    def info(self) -> dict[str, Any]:
        return {
            "endpoint_url": self.endpoint_url,
            "access_key_id": S3RVER_ACCESS_KEY,
            "secret_access_key": S3RVER_SECRET_KEY,
        }

    def stop(self) -> None:
        stop_process(self._process)
        shutil.rmtree(self._directory, ignore_errors=True)


def start_s3rver(port: int, origins: list[str], log_path: str | None = None) -> S3rverFixture:
    """Start s3rver on 127.0.0.1:``port`` with CORS rules for ``origins``; wait until it answers."""
    directory = tempfile.mkdtemp(prefix="bookshelf-s3rver-")
    command = [
        "node",
        str(HERE / "s3rver_server.js"),
        "--port",
        str(port),
        "--directory",
        directory,
    ]
    for origin in origins:
        command += ["--origin", origin]
    env = dict(os.environ)
    # The keys go by environment, not by arguments that any user can list.
    env["S3RVER_ACCESS_KEY_ID"] = S3RVER_ACCESS_KEY
    env["S3RVER_SECRET_ACCESS_KEY"] = S3RVER_SECRET_KEY
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, env=env
        )
    finally:
        if log_path:
            log.close()  # the child holds its own copy
    assert process.stdout is not None
    # The script prints one JSON line once it listens (or exits on failure).
    line = process.stdout.readline()
    if not line:
        stop_process(process)
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(f"s3rver did not start on port {port} (see {log_path or 'its output'})")
    process.stdout.close()
    return S3rverFixture(process, directory, json.loads(line)["endpoint_url"])

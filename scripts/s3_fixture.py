"""A real S3-compatible server for the bookshelf tests and demo: moto in server mode.

The buckets are configured the way a platform admin configures real ones:

- ``examples``: the sample objects of ``make_sample_notebooks.build_samples()``, with their
  Content-Type; a CORS rule for the Lab origins.
- ``published``: versioning Enabled, empty; the same CORS rule.
- with ``test_buckets``:
  - ``nocors``: one notebook and *no* CORS rule at all, so a browser must be refused;
  - ``versioned-examples``: versioning Enabled, ``history.ipynb`` written twice (two
    versions, ids in ``S3Fixture.version_ids``); the same CORS rule;
  - ``denied``: one notebook, the same CORS rule, and a bucket policy that denies reading
    and writing objects to everyone (see ``deny_object_access``);
  - in ``examples``, ``public/welcome.ipynb`` written with ``ACL=public-read``: the one
    object an anonymous (unsigned) request may read;
  - ``othersite``: one notebook and the CORS rules of a bucket another site uses too (see
    ``shared_cors_rules``): a rule for another origin first, then one for the Lab origins
    that allows reading but not publishing, and hides the version id; the info panel must
    show a configuration that keeps the other site's rule.

CORS rule: AllowedOrigins = the given origins, and the rest exactly as the extension's one
definition of it, ``src/rules/cors.json``, which is also the rule the extension shows admins.

moto is started with ``MOTO_DISABLE_GLOBAL_CORS=true``: without it moto answers every
preflight for every origin, which would hide CORS mistakes that real S3 refuses.

Two moto 5.2.x CORS gaps are worked around, each in one place that says why:
``work_around_moto_private_object_preflight_bug`` (a bucket policy; preflights for existing
private objects) and ``MotoCorsOnEveryResponse`` (a WSGI layer in the moto process; CORS
headers on HEAD, listings, deletes and error answers). Real S3 needs neither.

Two moto 5.2.x gaps in writing objects are closed by ``MotoWritesLikeS3`` (another WSGI layer
in the moto process): moto ignores ``Content-MD5`` and the ``x-amz-checksum-*`` headers (S3
refuses a body that does not match them with 400 ``BadDigest``, which is how a damaged upload
is kept out), and moto checks
``If-Match``/``If-None-Match`` and then stores in separate steps of concurrent threads (S3
applies a conditional write atomically). Real S3 needs neither.

moto does NOT verify request signatures: any access key and secret are accepted. Tests of
wrong credentials cannot use this server as is (moto checks signatures only with its IAM
emulation on, ``INITIAL_NO_AUTH_ACTION_COUNT``, which would need IAM users for every key
the tests use and breaks the preflight workaround below); the extension's handling of
InvalidAccessKeyId, SignatureDoesNotMatch and ExpiredToken is unit tested with the real SDK
against recorded S3 answers instead (src/__tests__/sdk-errors.spec.ts). An unsigned
(anonymous) request is refused with 403 on existing private objects, as on AWS, and
allowed on an object written with ``ACL=public-read``.

What moto 5.2.x enforces of a bucket policy without its IAM emulation: explicit ``Deny``
statements on *object* requests (GET, PUT, HEAD, DELETE, POST and OPTIONS of a key), for
signed and unsigned requests alike, answered 403 with an empty body. It does not look at
the policy for *bucket* requests (HeadBucket, ListObjects, GetBucketVersioning, ...), and it
names the actions after the HTTP method: ``s3:HeadObject`` and ``s3:OptionsObject`` are
moto's, AWS checks HEAD against ``s3:GetObject`` and never checks a preflight.

Library use::

    from s3_fixture import start_s3_server

    with start_s3_server(19000, ["http://127.0.0.1:8888"], test_buckets=True) as s3:
        print(s3.endpoint_url, s3.version_ids)

CLI (runs until SIGINT or SIGTERM)::

    python scripts/s3_fixture.py --port 9000 \\
        --origin http://127.0.0.1:8888 --origin http://localhost:8888 [--test-buckets]
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

try:  # imported as part of the ``scripts`` package
    from .processes import stop_process
except ImportError:  # run as a script, or with scripts/ on sys.path
    from processes import stop_process  # type: ignore[no-redef]

# boto3 and the sample builder (nbformat) are imported where they are used: the moto child
# process runs this file too (see CHILD_FLAG) and must start fast.

HOST = "127.0.0.1"
REGION = "us-east-1"
# Fixed, non-secret demo credentials. moto does not check signatures, so these values only
# have to be non-empty for a client to sign its requests; they protect nothing.
DEMO_ACCESS_KEY = "bookshelf-demo"
DEMO_SECRET_KEY = "bookshelf-demo-secret"

EXAMPLES_BUCKET = "examples"
PUBLISHED_BUCKET = "published"
NOCORS_BUCKET = "nocors"
VERSIONED_BUCKET = "versioned-examples"
DENIED_BUCKET = "denied"
OTHERSITE_BUCKET = "othersite"
OTHERSITE_KEY = "intro.ipynb"
#: The origin of the other site that shares ``othersite``; nothing answers there.
OTHER_SITE_ORIGIN = "https://other.example.org"
HISTORY_KEY = "history.ipynb"
NOCORS_KEY = "intro.ipynb"
DENIED_KEY = "intro.ipynb"
PUBLIC_KEY = "public/welcome.ipynb"
# Written last, so that its presence means the whole set-up is done (see ``wait_ready_url``).
READY_KEY = "intro.ipynb"

START_TIMEOUT = 20.0
# First argument that makes this file run moto itself (see run_moto_with_cors_on_every_response).
CHILD_FLAG = "--run-moto"


#: The extension's one definition of the CORS rule it needs (also the fix it shows people).
CORS_DEFINITION = Path(__file__).resolve().parent.parent / "src" / "rules" / "cors.json"


def cors_rules(origins: list[str]) -> dict[str, Any]:
    """The CORS configuration an admin puts on a bucket the browser extension reads/writes:
    exactly the rule the extension tells admins to add, so that every UI test proves that
    rule is enough."""
    rule = json.loads(CORS_DEFINITION.read_text())
    return {
        "CORSRules": [
            {
                "AllowedOrigins": list(origins),
                **{
                    name: rule[name]
                    for name in (
                        "AllowedMethods",
                        "AllowedHeaders",
                        "ExposeHeaders",
                        "MaxAgeSeconds",
                    )
                },
            }
        ]
    }


def shared_cors_rules(origins: list[str]) -> dict[str, Any]:
    """The CORS configuration of a bucket that another site reads and writes too, where an
    admin once allowed the Lab origins to read only (an older rule: no PUT, only the ETag
    exposed). Pasting the extension's rule over it would cut the other site off; the info
    panel must show the configuration with the other site's rule kept."""
    return {
        "CORSRules": [
            {
                "ID": "other-site",
                "AllowedOrigins": [OTHER_SITE_ORIGIN],
                "AllowedMethods": ["GET", "PUT"],
                "AllowedHeaders": ["*"],
                "ExposeHeaders": ["ETag"],
                "MaxAgeSeconds": 600,
            },
            {
                "AllowedOrigins": list(origins),
                "AllowedMethods": ["GET", "HEAD"],
                "AllowedHeaders": ["*"],
                "ExposeHeaders": ["ETag"],
            },
        ]
    }


def work_around_moto_private_object_preflight_bug(s3: Any, bucket: str) -> None:
    """Let moto answer CORS preflights for existing objects of a private bucket.

    The bug (moto 5.2.x, server mode): an ``OPTIONS`` request on an object key runs
    through moto's object authorization before the CORS rules are looked at. A preflight
    never carries an ``Authorization`` header (browsers send no credentials on it), so moto
    treats it as an anonymous request for the pseudo-action ``s3:OptionsObject`` and, when
    the object exists and is private, answers 403 with no CORS headers. The browser then
    refuses the real GET/PUT with "Failed to fetch". A preflight for a key that does not
    exist yet passes, which is why uploads of new objects work and reads do not.

    Real S3 does not need this: it answers preflights from the CORS configuration alone.
    Do NOT copy this policy to a real bucket (AWS would reject the unknown action anyway).

    The workaround: a bucket policy that allows exactly that pseudo-action to everyone.
    moto then sees the preflight as permitted and goes on to the CORS rules. It grants
    nothing else: unsigned GET/PUT of existing private objects still get 403 as on AWS.
    (Broader alternatives that also work: a policy allowing ``s3:*`` to Principal ``*``
    on the bucket and its objects, or writing every object with ``ACL=public-read``; both
    make the bucket public to unsigned requests, which real private buckets are not.)
    """
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "MotoOnlyAllowCorsPreflightOnExistingObjects",
                "Effect": "Allow",
                "Principal": "*",
                "Action": "s3:OptionsObject",
                "Resource": f"arn:aws:s3:::{bucket}/*",
            }
        ],
    }
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))


def deny_object_access(s3: Any, bucket: str) -> None:
    """A bucket policy that denies reading and writing the bucket's objects to everyone.

    The way a real deployment shuts a bucket: an explicit Deny wins over every Allow.
    ``s3:HeadObject`` is moto's name for HEAD (AWS covers HEAD with ``s3:GetObject`` and
    would refuse the unknown action in a policy); ``s3:OptionsObject`` stays allowed, as
    ``work_around_moto_private_object_preflight_bug`` explains, so the browser gets past
    the preflight and sees the 403 itself, as it would on AWS.
    """
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "MotoOnlyAllowCorsPreflightOnExistingObjects",
                "Effect": "Allow",
                "Principal": "*",
                "Action": "s3:OptionsObject",
                "Resource": f"arn:aws:s3:::{bucket}/*",
            },
            {
                "Sid": "DenyObjectAccessToEveryone",
                "Effect": "Deny",
                "Principal": "*",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:HeadObject"],
                "Resource": f"arn:aws:s3:::{bucket}/*",
            },
        ],
    }
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))


class MotoCorsOnEveryResponse:
    """WSGI layer, run inside the moto process: CORS headers on every S3 answer, as AWS does.

    The gap (moto 5.2.x, server mode, ``MOTO_DISABLE_GLOBAL_CORS=true``): moto adds the
    bucket's CORS headers only to *successful* GetObject/PutObject (and a few other object
    calls). HeadObject, HeadBucket, ListObjectsV2, GetBucketVersioning, DeleteObject and
    every error answer (403 AccessDenied, 404 NoSuchKey, 412 PreconditionFailed, ...) come
    without ``Access-Control-Allow-Origin``. A browser then hides them from the page: the
    SDK sees ``TypeError: Failed to fetch`` instead of a 404 or a 412, so "does the object
    exist?", "missing key" and "someone else published first" cannot be told apart from a
    CORS refusal. AWS S3 sends the matching rule's headers on those answers too.

    What this does: for a non-OPTIONS request with an ``Origin`` whose answer has no
    ``Access-Control-Allow-Origin``, it looks up the bucket's own CORS configuration in
    moto's state (the one stored by PutBucketCors) and, if a rule matches the origin and the
    method, adds that rule's headers, as S3 does. Buckets without a rule, origins or methods
    that no rule allows, and all preflights are left exactly as moto answers them. Real S3
    does not need this.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    @staticmethod
    def _rule_headers(bucket_name: str, origin: str, method: str) -> list[tuple[str, str]]:
        from moto.s3.models import s3_backends
        from moto.s3.utils import cors_matches_origin

        where = s3_backends.bucket_accounts.get(bucket_name)
        if where is None:
            return []
        partition, account_id = where
        bucket = s3_backends[account_id][partition].buckets.get(bucket_name)
        for rule in getattr(bucket, "cors", None) or []:
            if not cors_matches_origin(origin, rule.allowed_origins or []):
                continue
            if method not in (rule.allowed_methods or []):
                continue
            headers = [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Allow-Methods", ", ".join(rule.allowed_methods)),
            ]
            if rule.exposed_headers:
                headers.append(("Access-Control-Expose-Headers", ", ".join(rule.exposed_headers)))
            if rule.max_age_seconds is not None:
                headers.append(("Access-Control-Max-Age", str(rule.max_age_seconds)))
            return headers  # S3 uses the first matching rule
        return []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        origin = environ.get("HTTP_ORIGIN")
        method = environ.get("REQUEST_METHOD", "GET").upper()
        bucket_name = environ.get("PATH_INFO", "").lstrip("/").split("/", 1)[0]
        if not origin or method == "OPTIONS" or not bucket_name:
            return self.app(environ, start_response)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            names = {name.lower() for name, _ in headers}
            if "access-control-allow-origin" not in names:
                try:
                    extra = self._rule_headers(bucket_name, origin, method)
                except Exception:  # never break moto's answer because of this layer
                    extra = []
                if extra:
                    headers = list(headers) + extra
                    if "vary" not in names:
                        headers.append(("Vary", "Origin"))
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


#: The checksum headers S3 verifies on a PUT that moto 5.2.x stores unverified, by the name in
#: ``x-amz-checksum-<name>``: the raw digest of the body.
CHECKSUMS: dict[str, Callable[[bytes], bytes]] = {
    "CRC32": lambda body: zlib.crc32(body).to_bytes(4, "big"),
    "SHA1": lambda body: hashlib.sha1(body, usedforsecurity=False).digest(),
    "SHA256": lambda body: hashlib.sha256(body).digest(),
}


class MotoWritesLikeS3:
    """WSGI layer, run inside the moto process: object writes checked and atomic, as on S3.

    Gap 1 (moto 5.2.x): moto stores a PUT body whatever its ``Content-MD5`` header says.
    S3 answers 400 ``InvalidDigest`` when the header is not a base64 MD5 and 400
    ``BadDigest`` when the body does not match it, and stores nothing. Clients send
    ``Content-MD5`` precisely so that a body damaged on the way is refused; without this
    check, a test of a damaged upload would see moto store the damage. The same for the
    checksum headers S3 verifies (``x-amz-checksum-crc32``, ``-sha1``, ``-sha256``; moto's own
    code says it does not): 400 ``BadDigest`` "The CRC32 you specified did not match the
    calculated checksum." (CRC32C and CRC64NVME need libraries moto may lack: passed to moto
    as they are.) Bodies in ``aws-chunked`` framing carry their checksum in a trailer, which
    moto reads itself: passed as they are too.

    Gap 2 (moto 5.2.x, threaded server): a conditional PUT (``If-None-Match: *``,
    ``If-Match``) is checked and then stored in separate steps, so two racing writers can
    both pass the check. S3 applies a conditional write atomically. Object writes (PUT,
    POST, DELETE on a key) are serialized here, so that a race is decided as on S3.

    The body is read before the lock is taken, so a slow upload holds up no one.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self._write_lock = threading.Lock()

    @staticmethod
    def _error(start_response: Any, code: str, message: str) -> list[bytes]:
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{code}</Code><Message>{message}</Message></Error>"
        ).encode()
        start_response(
            "400 Bad Request",
            [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))],
        )
        return [body]

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        import base64
        import io

        method = environ.get("REQUEST_METHOD", "GET").upper()
        path = environ.get("PATH_INFO", "").lstrip("/")
        if method not in ("PUT", "POST", "DELETE") or "/" not in path.rstrip("/"):
            return self.app(environ, start_response)  # reads and bucket calls as moto does
        length = environ.get("CONTENT_LENGTH")
        expected = environ.get("HTTP_CONTENT_MD5")
        if length and length.isdigit():
            body = environ["wsgi.input"].read(int(length))
            environ["wsgi.input"] = io.BytesIO(body)
            if expected is not None:
                try:
                    digest = base64.b64decode(expected, validate=True)
                except ValueError:
                    digest = b""
                if len(digest) != 16:
                    return self._error(
                        start_response,
                        "InvalidDigest",
                        "The Content-MD5 you specified was invalid.",
                    )
                if hashlib.md5(body).digest() != digest:
                    return self._error(
                        start_response,
                        "BadDigest",
                        "The Content-MD5 you specified did not match what we received.",
                    )
            chunked = "aws-chunked" in environ.get("HTTP_CONTENT_ENCODING", "") or environ.get(
                "HTTP_X_AMZ_CONTENT_SHA256", ""
            ).startswith("STREAMING-")
            for name, checksum in CHECKSUMS.items():
                given = environ.get(f"HTTP_X_AMZ_CHECKSUM_{name}")
                if given is None or chunked:
                    continue
                if base64.b64encode(checksum(body)).decode() != given:
                    return self._error(
                        start_response,
                        "BadDigest",
                        f"The {name} you specified did not match the calculated checksum.",
                    )
        with self._write_lock:
            # moto builds the whole answer in the call: the lock covers check and store.
            return list(self.app(environ, start_response))


def run_moto_with_cors_on_every_response(argv: list[str]) -> None:
    """Run moto's own server (same arguments as ``moto_server``) with the layers above."""
    import moto.server

    real_run_simple = moto.server.run_simple

    def run_simple(host: str, port: int, app: Any, **kwargs: Any) -> None:
        real_run_simple(host, port, MotoCorsOnEveryResponse(MotoWritesLikeS3(app)), **kwargs)

    moto.server.run_simple = run_simple  # type: ignore[assignment]
    moto.server.main(argv)


def find_moto_server() -> list[str]:
    """The command that starts moto's server: next to this Python first, then on PATH."""
    here = Path(sys.executable).parent
    for name in ("moto_server", "moto_server.exe"):
        candidate = here / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate)]
    found = shutil.which("moto_server")
    if found:
        return [found]
    return [sys.executable, "-m", "moto.server"]


def _samples() -> Any:
    """The sample builder module, whether this file is used from a package or as a script."""
    try:  # imported as part of the ``scripts`` package
        from . import make_sample_notebooks
    except ImportError:  # run as ``python scripts/s3_fixture.py`` or with scripts/ on sys.path
        import make_sample_notebooks  # type: ignore[no-redef]
    return make_sample_notebooks


def s3_client(endpoint_url: str) -> Any:
    """A boto3 S3 client for the fixture, with the demo credentials and path-style URLs."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3",
        endpoint_url=endpoint_url,
        region_name=REGION,
        aws_access_key_id=DEMO_ACCESS_KEY,
        aws_secret_access_key=DEMO_SECRET_KEY,
        config=Config(
            s3={"addressing_style": "path"},
            proxies={},
            retries={"max_attempts": 3, "mode": "standard"},
        ),
    )


def _port_is_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((HOST, port)) == 0


def _http_status(url: str, timeout: float = 2.0) -> int | None:
    """The HTTP status of an unsigned GET, or None when nothing answers. Ignores proxies."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code
    except (urllib.error.URLError, OSError):
        return None


def _set_parent_death_signal() -> None:
    """In the child: get SIGTERM when the thread that started it dies (Linux only)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except Exception:  # not Linux, or no prctl: the caller's stop() is then the only guard
        pass


class S3Fixture:
    """A running, configured moto server. Stop it with ``stop()`` or a ``with`` block."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        port: int,
        log: IO[bytes] | None,
    ) -> None:
        self._process = process
        self._log = log
        self._stopped = False
        self._lock = threading.Lock()
        self.port = port
        self.pid = process.pid
        self.endpoint_url = f"http://{HOST}:{port}"
        self.region = REGION
        self.access_key_id = DEMO_ACCESS_KEY
        self.secret_access_key = DEMO_SECRET_KEY
        self.buckets: list[str] = []
        # "bucket/key" -> version ids, oldest first.
        self.version_ids: dict[str, list[str]] = {}
        atexit.register(self.stop)

    def client(self) -> Any:
        """A boto3 S3 client for this server (demo credentials)."""
        return s3_client(self.endpoint_url)

    def is_running(self) -> bool:
        return self._process.poll() is None

    def log_tail(self, limit: int = 4000) -> str:
        """The end of moto's output, when it is captured to a file."""
        if self._log is None:
            return ""
        try:
            self._log.flush()
            with open(self._log.name, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - limit))
                return f.read().decode("utf-8", "replace")
        except (OSError, AttributeError, TypeError):
            return ""

    def info(self) -> dict[str, Any]:
        """What a test or the demo needs to know, as JSON-friendly data."""
        return {
            "endpoint_url": self.endpoint_url,
            "port": self.port,
            "pid": self.pid,
            "region": self.region,
            "access_key_id": self.access_key_id,
            "secret_access_key": self.secret_access_key,
            "buckets": list(self.buckets),
            "version_ids": {k: list(v) for k, v in self.version_ids.items()},
        }

    def stop(self) -> None:
        """Terminate moto (by its PID), wait, kill it if it does not go. Idempotent."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        try:
            stop_process(self._process)
        finally:
            if self._log is not None:
                self._log.close()
            atexit.unregister(self.stop)

    def __enter__(self) -> S3Fixture:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.is_running() else "stopped"
        return f"<S3Fixture {self.endpoint_url} pid={self.pid} {state}>"


def _wait_until_answering(fixture: S3Fixture, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not fixture.is_running():
            raise RuntimeError(
                f"moto_server exited with code {fixture._process.returncode} before answering "
                f"on port {fixture.port}.\n{fixture.log_tail()}"
            )
        if _http_status(fixture.endpoint_url + "/") is not None:
            return
        time.sleep(0.1)
    raise TimeoutError(
        f"moto_server did not answer on {fixture.endpoint_url} within {timeout:.0f} s.\n"
        f"{fixture.log_tail()}"
    )


def _configure(fixture: S3Fixture, origins: list[str], test_buckets: bool) -> None:
    s3 = fixture.client()
    samples_module = _samples()
    samples = samples_module.build_samples()
    content_type = samples_module.content_type
    cors = cors_rules(origins)

    def private_bucket(name: str, *, versioned: bool = False, with_cors: bool = True) -> None:
        s3.create_bucket(Bucket=name)  # us-east-1: no LocationConstraint
        if versioned:
            s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        if with_cors:
            s3.put_bucket_cors(Bucket=name, CORSConfiguration=cors)
        work_around_moto_private_object_preflight_bug(s3, name)
        fixture.buckets.append(name)

    def put(bucket: str, key: str, body: bytes, **extra: Any) -> str | None:
        response = s3.put_object(
            Bucket=bucket, Key=key, Body=body, ContentType=content_type(key), **extra
        )
        return response.get("VersionId")

    private_bucket(EXAMPLES_BUCKET)
    private_bucket(PUBLISHED_BUCKET, versioned=True)
    if test_buckets:
        private_bucket(NOCORS_BUCKET, with_cors=False)
        put(NOCORS_BUCKET, NOCORS_KEY, samples[NOCORS_KEY])
        private_bucket(VERSIONED_BUCKET, versioned=True)
        versions = samples_module.history_versions()
        ids = [put(VERSIONED_BUCKET, HISTORY_KEY, body) for body in versions]
        if any(v in (None, "null") for v in ids) or len(set(ids)) != len(ids):
            raise RuntimeError(f"versioning did not give distinct version ids: {ids}")
        fixture.version_ids[f"{VERSIONED_BUCKET}/{HISTORY_KEY}"] = [str(v) for v in ids]
        private_bucket(DENIED_BUCKET)
        put(DENIED_BUCKET, DENIED_KEY, samples[DENIED_KEY])
        deny_object_access(s3, DENIED_BUCKET)  # after the put: it denies the fixture too
        put(EXAMPLES_BUCKET, PUBLIC_KEY, samples[NOCORS_KEY], ACL="public-read")
        private_bucket(OTHERSITE_BUCKET, with_cors=False)
        s3.put_bucket_cors(Bucket=OTHERSITE_BUCKET, CORSConfiguration=shared_cors_rules(origins))
        put(OTHERSITE_BUCKET, OTHERSITE_KEY, samples[NOCORS_KEY])

    for key, body in samples.items():
        if key != READY_KEY:
            put(EXAMPLES_BUCKET, key, body)
    put(EXAMPLES_BUCKET, READY_KEY, samples[READY_KEY])  # last: marks the set-up as complete


def start_s3_server(
    port: int,
    origins: list[str],
    *,
    test_buckets: bool = False,
    log_path: str | None = None,
    stop_with_parent: bool = True,
    cors_on_every_response: bool = True,
) -> S3Fixture:
    """Start ``moto_server`` on 127.0.0.1:``port`` and configure the buckets.

    ``origins``: the browser origins (scheme://host:port of JupyterLab) the CORS rules allow.
    ``log_path``: where moto's output goes (appended); by default a temporary file that is
    only used for error messages.
    ``cors_on_every_response``: run moto with ``MotoCorsOnEveryResponse`` and
    ``MotoWritesLikeS3`` (default), so that HEAD, listings, deletes and error answers carry
    CORS headers, ``Content-MD5`` is checked and conditional writes are atomic, as on AWS;
    False runs the plain ``moto_server`` (found next to this Python, else on PATH).
    ``stop_with_parent`` (default): on Linux, moto gets SIGTERM when the thread that called
    this ends, so it never outlives its owner, even one killed with SIGKILL. Pass False when
    calling from a short-lived thread.
    """
    if not origins:
        raise ValueError("at least one origin is needed for the CORS rules")
    if stop_with_parent and os.name != "posix":
        stop_with_parent = False  # preexec_fn is POSIX only
    if _port_is_open(port):
        raise RuntimeError(f"port {port} on {HOST} is already in use")

    env = dict(os.environ)
    env["MOTO_DISABLE_GLOBAL_CORS"] = "true"  # refuse browsers on buckets without a CORS rule
    env.setdefault("PYTHONUNBUFFERED", "1")
    log: IO[bytes]
    if log_path is not None:
        log = open(log_path, "ab")  # noqa: SIM115  (closed by S3Fixture.stop)
    else:
        log = tempfile.NamedTemporaryFile(prefix="bookshelf-moto-", suffix=".log")  # noqa: SIM115
    if cors_on_every_response and importlib.util.find_spec("moto") is not None:
        # This file, run by this Python, starts moto's server in-process with the layer.
        command = [sys.executable, str(Path(__file__).resolve()), CHILD_FLAG]
    else:
        command = find_moto_server()
    try:
        process = subprocess.Popen(
            [*command, "-H", HOST, "-p", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=_set_parent_death_signal if stop_with_parent else None,
        )
    except BaseException:
        log.close()
        raise
    fixture = S3Fixture(process, port, log)
    try:
        _samples()  # import nbformat (slow) while moto starts
        _wait_until_answering(fixture, START_TIMEOUT)
        _configure(fixture, origins, test_buckets)
    except BaseException:
        fixture.stop()
        raise
    return fixture


def wait_ready_url(endpoint_url: str) -> str:
    """A URL that answers 404 until the set-up is complete and 403 after it.

    (An unsigned GET of a private object.) Handy for Playwright's ``webServer.url``, which
    treats 403 as "ready" and 404 as "not yet".
    """
    return f"{endpoint_url}/{EXAMPLES_BUCKET}/{READY_KEY}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [CHILD_FLAG]:
        run_moto_with_cors_on_every_response(argv[1:])
        return 0
    parser = argparse.ArgumentParser(
        description="Run moto as a configured S3 server for the bookshelf tests and demo."
    )
    parser.add_argument("--port", type=int, default=9000, help="port on 127.0.0.1 (default 9000)")
    parser.add_argument(
        "--origin",
        action="append",
        dest="origins",
        metavar="URL",
        help="browser origin allowed by the CORS rules, e.g. http://127.0.0.1:8888 (repeatable; "
        "default: http://127.0.0.1:8888 and http://localhost:8888)",
    )
    parser.add_argument(
        "--test-buckets",
        action="store_true",
        help="also create nocors, versioned-examples, denied and a public object",
    )
    parser.add_argument(
        "--plain-moto",
        action="store_true",
        help="run moto_server as is: HEAD, listings, deletes and errors then carry no CORS "
        "headers (browsers see 'Failed to fetch')",
    )
    parser.add_argument("--log", metavar="FILE", help="append moto's request log to FILE")
    parser.add_argument(
        "--info-file", metavar="FILE", help="write endpoint, buckets and version ids as JSON"
    )
    args = parser.parse_args(argv)
    origins = args.origins or ["http://127.0.0.1:8888", "http://localhost:8888"]

    stop_requested = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        stop_requested.set()

    for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, on_signal)

    try:
        fixture = start_s3_server(
            args.port,
            origins,
            test_buckets=args.test_buckets,
            log_path=args.log,
            stop_with_parent=True,
            cors_on_every_response=not args.plain_moto,
        )
    except Exception as err:
        print(f"s3_fixture: {err}", file=sys.stderr)
        return 1

    with fixture:
        if args.info_file:
            Path(args.info_file).write_text(json.dumps(fixture.info(), indent=2) + "\n")
        versions = "".join(
            f"; {name} versions {', '.join(ids)}" for name, ids in fixture.version_ids.items()
        )
        print(
            f"S3 fixture ready: endpoint {fixture.endpoint_url} (region {REGION}, access key "
            f"{DEMO_ACCESS_KEY}) buckets {', '.join(fixture.buckets)}; CORS origins "
            f"{', '.join(origins)}{versions}",
            flush=True,
        )
        while not stop_requested.wait(0.5):
            if not fixture.is_running() and not stop_requested.wait(1.0):
                print(
                    f"s3_fixture: moto_server exited unexpectedly\n{fixture.log_tail()}",
                    file=sys.stderr,
                )
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

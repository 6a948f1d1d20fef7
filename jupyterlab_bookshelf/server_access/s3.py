"""The server's S3 client (boto3, the standard AWS credential chain) and what S3's answers mean.

The error mapping is the browser's (``src/s3/diagnosis.ts``): the same S3 answers give the same
Bookshelf codes (one rule for both, ``src/rules/s3answers.json``) and messages. Messages name
the bucket and key, never a credential.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectionError,
    IncompleteReadError,
    NoCredentialsError,
    PartialCredentialsError,
    ReadTimeoutError,
    ResponseStreamingError,
)

from ..errors import BookshelfError
from ..rules import load_rule
from .config import S3Settings


def s3_answer_code(
    name: str, status: int | None, key: str | None, version_id: str | None
) -> str | None:
    """What an S3 service's error answer means (``src/rules/s3answers.json``, which the
    browser's ``s3AnswerCode`` reads too): by its error code, then by its HTTP status; None
    when neither says."""
    answers = load_rule("s3answers")
    if name == answers["versionIdRefused"] and version_id:
        return "NoSuchVersion"
    if name in answers["codes"]:
        return answers["codes"][name]
    if name in answers["notFoundCodes"] or status == 404:
        # A HEAD answer has no body, hence no error code: only the status.
        return "NoSuchKey" if key else "NoSuchBucket"
    if status is None:
        return None
    if str(status) in answers["statuses"]:
        return answers["statuses"][str(status)]
    return "ServerError" if status >= answers["serverErrorFrom"] else None


#: Tries of one request (botocore's standard retry mode: throttling and 5xx are retried).
MAX_ATTEMPTS = 3

_clients: dict[tuple[str, str, bool, bool], Any] = {}
#: The boto3 session of each combination, shared by its clients with and without a signed
#: payload (a client of a session of its own loads the service model again: about 12 MB).
_sessions: dict[tuple[str, str, bool], boto3.session.Session] = {}
_clients_lock = threading.Lock()


def s3_client(settings: S3Settings, *, sign_payload: bool = True) -> Any:
    """A boto3 client for the settings' endpoint, region and addressing style; one per
    combination (clients are thread-safe and keep their connection pool). Credentials come
    from boto3's chain, looked up (and refreshed) by the client's session.

    ``sign_payload=False`` (the publish's uploads, which carry a checksum): requests are
    signed with ``X-Amz-Content-SHA256: UNSIGNED-PAYLOAD`` over http:// too, where botocore
    otherwise reads the whole body once more to hash it before sending a byte. S3 accepts it
    over http and https (so do moto and the signature-verifying s3rver of the tests); the
    checksum header (``x-amz-checksum-crc32`` or ``Content-MD5``), which is signed, still
    makes S3 refuse bytes other than those hashed."""
    combination = (settings.endpoint_url, settings.region, settings.force_path_style)
    cache_key = (*combination, sign_payload)
    with _clients_lock:
        client = _clients.get(cache_key)
        if client is None:
            session = _sessions.get(combination)
            if session is None:
                session = _sessions[combination] = boto3.session.Session()
            s3_options: dict[str, Any] = {
                "addressing_style": "path" if settings.force_path_style else "auto"
            }
            if not sign_payload:
                s3_options["payload_signing_enabled"] = False
            config = Config(
                s3=s3_options,
                retries={"max_attempts": MAX_ATTEMPTS, "mode": "standard"},
                # The checksums newer botocore adds by default are refused by some
                # S3-compatible servers: the clone checks MD5, and the publish sends the
                # checksum the service is found to verify (publish.py).
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
                max_pool_connections=32,
                connect_timeout=10,
                read_timeout=60,
            )
            client = session.client(
                "s3",
                endpoint_url=settings.endpoint_url or None,
                region_name=settings.region,
                config=config,
            )
            _clients[cache_key] = client
        return client


def forget_clients() -> None:
    """Drop the cached clients and what was found out about the services (tests that change
    the credentials in the environment, or start another S3 server at an address)."""
    with _clients_lock:
        _clients.clear()
        _sessions.clear()
    from .publish import _conditional_writes, _verified_checksums

    _conditional_writes.forget()
    _verified_checksums.forget()


def where(bucket: str | None, key: str | None = None) -> str:
    if bucket and key:
        return f"s3://{bucket}/{key}"
    return f"s3://{bucket}" if bucket else "the S3 service"


_MD5_ETAG = re.compile(r'^(?:W/)?"?([0-9a-fA-F]{32})"?$')


def etag_md5(
    etag: str | None, encryption: str | None = None, sse_customer: Any = None
) -> str | None:
    """The MD5 hex digest an ETag stands for (``etagMd5`` of integrity.ts): None for a
    multipart ETag, a missing one, or an object encrypted with KMS or a customer key."""
    if (encryption or "").lower().startswith("aws:kms") or sse_customer:
        return None
    match = _MD5_ETAG.match((etag or "").strip())
    return match.group(1).lower() if match else None


def to_bookshelf_error(
    error: BaseException,
    bucket: str | None = None,
    key: str | None = None,
    version_id: str | None = None,
    endpoint_url: str = "",
) -> BookshelfError:
    """What an S3 failure means (``toBookshelfError`` of diagnosis.ts)."""
    if isinstance(error, BookshelfError):
        return error
    place = where(bucket, key)
    at = f" at {endpoint_url}" if endpoint_url else ""
    if isinstance(error, (NoCredentialsError, PartialCredentialsError)):
        return BookshelfError(
            "InvalidCredentials",
            "The Jupyter server has no S3 credentials: an administrator gives its process AWS "
            "credentials (environment, shared config or profile, web identity, instance role).",
        )
    if isinstance(error, (IncompleteReadError, ResponseStreamingError)):
        return BookshelfError(
            "Interrupted", f"The transfer of {place} was interrupted; it still was after retries."
        )
    if isinstance(error, ConnectionClosedError):
        # The connection closed while a request or its answer was under way (botocore
        # tried again first): the service was reached, the transfer did not complete.
        return BookshelfError(
            "Interrupted",
            f"The connection to the S3 service{at} was lost during the transfer of {place}; "
            "it still was after retries.",
        )
    if isinstance(error, ReadTimeoutError):
        return BookshelfError("Unreachable", f"The S3 service{at} did not answer in time.")
    if isinstance(error, ConnectionError):
        return BookshelfError("Unreachable", f"The S3 service{at} could not be reached.")
    if not isinstance(error, ClientError):
        if isinstance(error, BotoCoreError):
            return BookshelfError("Unknown", f"The S3 request for {place} failed.")
        return BookshelfError("Unknown", f"The S3 request for {place} failed unexpectedly.")
    name = str(error.response.get("Error", {}).get("Code", ""))
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    code = s3_answer_code(name, status, key, version_id)
    messages = {
        "NoSuchBucket": f"The bucket '{bucket}' does not exist.",
        "NoSuchKey": f"There is no object {place}.",
        "NoSuchVersion": f"{place} has no version '{version_id}'.",
        "AccessDenied": f"Access to {place} was denied.",
        "InvalidCredentials": (
            "The S3 service refused the request because the server's clock is wrong."
            if name == "RequestTimeTooSkewed"
            else "The S3 service did not accept the Jupyter server's credentials."
        ),
        "ExpiredCredentials": "The Jupyter server's S3 credentials have expired.",
        "PreconditionFailed": f"{place} was changed by someone else meanwhile.",
        "Corrupted": (
            f"The S3 service refused the upload to {place}: the bytes it received were damaged "
            "on the way, so it stored nothing."
        ),
        "SlowDown": (
            "The S3 service is busy and asked to slow down; it still was after several tries."
        ),
        "ServerError": (
            f"The S3 service failed{f' (HTTP {status})' if status else ''}; it still did after "
            "several tries."
        ),
        "Unreachable": f"The S3 service{at} did not answer in time.",
    }
    if code in messages:
        return BookshelfError(code, messages[code])
    return BookshelfError(
        "Unknown", f"The S3 request for {place} failed{f' ({name})' if name else ''}."
    )

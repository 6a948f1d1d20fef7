"""Server-side publish: a saved notebook (or the notebook in the request) put at
``s3://<publishBucket>/<publishPrefix><path>`` under the overwrite policy.

The browser's rules (``src/publish/``): version 4 notebooks only; the destination and the
overwrite decision from the shared rules (``publishing.py``: create only with
``If-None-Match: *`` when nothing is there; ``never`` refuses; ``always`` replaces;
``confirm`` replaces only when asked to, and only the version seen, with ``If-Match``); where a
policy relies on a condition, whether the S3 service honours it is checked once per endpoint
and bucket (``conditional.ts``), never assumed. Uploads carry ``Content-MD5``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError
from jupyter_core.utils import ensure_async
from jupyter_server.services.contents.fileio import FileManagerMixin
from tornado.web import HTTPError

from ..errors import BookshelfError
from ..publishing import (
    NOTEBOOK_CONTENT_TYPE,
    DestinationRefused,
    decide_overwrite,
    resolve_destination,
    s3_path,
)
from ..validation import clone_link_query
from .config import S3Settings
from .notebook import check_notebook_bytes
from .s3 import s3_client, to_bookshelf_error
from .transfers import in_transfer_thread, start_check

PROBE_KEY_STEM = ".bookshelf-conditional-write-check-"
PROBE_BODY = b"Bookshelf checks whether this S3 service honours conditional writes.\n"


@dataclass
class PublishOptions:
    """What the caller may ask: another destination below the prefix, to replace an existing
    object (the ``confirm`` policy's confirmation), the ETag it saw."""

    destination: str | None = None
    overwrite: bool = False
    if_match: str | None = None


def _flag(value: Any, name: str) -> bool:
    """A yes/no option: JSON true/false, or a query's ``true``/``false`` (``?overwrite``
    alone means true)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("", "1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
        return False
    raise BookshelfError("InvalidRequest", f"{name}: must be true or false.", name)


def read_options(body: Any, query: dict[str, list[bytes]]) -> PublishOptions:
    """The options of the body's fields or the query's parameters (the body wins)."""
    given: dict[str, Any] = {
        name: values[-1].decode("utf-8", "replace")
        for name, values in query.items()
        if name in ("to", "overwrite", "if_match") and values
    }
    if isinstance(body, dict):
        given.update({name: body[name] for name in ("to", "overwrite", "if_match") if name in body})
    destination = given.get("to")
    if destination is not None and not isinstance(destination, str):
        raise BookshelfError(
            "InvalidRequest",
            "The publish destination must be text: a path below the publish prefix.",
            "to",
        )
    if_match = given.get("if_match")
    if if_match is not None and not isinstance(if_match, str):
        raise BookshelfError("InvalidRequest", "if_match: must be an ETag, as text.", "if_match")
    return PublishOptions(
        destination=destination or None,
        overwrite=_flag(given.get("overwrite", False), "overwrite"),
        if_match=if_match or None,
    )


def notebook_body_bytes(path: str, body: Any) -> bytes:
    """A notebook given in the request, written as Jupyter writes notebooks."""
    if (
        not isinstance(body, dict)
        or body.get("type") != "notebook"
        or not isinstance(body.get("content"), dict)
    ):
        raise BookshelfError(
            "InvalidRequest",
            "The publish body must be {type: 'notebook', content: <the notebook as an object>}.",
        )
    return (json.dumps(body["content"], indent=1, ensure_ascii=False) + "\n").encode("utf-8")


async def read_saved_notebook(cm: Any, path: str) -> bytes:
    """The saved file's bytes as they are (not parsed and written again)."""
    try:
        if not await ensure_async(cm.file_exists(path)):
            raise BookshelfError(
                "ReadFailed",
                f"There is no file '{path}' in the file tree: save the notebook first, or check "
                "its path.",
                "path",
            )
        if isinstance(cm, FileManagerMixin):
            # The bytes on disk, without a round of decoding and encoding; the manager's own
            # rule on hidden files still applies.
            if not cm.allow_hidden and await ensure_async(cm.is_hidden(path)):
                raise BookshelfError("ReadFailed", f"'{path}' is hidden.", "path")
            return await in_transfer_thread(Path(cm._get_os_path(path)).read_bytes)
        model = await ensure_async(cm.get(path, content=True, type="file", format="text"))
    except HTTPError as error:
        if error.status_code == 400:
            raise not_publishable(path, "the server cannot read it as UTF-8 text.") from None
        raise BookshelfError(
            "ReadFailed",
            f"The Jupyter server could not read '{path}' (HTTP {error.status_code}).",
            "path",
        ) from None
    except OSError as error:
        raise BookshelfError(
            "ReadFailed",
            f"The Jupyter server could not read '{path}' ({error.strerror or 'unknown error'}).",
            "path",
        ) from None
    content = model.get("content")
    if not isinstance(content, str):
        raise not_publishable(path, "it is not a file of text.")
    return content.encode("utf-8")


def not_publishable(path: str, reason: str) -> BookshelfError:
    return BookshelfError(
        "NotANotebook",
        f"'{path}' is not a valid Jupyter notebook, so it was not published: {reason}",
    )


class ConditionalWrites:
    """Whether the S3 service honours ``If-Match``/``If-None-Match`` on PutObject, per
    endpoint and bucket, found out by a probe and kept for ``KEEP_SECONDS`` (a service may be
    upgraded or replaced behind its address); a failed probe is not kept."""

    KEEP_SECONDS = 900.0

    def __init__(self) -> None:
        self._answers: dict[tuple[str, str], tuple[float, dict[str, bool]]] = {}
        self._lock = threading.Lock()

    def answer(self, client: Any, endpoint: str, bucket: str, prefix: str) -> dict[str, bool]:
        with self._lock:  # concurrent publishes share one probe
            kept = self._answers.get((endpoint, bucket))
            if kept is None or time.monotonic() - kept[0] > self.KEEP_SECONDS:
                kept = (time.monotonic(), probe(client, bucket, prefix))
                self._answers[(endpoint, bucket)] = kept
            return kept[1]

    def forget(self) -> None:
        with self._lock:
            self._answers.clear()


def _refused_condition(error: BaseException) -> bool:
    if not isinstance(error, ClientError):
        return False
    code = error.response.get("Error", {}).get("Code")
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in ("PreconditionFailed", "NoSuchKey") or status in (404, 412)


def probe(client: Any, bucket: str, prefix: str) -> dict[str, bool]:
    """``probeConditionalWrites``: a put with an ``If-Match`` nothing can meet, to a fresh
    key; a conforming service refuses it and nothing is written. Else the probe's object is
    tried with ``If-None-Match: *`` and deleted again, each version by its id."""
    key = f"{prefix}{PROBE_KEY_STEM}{secrets.token_hex(16)}"
    try:
        first = client.put_object(
            Bucket=bucket,
            Key=key,
            Body=PROBE_BODY,
            ContentType="text/plain",
            IfMatch=f'"{secrets.token_hex(16)}"',
        )
    except ClientError as error:
        if _refused_condition(error):
            return {"if_match": True, "if_none_match": True}
        raise
    written = [first.get("VersionId")]
    if_none_match = False
    try:
        second = client.put_object(
            Bucket=bucket, Key=key, Body=PROBE_BODY, ContentType="text/plain", IfNoneMatch="*"
        )
        written.append(second.get("VersionId"))
    except ClientError as error:
        if not _refused_condition(error):
            raise
        if_none_match = True
    finally:
        ids = set(written) if all(written) else {None}
        for version_id in ids:
            try:
                extra = {"VersionId": version_id} if version_id else {}
                client.delete_object(Bucket=bucket, Key=key, **extra)
            except ClientError:
                pass  # the probe's leftover is named by its key stem
    return {"if_match": False, "if_none_match": if_none_match}


_conditional_writes = ConditionalWrites()


def _head_etag(client: Any, bucket: str, key: str) -> tuple[bool, str | None]:
    """Whether an object is there, and its ETag."""
    try:
        head = client.head_object(Bucket=bucket, Key=key)
    except ClientError as error:
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status == 404:
            return False, None
        raise
    return True, head.get("ETag")


def decide(policy: str, exists: bool, etag: str | None, options: PublishOptions, where: str):
    """The put's condition (botocore's parameter names), from the shared decision
    (``publishing.decide_overwrite``, the browser's ``decideOverwrite``); raises its refusal."""
    decision = decide_overwrite(
        policy, {"etag": etag} if exists else None, options.overwrite, options.if_match, where
    )
    if decision["action"] == "refuse":
        raise BookshelfError(decision["code"], decision["message"])
    condition = decision["condition"]
    if condition.get("ifNoneMatch"):
        return {"IfNoneMatch": condition["ifNoneMatch"]}
    if condition.get("ifMatch"):
        return {"IfMatch": condition["ifMatch"]}
    return {}


def required_condition(policy: str, condition: dict[str, str]) -> str | None:
    if policy == "confirm" and "IfMatch" in condition:
        return "IfMatch"
    if policy == "never" and "IfNoneMatch" in condition:
        return "IfNoneMatch"
    return None


def conditions_ignored(needed: str, where: str) -> BookshelfError:
    if needed == "IfNoneMatch":
        message = (
            f"Nothing was published to {where}: the overwrite policy 'never' needs the S3 "
            "service to refuse an upload onto an existing object (If-None-Match), and this "
            "service ignores that condition, so it could overwrite a published notebook. Set "
            "overwritePolicy to 'always' (knowing that a publish then replaces what is there), "
            "or use an S3 service that supports conditional writes."
        )
    else:
        message = (
            f"Nothing was published to {where}: replacing only the version you saw needs the "
            "S3 service to honour If-Match, and this service ignores that condition, so it could "
            "overwrite a version someone else published meanwhile. Set overwritePolicy to "
            "'always' (knowing that a publish then replaces whatever is there), or use an S3 "
            "service that supports conditional writes."
        )
    return BookshelfError("NotConfigured", message)


def payload_digests(data: bytes) -> tuple[str, str]:
    """The upload's ``Content-MD5`` (S3 refuses a body damaged on the way) and its SHA-256 for
    the signature, made here so that the signer does not read the body first (see GatedBody).
    Hashing releases the GIL: both run beside the notebook check."""
    md5 = base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()
    return md5, hashlib.sha256(data).hexdigest()


class GatedBody:
    """The bytes of an upload, which hold back their last ``HELD`` bytes until the notebook
    check has passed. S3 stores an object only once its whole body has arrived, so an upload
    whose check fails is cut off before its end and nothing is stored; meanwhile the check and
    the transfer run at the same time. A failed check stays failed: a retry of the request
    cannot complete either."""

    HELD = 64 * 1024

    def __init__(self, data: bytes, check: Future[None]):
        self._view = memoryview(data)
        self._position = 0
        self._check = check

    def __len__(self) -> int:
        return len(self._view)

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._position, 2: len(self._view)}[whence]
        self._position = max(0, min(len(self._view), base + offset))
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        total = len(self._view)
        end = total if size is None or size < 0 else min(total, self._position + size)
        limit = total - self.HELD
        if end > limit:
            if self._position < limit and not self._check.done():
                end = limit  # a short read: what may go before the check has passed
            else:
                self._check.result()  # waits for the check; raises its error
        chunk = bytes(self._view[self._position : end])
        self._position = end
        return chunk

    def verdict(self) -> None:
        """The check's outcome (raises its error)."""
        self._check.result()


#: The SHA-256 of the upload this thread is sending (set around ``put_object``).
_payload = threading.local()


def _sign_with_known_sha256(request: Any, **_: Any) -> None:
    """botocore's signer reads the whole body to hash it (always over http://) unless the
    request carries the hash: give it the one made beside the check."""
    digest = getattr(_payload, "sha256", None)
    if digest and request.method == "PUT":
        request.headers["X-Amz-Content-SHA256"] = digest


def upload(
    client: Any,
    settings: S3Settings,
    bucket: str,
    key: str,
    data: bytes | GatedBody,
    options: PublishOptions,
    digests: tuple[str, str],
    head: tuple[bool, str | None],
) -> tuple[int, dict[str, Any]]:
    """Decide on what the HEAD found, check the condition is honoured, PUT; blocking (a
    transfer thread)."""
    where = s3_path(bucket, key)
    exists, etag = head
    condition = decide(settings.overwrite_policy, exists, etag, options, where)
    needed = required_condition(settings.overwrite_policy, condition)
    if needed:
        answer = _conditional_writes.answer(
            client, settings.endpoint_url, bucket, settings.publish_prefix
        )
        honoured = answer["if_match"] if needed == "IfMatch" else answer["if_none_match"]
        if not honoured:
            raise conditions_ignored(needed, where)
    md5, sha256 = digests
    if not getattr(client, "_bookshelf_signs_known_sha256", False):
        client.meta.events.register("before-sign.s3.PutObject", _sign_with_known_sha256)
        client._bookshelf_signs_known_sha256 = True
    _payload.sha256 = sha256
    try:
        put = client.put_object(
            Bucket=bucket,
            Key=key,
            Body=data,
            ContentType=NOTEBOOK_CONTENT_TYPE,
            ContentMD5=md5,
            **condition,
        )
    except ClientError as error:
        mapped = to_bookshelf_error(error, bucket, key, endpoint_url=settings.endpoint_url)
        changed = (mapped.code == "PreconditionFailed" and condition) or (
            mapped.code == "NoSuchKey" and "IfMatch" in condition
        )
        if changed and "IfNoneMatch" in condition:
            raise BookshelfError(
                "Conflict",
                f"{where} was created by someone else while you were publishing; nothing was "
                "overwritten. Look at their version, then publish again.",
            ) from None
        if changed:
            raise BookshelfError(
                "PreconditionFailed",
                f"{where} was changed by someone else since you looked; nothing was "
                "overwritten. Look at the newer version, then publish again.",
            ) from None
        raise mapped from None
    finally:
        _payload.sha256 = None
    # Stored means the whole body went, so the check passed; said again for plain bytes.
    if isinstance(data, GatedBody):
        data.verdict()
    result: dict[str, Any] = {"s3_path": where}
    if put.get("VersionId") and put["VersionId"] != "null":
        result["version_id"] = put["VersionId"]
    if put.get("ETag"):
        result["etag"] = put["ETag"]
    return (200 if exists else 201), result


async def server_publish(
    path: str,
    body: Any,
    query: dict[str, list[bytes]],
    cm: Any,
    settings: S3Settings,
    clone_base: str,
) -> tuple[int, dict[str, Any]]:
    """Publish; the HTTP status (201 created, 200 replaced) and the result. ``clone_base`` is
    the absolute ``…/bookshelf/clone`` URL of this server."""
    options = read_options(body, query)
    try:
        bucket, key = resolve_destination(
            path, settings.publish_bucket, settings.publish_prefix, options.destination
        )
    except DestinationRefused as refused:
        field = None
        if refused.code == "InvalidRequest":
            field = "to" if options.destination else "path"
        elif refused.code == "NotANotebook":
            field = "path"
        raise BookshelfError(refused.code, refused.message, field) from None
    if isinstance(body, dict) and "content" in body:
        data = notebook_body_bytes(path, body)
    else:
        data = await read_saved_notebook(cm, path)
    client = await in_transfer_thread(s3_client, settings)
    # The check runs while the checksums are made, the destination is looked at and the upload
    # goes: the upload holds back its last bytes until the check has passed (GatedBody).
    check = start_check(check_notebook_bytes, data, "publish")
    digests, head = await asyncio.gather(
        in_transfer_thread(payload_digests, data),
        in_transfer_thread(_head_etag, client, bucket, key),
        return_exceptions=True,
    )
    try:
        if check.done():
            check.result()
        for outcome in (digests, head):
            if isinstance(outcome, BaseException):
                raise outcome
        status, result = await in_transfer_thread(
            upload, client, settings, bucket, key, GatedBody(data, check), options, digests, head
        )
    except BookshelfError as error:
        if error.code == "NotANotebook":
            reason = error.message.removeprefix("The object is not a Jupyter notebook: ")
            raise not_publishable(path, reason) from None
        raise
    except Exception as error:  # noqa: BLE001  (S3's failures, said as Bookshelf's)
        raise to_bookshelf_error(error, bucket, key, endpoint_url=settings.endpoint_url) from None
    link = {"s3_bucket": bucket, "s3_key": key}
    if result.get("version_id"):
        link["s3_version_id"] = result["version_id"]
    result["clone_url"] = f"{clone_base}?{clone_link_query(link)}"
    return status, result

"""Server-side publish: a saved notebook (or the notebook in the request) put at
``s3://<publishBucket>/<publishPrefix><path>`` under the overwrite policy.

The browser's rules (``src/publish/``): version 4 notebooks only; the destination and the
overwrite decision from the shared rules (``publishing.py``: create only with
``If-None-Match: *`` when nothing is there; ``never`` refuses; ``always`` replaces;
``confirm`` replaces only when asked to, and only the version seen, with ``If-Match``); where a
policy relies on a condition, whether the S3 service honours it is checked once per endpoint
and bucket (``conditional.ts``), never assumed. Uploads carry a checksum that S3 verifies, so
that bytes damaged on the way are refused: ``x-amz-checksum-crc32`` where the service is found
to verify it (a probe, as for conditions), else ``Content-MD5``, the older check that S3 and
most compatible services make.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import os
import secrets
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, BinaryIO

from botocore.exceptions import ClientError, ConnectionClosedError, ReadTimeoutError
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
from .notebook import READ_SIZE, check_notebook_stream
from .s3 import etag_md5, s3_client, to_bookshelf_error
from .transfers import in_transfer_thread, start_check

PROBE_KEY_STEM = ".bookshelf-conditional-write-check-"
PROBE_BODY = b"Bookshelf checks whether this S3 service honours conditional writes.\n"
CHECKSUM_PROBE_KEY_STEM = ".bookshelf-checksum-check-"
CHECKSUM_PROBE_BODY = b"Bookshelf checks whether this S3 service verifies CRC32 checksums.\n"
#: The most S3 takes in one PutObject (5 GiB); a server-side publish is one put.
MAX_SINGLE_PUT_BYTES = 5 * 1024**3
#: The error codes of a service that verified a checksum and refused the body.
REFUSED_DIGEST_CODES = ("BadDigest", "InvalidDigest", "XAmzContentChecksumMismatch")


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


async def open_saved_notebook(cm: Any, path: str) -> BinaryIO:
    """The saved file, open for reading its bytes as they are (not parsed and written again):
    the file itself for a manager that keeps files on disk, else the manager's text."""
    try:
        if not await ensure_async(cm.file_exists(path)):
            raise BookshelfError(
                "ReadFailed",
                f"There is no file '{path}' in the file tree: save the notebook first, or check "
                "its path.",
                "path",
            )
        if isinstance(cm, FileManagerMixin):
            # The manager's own rule on hidden files still applies.
            if not cm.allow_hidden and await ensure_async(cm.is_hidden(path)):
                raise BookshelfError("ReadFailed", f"'{path}' is hidden.", "path")
            return await in_transfer_thread(open, cm._get_os_path(path), "rb")
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
    return io.BytesIO(content.encode("utf-8"))


def check_single_put_size(file: BinaryIO, path: str) -> None:
    """``TooLarge`` before anything is read or sent, for a notebook larger than one put takes
    (S3 would refuse it only once all of it was sent)."""
    if isinstance(file, io.BytesIO):
        with file.getbuffer() as view:
            size = view.nbytes
    else:
        size = os.fstat(file.fileno()).st_size
    if size > MAX_SINGLE_PUT_BYTES:
        raise BookshelfError(
            "TooLarge",
            f"'{path}' is {size:,} bytes, and a publish by the Jupyter server is one upload, "
            f"which S3 takes up to {MAX_SINGLE_PUT_BYTES:,} bytes: publish it from JupyterLab, "
            "which uploads a large notebook in parts.",
            "path",
        )


def not_publishable(path: str, reason: str) -> BookshelfError:
    return BookshelfError(
        "NotANotebook",
        f"'{path}' is not a valid Jupyter notebook, so it was not published: {reason}",
    )


class ProbedAnswers:
    """What a probe found out about the S3 service (whether it honours conditional writes,
    whether it verifies checksums), per endpoint and bucket, kept for ``KEEP_SECONDS`` (a
    service may be upgraded or replaced behind its address); a failed probe is not kept."""

    KEEP_SECONDS = 900.0

    def __init__(self, probe: Callable[[Any, str, str], Any]) -> None:
        self._probe = probe
        self._answers: dict[tuple[str, str], tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def answer(self, client: Any, endpoint: str, bucket: str, prefix: str) -> Any:
        with self._lock:  # concurrent publishes share one probe
            kept = self._answers.get((endpoint, bucket))
            if kept is None or time.monotonic() - kept[0] > self.KEEP_SECONDS:
                kept = (time.monotonic(), self._probe(client, bucket, prefix))
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


def _probe_put(client: Any, bucket: str, key: str, body: bytes, **extra: str) -> Any:
    return client.put_object(Bucket=bucket, Key=key, Body=body, ContentType="text/plain", **extra)


def probe(client: Any, bucket: str, prefix: str) -> dict[str, bool]:
    """``probeConditionalWrites``: a put with an ``If-Match`` nothing can meet, to a fresh
    key; a conforming service refuses it and nothing is written. Else the probe's object is
    tried with ``If-None-Match: *`` and deleted again, each version by its id."""
    key = f"{prefix}{PROBE_KEY_STEM}{secrets.token_hex(16)}"
    try:
        first = _probe_put(client, bucket, key, PROBE_BODY, IfMatch=f'"{secrets.token_hex(16)}"')
    except ClientError as error:
        if _refused_condition(error):
            return {"if_match": True, "if_none_match": True}
        raise
    written = [first.get("VersionId")]
    if_none_match = False
    try:
        second = _probe_put(client, bucket, key, PROBE_BODY, IfNoneMatch="*")
        written.append(second.get("VersionId"))
    except ClientError as error:
        if not _refused_condition(error):
            raise
        if_none_match = True
    finally:
        _delete_probe_object(client, bucket, key, written)
    return {"if_match": False, "if_none_match": if_none_match}


def _delete_probe_object(client: Any, bucket: str, key: str, version_ids: list[str | None]) -> None:
    """Delete what a probe wrote, each version by its id (a versioned bucket keeps them)."""
    ids = set(version_ids) if all(version_ids) else {None}
    for version_id in ids:
        try:
            extra = {"VersionId": version_id} if version_id else {}
            client.delete_object(Bucket=bucket, Key=key, **extra)
        except ClientError:
            pass  # the probe's leftover is named by its key stem


def base64_crc32(crc: int) -> str:
    """``x-amz-checksum-crc32``'s form: the CRC's four bytes, big-endian, in base64."""
    return base64.b64encode(crc.to_bytes(4, "big")).decode()


def probe_checksum_verification(client: Any, bucket: str, prefix: str) -> bool:
    """Whether the service verifies ``x-amz-checksum-crc32`` on PutObject: a put with a CRC32
    the body does not have, to a fresh key. S3 refuses it (400 ``BadDigest``) and writes
    nothing; a service that stores it would store damaged bytes too (the object is deleted
    again), and one that refuses the header itself cannot take it (400 or 501)."""
    key = f"{prefix}{CHECKSUM_PROBE_KEY_STEM}{secrets.token_hex(16)}"
    wrong = base64_crc32(zlib.crc32(CHECKSUM_PROBE_BODY) ^ 1)
    try:
        put = _probe_put(client, bucket, key, CHECKSUM_PROBE_BODY, ChecksumCRC32=wrong)
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code")
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if code in REFUSED_DIGEST_CODES:
            return True
        if status in (400, 501):
            return False
        raise
    _delete_probe_object(client, bucket, key, [put.get("VersionId")])
    return False


_conditional_writes = ProbedAnswers(probe)
_verified_checksums = ProbedAnswers(probe_checksum_verification)


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


def own_object(client: Any, bucket: str, key: str, sent: UnchangedBody) -> dict[str, Any] | None:
    """The object at ``key`` when it holds the bytes ``sent``, else None: the same length and
    the same CRC32, where the service keeps the one the put carried, or else an ETag that is
    their MD5 (a single put's, unencrypted or SSE-S3). A put whose answer was lost is sent
    again by botocore and then fails its own condition, or no answer comes at all: the object
    is there all the same, and it is this publish's, not someone else's (the browser's
    ``ownObject``). Blocking; rare, so the MD5 is made here when the put did not carry it."""
    try:
        head = client.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
    except Exception:  # noqa: BLE001  (not found, or unreachable: the first error stands)
        return None
    digested = sent.digested
    if head.get("ContentLength") != digested.size:
        return None
    crc32 = digested.checksum.get("ChecksumCRC32")
    if crc32 is not None and head.get("ChecksumCRC32"):
        return head if head["ChecksumCRC32"] == crc32 else None
    stored_md5 = etag_md5(
        head.get("ETag"), head.get("ServerSideEncryption"), head.get("SSECustomerAlgorithm")
    )
    if stored_md5 is None:
        return None
    return head if base64.b64decode(sent.content_md5()).hex() == stored_md5 else None


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


@dataclass(frozen=True)
class Digested:
    """The notebook's length, its checksum as the put's parameter (``ChecksumCRC32`` or
    ``ContentMD5``: S3 refuses a body damaged on the way), and the file's state when it was
    read."""

    size: int
    checksum: dict[str, str]
    state: tuple[int, ...] | None


def file_state(file: BinaryIO) -> tuple[int, ...] | None:
    """What changes when a file is written (its inode, size, modification and change times);
    None for bytes in memory, which cannot change."""
    try:
        stat = os.fstat(file.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


#: Bytes the checksum pass reads and hashes at a time, into one buffer (the memory it takes).
DIGEST_READ_SIZE = 8 * 1024 * 1024


def digest_file(file: BinaryIO, crc32: bool) -> Digested:
    """One pass over the bytes for the CRC32 (``crc32``) or the MD5; blocking (a transfer
    thread). The checksum must be in the put's headers, so this pass comes before the first
    byte is sent: a CRC32 (zlib's, several GB/s) costs a few milliseconds where an MD5 (under
    1 GB/s) costs a quarter of a second per 200 MB. Read in large pieces into one buffer and
    hashed in this thread (reading from the page cache is a small part of hashing, so a
    thread of its own for the hash gains little): reading and hashing release the GIL, and
    this thread takes it back only twice a piece, each time perhaps waiting behind the
    notebook check that runs meanwhile and holds the GIL between its reads."""
    state = file_state(file)
    md5 = None if crc32 else hashlib.md5(usedforsecurity=False)
    crc = 0
    buffer = bytearray(DIGEST_READ_SIZE)
    size = 0
    file.seek(0)
    with memoryview(buffer) as view:
        while count := file.readinto(view):
            size += count
            if md5 is None:
                crc = zlib.crc32(view[:count], crc)
            else:
                md5.update(view[:count])
    if md5 is None:
        return Digested(size, {"ChecksumCRC32": base64_crc32(crc)}, state)
    return Digested(size, {"ContentMD5": base64.b64encode(md5.digest()).decode()}, state)


class _OwnPosition:
    """The same file read from its start at a position of its own (the upload moves the
    file's), or bytes in memory; ``stop`` makes the next read the end."""

    def __init__(self, file: BinaryIO) -> None:
        self._fd: int | None = None
        self._memory: memoryview | None = None
        if isinstance(file, io.BytesIO):
            self._memory = file.getbuffer().toreadonly()
        else:
            self._fd = file.fileno()
        self._position = 0
        self._stopped = False

    def read(self, size: int = -1) -> bytes:
        if self._stopped:
            return b""
        size = READ_SIZE if size is None or size < 0 else size
        if self._memory is not None:
            chunk = bytes(self._memory[self._position : self._position + size])
        else:
            assert self._fd is not None
            chunk = os.pread(self._fd, size, self._position)
        self._position += len(chunk)
        return chunk

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = 0) -> int:
        assert whence == 0
        self._position = offset
        return offset

    def stop(self) -> None:
        self._stopped = True

    def release(self) -> None:
        if self._memory is not None:
            self._memory.release()


#: The uploads running now, by the path of the notebook they publish (for progress).
_running: dict[str, list[UnchangedBody]] = {}


def upload_progress(path: str) -> dict[str, Any]:
    """How far the publish of ``path`` has come: ``{running, sent, size}`` (the furthest of
    several, should the same path be published twice at once)."""
    bodies = list(_running.get(path.strip("/"), ()))
    if not bodies:
        return {"running": False}
    furthest = max(bodies, key=lambda body: body.tell())
    return {"running": True, "sent": furthest.tell(), "size": len(furthest)}


def start_notebook_check(file: BinaryIO) -> tuple[Future[None], _OwnPosition]:
    """The publish check (version 4, the browser's) of ``file``, started in a check thread;
    it reads the file by position, so the upload can read it meanwhile."""
    reader = _OwnPosition(file)
    return start_check(check_notebook_stream, reader, "publish"), reader


class _Refused(BaseException):
    """The verdict's error on its way out of botocore, which is sending the body when the
    verdict is given: botocore turns any ``Exception`` raised while sending into an
    ``HTTPClientError`` that its retry mode retries (sending the whole body again, to the
    same refusal); a ``BaseException`` passes through unwrapped and unretried, and urllib3
    closes the connection, so S3 stores nothing. ``upload`` raises ``error`` again."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error


class UnchangedBody:
    """The notebook's bytes for the upload, read from the file, which hold back their last
    ``HELD`` bytes until the notebook check has passed and it is sure the file was not
    written since it was hashed (a save meanwhile). S3 stores an object only once its whole
    body has arrived, so an upload whose check fails, or of a file that changed, is cut off
    before its end and nothing is stored; with the checksum, S3 itself refuses bytes other
    than those hashed. Meanwhile the check and the transfer run at the same time. Reads are
    large: each one waits for the GIL, which the check holds between its own reads."""

    HELD = 64 * 1024
    READ = 4 * 1024 * 1024

    def __init__(self, file: BinaryIO, digested: Digested, check: Future[None], path: str):
        self._file = file
        self._digested = digested
        self._check = check
        self._path = path
        self._position = 0
        file.seek(0)

    def __len__(self) -> int:
        return self._digested.size

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._position, 2: self._digested.size}[whence]
        self._position = max(0, min(self._digested.size, base + offset))
        self._file.seek(self._position)
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        total = self._digested.size
        # Larger reads than asked (http.client asks for 8 or 16 KiB) are allowed by it.
        wanted = total if size is None or size < 0 else self._position + max(size, self.READ)
        end = min(total, wanted)
        limit = total - self.HELD
        if end > limit:
            if self._position < limit:
                end = limit  # what may go before the verdict
            else:
                try:
                    self.verdict()  # waits for the check; raises its error
                except Exception as error:
                    raise _Refused(error) from None
        chunk = self._file.read(end - self._position)
        self._position += len(chunk)
        return chunk

    @property
    def digested(self) -> Digested:
        return self._digested

    def content_md5(self) -> str:
        """The bytes' ``Content-MD5``: the one the put carried, or made now (once the upload
        is over: this reads the file again from its start)."""
        return (
            self._digested.checksum.get("ContentMD5")
            or digest_file(self._file, crc32=False).checksum["ContentMD5"]
        )

    def verdict(self) -> None:
        """``Conflict`` when the file was written since it was hashed, else the check's error.
        The save comes first: a check that read the file while it was being rewritten (a
        non-atomic save truncates it first) fails on a torn file, whose fault is the save's."""
        try:
            self._check.result()
        except Exception:
            self._raise_if_saved_again()
            raise
        self._raise_if_saved_again()

    def _raise_if_saved_again(self) -> None:
        if file_state(self._file) != self._digested.state:
            raise BookshelfError(
                "Conflict",
                f"'{self._path}' was saved again while it was being published, so nothing was "
                "published; publish it again.",
                "path",
            ) from None


def changed_meanwhile(where: str, condition: dict[str, str]) -> BookshelfError:
    """The error of a put whose condition failed on someone else's object."""
    if "IfNoneMatch" in condition:
        return BookshelfError(
            "Conflict",
            f"{where} was created by someone else while you were publishing; nothing was "
            "overwritten. Look at their version, then publish again.",
        )
    return BookshelfError(
        "PreconditionFailed",
        f"{where} was changed by someone else since you looked; nothing was "
        "overwritten. Look at the newer version, then publish again.",
    )


def upload(
    client: Any,
    settings: S3Settings,
    bucket: str,
    key: str,
    data: UnchangedBody,
    options: PublishOptions,
    digested: Digested,
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

    def send(condition: dict[str, str]) -> dict[str, Any]:
        """The put under ``condition``; its answer, or the object stored when no answer came.
        Raises S3's refusal as Bookshelf's error."""
        data.seek(0)
        try:
            return client.put_object(
                Bucket=bucket,
                Key=key,
                Body=data,
                ContentType=NOTEBOOK_CONTENT_TYPE,
                **digested.checksum,
                **condition,
            )
        except _Refused as refused:
            raise refused.error from None
        except (ConnectionClosedError, ReadTimeoutError):
            # The body went, the answer did not come (also after botocore's tries).
            own = own_object(client, bucket, key, data)
            if own is None:
                raise
            return own
        except ClientError as error:
            raise to_bookshelf_error(
                error, bucket, key, endpoint_url=settings.endpoint_url
            ) from None

    try:
        put = send(condition)
    except BookshelfError as error:
        changed = (error.code == "PreconditionFailed" and condition) or (
            error.code == "NoSuchKey" and "IfMatch" in condition
        )
        if not changed:
            raise
        # Unless this publish's own first try stored it, and its answer was lost.
        own = own_object(client, bucket, key, data)
        if own is not None:
            put = own
        elif settings.overwrite_policy == "always" and "IfNoneMatch" in condition:
            # Someone created the object after the HEAD: 'always' replaces it, as the
            # browser's writeOnCondition does (a versioned bucket keeps theirs).
            exists = True
            put = send({})
        else:
            raise changed_meanwhile(where, condition) from None
    # Stored means the whole body went, so the check passed; said again to be sure.
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
        file: BinaryIO = io.BytesIO(notebook_body_bytes(path, body))
    else:
        file = await open_saved_notebook(cm, path)
    check: Future[None] | None = None
    reader: _OwnPosition | None = None
    try:
        check_single_put_size(file, path)
        # The check starts first and runs while the checksum is made and the destination looked at,
        # then on while the upload goes, which holds back its end until the check has passed
        # (the check is the slower pass: ending it early leaves the upload's threads the GIL,
        # which the check holds between its reads). The notebook is read three times from the
        # file, never held whole in memory.
        check, reader = start_notebook_check(file)
        # The body is not signed (UNSIGNED-PAYLOAD; see s3_client): else botocore reads it
        # whole to hash it before sending, waiting there for the check's verdict.
        client = await in_transfer_thread(s3_client, settings, sign_payload=False)

        async def digest() -> Digested:
            # Which checksum the service verifies: probed once, then known.
            crc32 = await in_transfer_thread(
                _verified_checksums.answer,
                client,
                settings.endpoint_url,
                bucket,
                settings.publish_prefix,
            )
            return await in_transfer_thread(digest_file, file, crc32)

        digested, head = await asyncio.gather(
            digest(),
            in_transfer_thread(_head_etag, client, bucket, key),
            return_exceptions=True,
        )
        for outcome in (digested, head):
            if isinstance(outcome, BaseException):
                raise outcome
        body = UnchangedBody(file, digested, check, path)
        _running.setdefault(path, []).append(body)
        try:
            status, result = await in_transfer_thread(
                upload, client, settings, bucket, key, body, options, digested, head
            )
        finally:
            _running[path].remove(body)
            if not _running[path]:
                del _running[path]
    except BookshelfError as error:
        if error.code == "NotANotebook":
            reason = error.message.removeprefix("The object is not a Jupyter notebook: ")
            raise not_publishable(path, reason) from None
        raise
    except Exception as error:  # noqa: BLE001  (S3's failures, said as Bookshelf's)
        raise to_bookshelf_error(error, bucket, key, endpoint_url=settings.endpoint_url) from None
    finally:
        if check is not None and reader is not None:
            reader.stop()
            # The check reads the file: it ends (at once, once stopped) before it is closed.
            await asyncio.wait([asyncio.wrap_future(check)])
            reader.release()
        file.close()
    link = {"s3_bucket": bucket, "s3_key": key}
    if result.get("version_id"):
        link["s3_version_id"] = result["version_id"]
    result["clone_url"] = f"{clone_base}?{clone_link_query(link)}"
    return status, result


class _PartHashes:
    """A file read through, hashed part by part as S3 hashes a multipart upload's parts; each
    byte once, however often it is read (the check reads the file again when its quick pass
    is not sure)."""

    def __init__(
        self,
        file: BinaryIO,
        part_size: int,
        on_part: Callable[[int, bytes], None] | None = None,
    ) -> None:
        self._file = file
        self._part_size = part_size
        self._on_part = on_part
        self._digests: list[bytes] = []
        self._part = hashlib.md5()
        self._in_part = 0
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        position = self._file.tell()
        if position > self.size:
            raise ValueError("the file is hashed in order; a read cannot skip bytes")
        chunk = self._file.read(size)
        view = memoryview(chunk)[self.size - position :]  # the bytes not hashed yet
        hashed = len(view)
        while view:
            count = min(self._part_size - self._in_part, len(view))
            self._part.update(view[:count])
            self._in_part += count
            view = view[count:]
            if self._in_part == self._part_size:
                self._digests.append(self._part.digest())
                self._part, self._in_part = hashlib.md5(), 0
                if self._on_part:
                    self._on_part(len(self._digests) - 1, self._digests[-1])
        self.size += hashed
        return chunk

    def tell(self) -> int:
        return self._file.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        # The check goes back to read the file again, or to quote the text near an error.
        return self._file.seek(offset, whence)

    def part_digests(self) -> list[bytes]:
        """The MD5 digest of each part, once the file is read to its end."""
        while self.read(READ_SIZE):
            pass
        return self._digests + ([self._part.digest()] if self._in_part or not self.size else [])


def check_publishable_file(
    os_path: str, part_size: int, on_part: Callable[[int, bytes], None] | None = None
) -> dict[str, Any]:
    """The publish's notebook check of a saved file, read in pieces (memory flat in its size),
    with what the browser needs to upload it in parts of ``part_size`` without reading it
    itself: the file's size, each part's MD5 (hex; the part's ``Content-MD5``, and what S3
    answers as its ETag, so a part read after the file was saved again is found out) and the
    ETag S3 gives the whole. ``on_part(index, digest)`` is called with each whole part's MD5
    as soon as it is hashed, before the check ends (the last part's is only in the answer).
    Raises ``BookshelfError`` (``NotANotebook``)."""
    with open(os_path, "rb") as file:
        hashed = _PartHashes(file, part_size, on_part)
        check_notebook_stream(hashed, "publish")  # type: ignore[arg-type]
        digests = hashed.part_digests()
    return {
        "size": hashed.size,
        "etag": f'"{hashlib.md5(b"".join(digests)).hexdigest()}-{len(digests)}"',
        "part_md5s": [digest.hex() for digest in digests],
    }

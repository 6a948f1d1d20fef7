"""Server-side clone: an S3 object streamed into the file tree under a collision-safe name.

The browser's rules (``src/clone/``): the request is validated, the bucket must be allowed, the
target is resolved against the tree, an object over the size limit is refused before its bytes
are read, the bytes are checked against the announced length and the ETag's MD5 (tried again
from the start, three times in all), a ``.ipynb`` must be an nbformat 3 or 4 notebook and is
kept byte for byte (only a leading byte order mark is dropped). The bytes go from S3 to a
temporary file in the target folder in chunks, never whole in memory; the commit point
(``commit.py``) then gives it the first free name atomically.
"""

from __future__ import annotations

import os
import posixpath
import secrets
from dataclasses import dataclass
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.services.contents.fileio import FileManagerMixin

from ..commit import PARTIAL_SUFFIX, Committer
from ..errors import BookshelfError
from ..validation import (
    bucket_allowed,
    check_file_name,
    key_base_name,
    normalize_clone_request,
    validate_clone_request,
)
from .config import S3Settings
from .notebook import BYTE_ORDER_MARK, check_notebook_stream, check_size
from .s3 import etag_md5, s3_client, to_bookshelf_error, where
from .transfers import BackgroundDigest, in_transfer_thread

#: Bytes read from S3 and written to disk at a time.
CHUNK_SIZE = 1024 * 1024
#: Tries of a download that arrived damaged or cut off (the browser's too).
DOWNLOAD_ATTEMPTS = 3


@dataclass
class Downloaded:
    size: int
    etag: str | None
    version_id: str | None


def invalid_request(problems: list[tuple[str, str]]) -> BookshelfError:
    field, _ = problems[0]
    error = BookshelfError(
        "InvalidRequest",
        "The clone request is not valid: " + "; ".join(message for _, message in problems),
        field,
    )
    error.problems = problems  # type: ignore[attr-defined]
    return error


def check_request(request: Any, settings: S3Settings) -> dict[str, str]:
    """The valid request, with only its clone fields; raises ``InvalidRequest`` or
    ``BucketNotAllowed``."""
    problems = validate_clone_request(request)
    if problems:
        raise invalid_request(problems)
    request = normalize_clone_request(request)
    if not bucket_allowed(request["s3_bucket"], list(settings.allowed_buckets)):
        raise BookshelfError(
            "BucketNotAllowed",
            f"s3_bucket: this server does not let links clone from the bucket "
            f"'{request['s3_bucket']}' (see the allowedBuckets setting).",
            "s3_bucket",
        )
    return request


async def resolve_target(cm: Any, request: dict[str, str]) -> tuple[str, str]:
    """The folder and the wanted name (``findTarget`` of clone.ts; the API's default folder is
    the root, and the folder must exist)."""
    key = request["s3_key"]
    target_path = request.get("target_path", "")
    if not target_path:
        folder, name = "", key_base_name(key)
    elif target_path.endswith("/"):
        folder, name = target_path.strip("/"), key_base_name(key)
    else:
        folder, _, name = target_path.rpartition("/")
        # A target_path without '/' that names a folder means that folder.
        if await ensure_async(cm.dir_exists(target_path)):
            folder, name = target_path, key_base_name(key)
            problem = check_file_name(name, "s3_key")
            if problem:
                raise BookshelfError("InvalidRequest", f"s3_key: {problem}.", "s3_key")
    field = "target_path" if target_path else None
    prefix = "target_path: the" if target_path else "The"
    if folder and not await ensure_async(cm.dir_exists(folder)):
        if await ensure_async(cm.file_exists(folder)):
            raise BookshelfError(
                "InvalidRequest",
                f"{prefix} path '{folder}' is a file, not a folder; choose a folder.",
                field,
            )
        raise BookshelfError(
            "InvalidRequest",
            f"{prefix} folder '{folder}' does not exist; create it first or choose another folder.",
            field,
        )
    return folder, name


class Receiving:
    """How far one running server-side clone has come, in bytes (written by its transfer
    thread, read by the progress request)."""

    def __init__(self) -> None:
        self.received = 0
        self.size = 0


#: Running server-side clones by (bucket, key). Temporary files are left out of folder
#: listings (``hide_temporary_files``), so their progress is told here.
_receiving: dict[tuple[str, str], list[Receiving]] = {}


def download_progress(bucket: str, key: str) -> dict[str, Any]:
    """How far the clone of ``s3://bucket/key`` has come: ``{running, received, size}`` (the
    furthest of several, should the same object be cloned twice at once)."""
    running = list(_receiving.get((bucket, key), ()))
    if not running:
        return {"running": False}
    furthest = max(running, key=lambda progress: progress.received)
    return {"running": True, "received": furthest.received, "size": furthest.size}


def temporary_name(name: str) -> str:
    """A fresh temporary name beside the target: the start of its name (so a person who sees
    it knows what it is), a random part, the suffix the commit point accepts."""
    stem = name[:40]
    return f"{stem}.{secrets.token_hex(8)}{PARTIAL_SUFFIX}"


def download(
    client: Any,
    request: dict[str, str],
    os_path: str,
    limit_mb: float,
    strip_bom: bool,
    progress: Receiving | None = None,
) -> Downloaded:
    """Stream the object to ``os_path``, checked; blocking (runs in a transfer thread). A
    damaged or cut-off download is read again from the start, of the same version (``IfMatch``
    the ETag first seen)."""
    bucket, key = request["s3_bucket"], request["s3_key"]
    version_id = request.get("s3_version_id")
    params: dict[str, Any] = {"Bucket": bucket, "Key": key}
    if version_id:
        params["VersionId"] = version_id
    last: BookshelfError | None = None
    for _ in range(DOWNLOAD_ATTEMPTS):
        digest: BackgroundDigest | None = None
        response = client.get_object(**params)
        body = response["Body"]
        try:
            size = int(response.get("ContentLength", 0))
            etag = response.get("ETag")
            # Before reading the bytes: a refusal must not wait for a large download.
            check_size(size, limit_mb)
            if etag and not version_id:
                params["IfMatch"] = etag
            digest = BackgroundDigest("md5")
            received = 0
            if progress is not None:
                progress.received, progress.size = 0, size
            # The first bytes wait until it is known whether they start with a byte order mark.
            pending: bytes | None = b"" if strip_bom else None
            with open(os_path, "wb") as file:
                for chunk in body.iter_chunks(CHUNK_SIZE):
                    digest.update(chunk)
                    received += len(chunk)
                    if progress is not None:
                        progress.received = received
                    if received > size:
                        # More than announced: the limit is checked on what really came.
                        check_size(received, limit_mb)
                    if pending is not None:
                        pending += chunk
                        if len(pending) < len(BYTE_ORDER_MARK):
                            continue
                        chunk = pending.removeprefix(BYTE_ORDER_MARK)
                        pending = None
                    file.write(chunk)
                if pending:
                    file.write(pending)
            hexdigest = digest.digest().hex()
            if received != size:
                last = BookshelfError(
                    "Interrupted",
                    f"The download of {where(bucket, key)} stopped after {received} of {size} "
                    "bytes; it still did after retries.",
                )
                continue
            expected = etag_md5(
                etag,
                response.get("ServerSideEncryption"),
                response.get("SSECustomerAlgorithm"),
            )
            if expected is not None and hexdigest != expected:
                last = BookshelfError(
                    "Corrupted",
                    f"The bytes received for {where(bucket, key)} do not match its checksum "
                    "(ETag): the download was damaged on the way, also when tried again.",
                )
                continue
            return Downloaded(size, etag, response.get("VersionId"))
        except BookshelfError:
            raise
        except Exception as error:  # noqa: BLE001  (mapped below; retried if cut off)
            mapped = to_bookshelf_error(error, bucket, key, version_id)
            if mapped.code != "Interrupted":
                raise mapped from None
            last = mapped
        finally:
            body.close()
            if digest is not None:
                digest.close()
    assert last is not None
    raise last


def check_notebook_file(os_path: str) -> None:
    """The clone's notebook check of a file on disk, read in pieces."""
    with open(os_path, "rb") as file:
        check_notebook_stream(file, "clone")


def _remove(os_path: str) -> None:
    try:
        os.unlink(os_path)
    except FileNotFoundError:
        pass


async def server_clone(
    body: Any, cm: Any, committer: Committer, settings: S3Settings
) -> tuple[str, Downloaded]:
    """Clone the request ``body``; the new file's path. Raises ``BookshelfError``."""
    request = check_request(body, settings)
    if not isinstance(cm, FileManagerMixin):
        raise BookshelfError(
            "NotConfigured",
            "Server-side clone writes to the server's file system, and this server's contents "
            "manager does not keep files there: clone from JupyterLab instead.",
        )
    folder, name = await resolve_target(cm, request)
    temporary = posixpath.join(folder, temporary_name(name))
    os_temporary = cm._get_os_path(temporary)
    client = await in_transfer_thread(s3_client, settings)
    source = (request["s3_bucket"], request["s3_key"])
    progress = Receiving()
    _receiving.setdefault(source, []).append(progress)
    try:
        try:
            downloaded = await in_transfer_thread(
                download,
                client,
                request,
                os_temporary,
                settings.max_object_size_mb,
                name.endswith(".ipynb"),
                progress,
            )
        except BookshelfError:
            raise
        except Exception as error:  # noqa: BLE001  (S3's failures, said as Bookshelf's)
            raise to_bookshelf_error(
                error,
                request["s3_bucket"],
                request["s3_key"],
                request.get("s3_version_id"),
                settings.endpoint_url,
            ) from None
        if name.endswith(".ipynb"):
            await in_transfer_thread(check_notebook_file, os_temporary)
        path = await committer.commit({"path": temporary, "target": posixpath.join(folder, name)})
    except BaseException:
        # Nothing half-written stays, whatever failed (also a cancelled request).
        await in_transfer_thread(_remove, os_temporary)
        raise
    finally:
        _receiving[source].remove(progress)
        if not _receiving[source]:
            del _receiving[source]
    return path, downloaded

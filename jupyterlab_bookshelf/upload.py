"""A clone's bytes received in the very request that commits them.

The browser's clone of an object of a few megabytes otherwise takes two requests to the Jupyter
server: a save of its temporary file through the contents API (as JSON: text or base64, encoded
in the page and decoded here), then the commit (``commit.py``). ``POST /api/bookshelf/create``
does both in one: the request's body is the object's bytes as they came from S3, written to the
temporary file as they arrive, hashed meanwhile, checked (its MD5 against the one the browser
read from S3, a notebook with the clone's rules), then committed under the first free name. Any
failure, also a request cut off half-way, removes the temporary file: nothing is left.

Only for contents managers that keep files on this server's disk; the browser falls back on the
contents API and the commit elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from typing import Any

from .errors import BookshelfError
from .server_access.notebook import BYTE_ORDER_MARK

#: A hex MD5 digest, as the browser sends the one it read from the object's ETag.
_MD5_HEX = re.compile(r"[0-9a-f]{32}")


def read_create_options(query: Mapping[str, str]) -> tuple[str | None, bool]:
    """The expected MD5 (hex) and whether the file is checked as a notebook, from a create
    request's query; raises ``BookshelfError`` (400)."""
    md5 = query.get("md5") or None
    if md5 is not None and not _MD5_HEX.fullmatch(md5):
        raise BookshelfError("InvalidRequest", "md5: an MD5 digest in lower-case hex.", "md5")
    check = query.get("check") or None
    if check not in (None, "notebook"):
        raise BookshelfError("InvalidRequest", "check: only 'notebook' is known.", "check")
    return md5, check == "notebook"


class ReceivedFile:
    """The temporary file a request's body is written to, piece by piece: created only if the
    name is free (the name is the caller's), hashed as it is written, and without a leading
    byte order mark when ``strip_bom`` (a notebook: Jupyter's reader refuses one; the hash is
    of the bytes as they came)."""

    def __init__(self, os_path: str, strip_bom: bool) -> None:
        self.os_path = os_path
        self.size = 0
        self._md5 = hashlib.md5(usedforsecurity=False)
        # The first bytes wait until it is known whether they start with a byte order mark.
        self._pending: bytes | None = b"" if strip_bom else None
        # O_EXCL: never onto an existing file, whoever made it.
        descriptor = os.open(os_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        self._file: Any = os.fdopen(descriptor, "wb")

    def write(self, chunk: bytes) -> None:
        self._md5.update(chunk)
        self.size += len(chunk)
        if self._pending is not None:
            self._pending += chunk
            if len(self._pending) < len(BYTE_ORDER_MARK):
                return
            chunk = self._pending.removeprefix(BYTE_ORDER_MARK)
            self._pending = None
        self._file.write(chunk)

    def close(self) -> str:
        """Close the file; the hex MD5 of the bytes received."""
        if self._pending:
            self._file.write(self._pending)
            self._pending = None
        self._file.close()
        return self._md5.hexdigest()

    def discard(self) -> None:
        """Close and remove the file (a failed or cut-off request)."""
        try:
            self._file.close()
        except OSError:
            pass
        try:
            os.unlink(self.os_path)
        except FileNotFoundError:
            pass

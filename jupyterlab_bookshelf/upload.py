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

import asyncio
import os
import queue
import re
from collections.abc import Mapping
from typing import Any

from .errors import BookshelfError
from .server_access.notebook import BYTE_ORDER_MARK, check_notebook_once
from .server_access.transfers import BackgroundDigest, in_transfer_thread, start_check

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
        # Hashed in a thread of its own, beside the writing and the check.
        self._md5 = BackgroundDigest("md5")
        # The first bytes wait until it is known whether they start with a byte order mark.
        self._pending: bytes | None = b"" if strip_bom else None
        # O_EXCL: never onto an existing file, whoever made it.
        descriptor = os.open(os_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        self._file: Any = os.fdopen(descriptor, "wb")

    def write(self, chunk: bytes) -> bytes:
        """Write a piece of the body; the bytes written (a notebook's first ones wait until it
        is known whether they are a byte order mark)."""
        self._md5.update(chunk)
        self.size += len(chunk)
        if self._pending is not None:
            self._pending += chunk
            if len(self._pending) < len(BYTE_ORDER_MARK):
                return b""
            chunk = self._pending.removeprefix(BYTE_ORDER_MARK)
            self._pending = None
        self._file.write(chunk)
        return chunk

    def close(self) -> tuple[str, bytes]:
        """Close the file; the hex MD5 of the bytes received, and the last bytes written
        (those that waited, if any)."""
        last = self._pending or b""
        self._pending = None
        self._file.write(last)
        self._file.close()
        return self._md5.digest().hex(), last

    def discard(self) -> None:
        """Close and remove the file (a failed or cut-off request)."""
        self._md5.close()
        try:
            self._file.close()
        except OSError:
            pass
        try:
            os.unlink(self.os_path)
        except FileNotFoundError:
            pass


class NotebookCheckAsItArrives:
    """The clone's notebook check (``check_notebook_once``) of a body while it arrives, in a
    thread of the checks' pool: when the body ends, most of the check is done, instead of all of
    it still to do. At most ``QUEUED`` pieces wait for the check, so memory stays flat; a body
    that comes faster waits for it (``put``). A check that found the document is not a
    notebook takes no more pieces."""

    QUEUED = 32

    def __init__(self) -> None:
        self._pieces: queue.Queue[bytes | None] = queue.Queue(self.QUEUED)
        self._buffer = b""
        self._abandoned = False
        self._ended = False
        self._done = start_check(check_notebook_once, self, "clone")

    def read(self, size: int = -1) -> bytes:
        """The check's read: ``size`` bytes (all that is left for a negative ``size``) as they
        arrive, fewer only at the end, b"" after it. Whole reads, not the network's pieces
        as they come: the parser scans a token cut by a read's end again with every later
        read (see ``notebook._events``)."""
        gathered = [self._buffer] if self._buffer else []
        have = len(self._buffer)
        self._buffer = b""
        while (size < 0 or have < size) and not (self._abandoned or self._ended):
            piece = self._pieces.get()
            if piece is None:
                self._ended = True
                break
            gathered.append(piece)
            have += len(piece)
        if self._abandoned:
            return b""
        joined = b"".join(gathered)
        if 0 <= size < len(joined):
            joined, self._buffer = joined[:size], joined[size:]
        return joined

    async def put(self, piece: bytes | None) -> None:
        """Hand a piece to the check (None: the end), waiting off the event loop while the
        check is behind."""
        try:
            self._pieces.put_nowait(piece)
        except queue.Full:
            await in_transfer_thread(self._put_waiting, piece)

    def _put_waiting(self, piece: bytes | None) -> None:
        while not self._done.done():
            try:
                self._pieces.put(piece, timeout=0.05)
                return
            except queue.Full:
                continue

    async def result(self) -> bool:
        """End the check: True when the document passed, False when its JSON or UTF-8 broke
        (say where from the file); raises ``NotANotebook``."""
        await self.put(None)
        return await asyncio.wrap_future(self._done)

    def abandon(self) -> None:
        """Stop the check of a body that will not be committed."""
        self._abandoned = True
        while True:
            try:
                self._pieces.get_nowait()
            except queue.Empty:
                break
        try:
            # Wakes a check waiting for a piece (one that is not sees the flag).
            self._pieces.put_nowait(None)
        except queue.Full:
            pass
        self._done.add_done_callback(lambda done: done.cancelled() or done.exception())

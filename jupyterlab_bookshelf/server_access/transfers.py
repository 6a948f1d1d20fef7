"""Where the blocking work of transfers runs: threads of their own.

boto3 and file writes block, so they run off the Jupyter server's event loop. Not in the loop's
default executor: the contents manager and the commit use that one, and a few long transfers
would make every file save wait behind them.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

#: Transfers that run at once; more wait their turn.
MAX_TRANSFERS = 8

_executor: ThreadPoolExecutor | None = None
_checks: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(MAX_TRANSFERS, thread_name_prefix="bookshelf-transfer")
    return _executor


async def in_transfer_thread(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run ``function`` in a transfer thread; the event loop stays free meanwhile."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_pool(), functools.partial(function, *args, **kwargs))


def start_check(function: Callable[..., T], *args: Any) -> Future[T]:
    """Start a content check in a thread of the checks' own pool (a transfer may wait for a
    check; a check never waits for anything, so the two pools cannot block each other)."""
    global _checks
    if _checks is None:
        _checks = ThreadPoolExecutor(MAX_TRANSFERS, thread_name_prefix="bookshelf-check")
    return _checks.submit(function, *args)


class BackgroundDigest:
    """A hash computed in a thread of its own while the bytes are read: hashing releases the
    GIL, so it overlaps the reading, writing and checking instead of adding to them. At most
    ``QUEUED`` chunks wait for it, so memory stays flat."""

    QUEUED = 8

    def __init__(self, name: str) -> None:
        self._hash = hashlib.new(name, usedforsecurity=False)
        self._chunks: queue.Queue[bytes | None] = queue.Queue(self.QUEUED)
        self._thread = threading.Thread(target=self._run, name=f"bookshelf-{name}", daemon=True)
        self._thread.start()
        self._closed = False

    def _run(self) -> None:
        while (chunk := self._chunks.get()) is not None:
            self._hash.update(chunk)

    def update(self, chunk: bytes) -> None:
        self._chunks.put(chunk)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._chunks.put(None)
            self._thread.join()

    def digest(self) -> bytes:
        self.close()
        return self._hash.digest()

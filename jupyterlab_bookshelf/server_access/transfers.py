"""Where the blocking work of transfers runs: threads of their own.

boto3 and file writes block, so they run off the Jupyter server's event loop. Not in the loop's
default executor: the contents manager and the commit use that one, and a few long transfers
would make every file save wait behind them.
"""

from __future__ import annotations

import asyncio
import functools
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

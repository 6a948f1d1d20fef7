"""Stopping a child process the scripts started: by its PID, politely first."""

from __future__ import annotations

import signal
import subprocess


def stop_process(
    process: subprocess.Popen, timeout: float = 5, first: int = signal.SIGTERM
) -> None:
    """Send `first` (SIGTERM, or SIGINT for a server that shuts down
    cleanly on Ctrl-C), wait up to `timeout` seconds, then kill it.
    Does nothing to a process that has exited."""
    if process.poll() is not None:
        return
    process.send_signal(first)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        # A killed process cannot refuse to end, but its end can take longer than the
        # timeout: the S3 fixture holding gigabytes of objects took more than 5 s to free them.
        process.wait()

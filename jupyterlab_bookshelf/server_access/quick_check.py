"""The quick notebook check: a notebook in Jupyter's layout, checked a cell at a time."""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable
from typing import Any

import msgspec

#: The deepest nesting Jupyter can read (``MAX_NOTEBOOK_DEPTH`` in content.ts).
MAX_NOTEBOOK_DEPTH = 200
#: Bytes the quick check reads at a time.
READ_SIZE = 1024 * 1024

# The exact check (``notebook.check_notebook_exactly``) makes a Python object of every token
# (a notebook of text outputs has one per line: 10,000 per MB), which makes it slower than the
# network: a publish waits for it. Jupyter saves a notebook as an object whose first key is
# "cells", each cell starting on a line of its own at one indentation and ending on a line of
# its own at the same one. Found by that layout, each cell is checked whole by msgspec's C
# parser, which validates JSON without making objects of what it skips; so is the top level
# with the cells left out. What the pieces cannot prove (another layout, a cell msgspec
# refuses, a lone surrogate escape it does not take, a cell larger than ``QUICK_MAX_PIECE``)
# goes to the exact check, which gives the verdict and its message: this check only ever says
# yes.

#: The start of a notebook in Jupyter's layout: ``{"cells": [`` and the first cell's ``{`` on a
#: line of its own (``indent`` is that line's start).
_LAYOUT = re.compile(
    rb'(?P<head>[ \t\n\r]*\{[ \t\n\r]*"cells"[ \t\n\r]*:[ \t\n\r]*)\[[ \t\r]*(?P<indent>\n[ \t]*)\{'
)
_AFTER_CELL = re.compile(rb"[ \t\n\r]*(?:(?P<next>,)[ \t\n\r]*|\])")
#: The largest cell (or top level without the cells) the quick check holds; a larger one is
#: read by the exact check, whose memory stays flat. It also bounds how long the check holds
#: the GIL at a time (about 10 ms), while the server's other threads wait.
QUICK_MAX_PIECE = 16 * 1024 * 1024
#: Bytes read past a cell's end to see what follows it (the whitespace of a line and a comma).
_LOOK_AHEAD = 4096
#: How far into a file the layout is looked for (the first read).
LAYOUT_SEARCH_SIZE = 64 * 1024
_BRACKETS_ONLY = bytes(sorted(set(range(256)) - set(b'[]{}"')))
_NESTING_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class _Blocks:
    """The file's bytes read in blocks into one buffer, each block checked to be UTF-8 as it
    comes (msgspec does not check the strings it skips). ``start`` is the first byte not yet
    checked; ``more`` drops the bytes before it once they are half the buffer."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self._read = read
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self.buffer = bytearray()
        self.start = 0
        self.ended = False

    def unchecked(self) -> int:
        return len(self.buffer) - self.start

    def more(self, size: int | None = None) -> bool:
        """One block more (``READ_SIZE`` bytes unless told); False at the end. Raises
        ``UnicodeDecodeError``."""
        if self.ended:
            return False
        block = self._read(size or READ_SIZE)
        if not block:
            self.ended = True
            self._utf8.decode(b"", final=True)
            return False
        if not block.isascii() or self._utf8.getstate()[0]:
            self._utf8.decode(block)
        if self.start > len(self.buffer) // 2:
            del self.buffer[: self.start]
            self.start = 0
        self.buffer += block
        return True


def _nesting(data: bytes) -> int:
    """How deep lists and objects nest in valid JSON ``data``, strings not counted: escaped
    backslashes and quotes taken out, then the strings, then each bracket's step summed."""
    marks = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _BRACKETS_ONLY)
    brackets = re.sub(rb'"[^"]*"', b"", marks).translate(_NESTING_STEPS)
    return max(itertools.accumulate(memoryview(brackets).cast("b")), default=0)


def _nests_within(data: bytes | bytearray, start: int, end: int, limit: int) -> bool:
    """Whether lists and objects in ``data[start:end]`` nest at most ``limit`` deep; counting
    the opening brackets (strings' too) settles it at once for nearly every piece."""
    if data.count(b"[", start, end) + data.count(b"{", start, end) <= limit:
        return True
    return _nesting(bytes(data[start:end])) <= limit


def quick_outline(read: Callable[[int], bytes]) -> Any:
    """The notebook ``read(size)`` gives up to its end, checked as ``check_notebook_stream``
    checks it: its top level with ``cells`` as ``[]`` when it is valid JSON, UTF-8, nested at
    most ``MAX_NOTEBOOK_DEPTH`` deep and in Jupyter's layout; else None (not sure)."""
    blocks = _Blocks(read)
    try:
        return _quick_outline(blocks)
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return None


def _quick_outline(blocks: _Blocks) -> Any:
    blocks.more(LAYOUT_SEARCH_SIZE)
    layout = _LAYOUT.match(blocks.buffer)
    if layout is None:
        return None
    head = layout["head"]
    cell_end = layout["indent"] + b"}"
    # The cells are at depth 3 (the notebook, its list of cells, the cell).
    cell_depth = MAX_NOTEBOOK_DEPTH - 2
    blocks.start = layout.end() - 1
    searched = 0  # from ``blocks.start``: where ``cell_end`` may be
    while True:
        found = blocks.buffer.find(cell_end, blocks.start + searched)
        after = found + len(cell_end)
        if found < 0 or (not blocks.ended and len(blocks.buffer) < after + _LOOK_AHEAD):
            # Read on: to the cell's end, or far enough to see what follows it.
            if found < 0:
                searched = max(0, blocks.unchecked() - len(cell_end) + 1)
            else:
                searched = found - blocks.start
            if blocks.unchecked() > QUICK_MAX_PIECE or (not blocks.more() and found < 0):
                return None
            continue
        buffer, start = blocks.buffer, blocks.start
        with memoryview(buffer) as view, view[start:after] as cell:
            msgspec.json.decode(cell, type=msgspec.Raw)
        if not _nests_within(buffer, start, after, cell_depth):
            return None
        follows = _AFTER_CELL.match(buffer, after)
        if follows is None:
            return None
        blocks.start, searched = follows.end(), 0
        if not follows["next"]:
            break  # the end of the cells
    while blocks.more():
        if blocks.unchecked() > QUICK_MAX_PIECE:
            return None
    # The top level with the cells left out, each of them valid: the notebook is valid JSON.
    top = head + b"[]" + bytes(blocks.buffer[blocks.start :])
    if not _nests_within(top, 0, len(top), MAX_NOTEBOOK_DEPTH):
        return None
    return msgspec.json.decode(top)

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
#
# A cell larger than ``LONG_CELL_PIECE`` (a large output: Jupyter writes each line of a text
# output, each key and each list member on a line of its own) is checked in pieces cut after a
# line that ends in a comma: each piece inside the brackets left open before it (its context)
# and closed after it, so that msgspec validates it where it stands. A piece valid in its
# context ends where a member does, so the comma after it is the document's own, and the next
# piece starts where a member starts.

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
#: A cell is checked in pieces of about this size once it has grown past it without its end.
LONG_CELL_PIECE = 8 * 1024 * 1024
#: Bytes read past a cell's end to see what follows it (the whitespace of a line and a comma).
_LOOK_AHEAD = 4096
#: How far into a file the layout is looked for (the first read).
LAYOUT_SEARCH_SIZE = 64 * 1024
_BRACKETS_ONLY = bytes(sorted(set(range(256)) - set(b'[]{}"')))
_NESTING_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_PAIRS = re.compile(rb"\[\]|\{\}")
_ALL_BUT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_FIRST_BYTE = re.compile(rb"[ \t\n\r]*(.?)", re.DOTALL)


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


def _brackets(data: bytes) -> bytes:
    """The brackets of valid JSON ``data`` outside its strings, in order: escaped backslashes
    and quotes taken out, then everything but brackets and quotes, then the strings."""
    marks = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _BRACKETS_ONLY)
    return re.sub(rb'"[^"]*"', b"", marks)


def _deepest(brackets: bytes) -> int:
    """How deep the brackets ``brackets`` (``_brackets``'s) open below where they start: each
    bracket's step summed."""
    steps = brackets.translate(_NESTING_STEPS)
    return max(itertools.accumulate(memoryview(steps).cast("b")), default=0)


def _nesting(data: bytes) -> int:
    """How deep lists and objects nest in valid JSON ``data``, strings not counted."""
    return _deepest(_brackets(data))


def _still_open(brackets: bytes, context: list[bytes]) -> list[bytes]:
    """The brackets open after a piece whose brackets are ``brackets`` (``_brackets``'s), valid
    JSON begun inside the brackets ``context`` (outermost first). (Of a piece that is not,
    what this gives makes it invalid where it stands: the piece's check refuses it.)"""
    # Matched pairs taken out (once per level of nesting) leave closers, then openers.
    for _ in range(MAX_NOTEBOOK_DEPTH + 1):
        unmatched = _PAIRS.sub(b"", brackets)
        if len(unmatched) == len(brackets):
            break
        brackets = unmatched
    openers = brackets.lstrip(b"]}")
    closed = len(brackets) - len(openers)
    return context[: max(0, len(context) - closed)] + [bytes([c]) for c in openers]


def _check_long_piece(
    data: bytearray, start: int, end: int, context: list[bytes], depth: int
) -> list[bytes] | None:
    """Check ``data[start:end]``, a piece of a long cell begun inside the brackets ``context``
    (outermost first) and cut after a line that ends in a comma, or at the cell's end: the
    brackets still open after it, or None when it is not valid JSON where it stands or nests
    deeper than ``depth`` (raises ``msgspec.MsgspecError`` if not JSON). A piece of a long text
    output has no brackets at all, which settles the brackets open and the nesting at once."""
    # The piece where it stands: inside the context's brackets (each object but the innermost
    # with a member it is the value of), then closing those still open; copied once.
    text = bytearray(b"".join(b'{"":' if c == b"{" else c for c in context[:-1]))
    text += b"".join(context[-1:])
    at = len(text)
    with memoryview(data) as view:
        text += view[start:end]
    # Its brackets outside strings, looked for only if it has any at all (strings' counted;
    # the context's opening brackets come first).
    any_bracket = len(text.translate(None, _ALL_BUT_BRACKETS)) > len(context)
    brackets = _brackets(bytes(text[at:])) if any_bracket else b""
    still_open = _still_open(brackets, context) if brackets else context
    # After a comma comes a member, not a closer; before one, a value, not an opener (an empty
    # piece ends with its context's): where the brackets added here would make it valid.
    if context and _FIRST_BYTE.match(text, at)[1] in (b"]", b"}"):
        return None
    last = len(text)
    while last > at and text[last - 1] in b" \t\n\r":
        last -= 1
    if still_open and text[last - 1 : last] in (b"[", b"{"):
        return None
    text += b"".join(b"}" if c == b"{" else b"]" for c in reversed(still_open))
    msgspec.json.decode(text, type=msgspec.Raw)
    if len(context) + _deepest(brackets) > depth:
        return None
    return still_open


def _nests_within(data: bytes | bytearray, start: int, end: int, limit: int) -> bool:
    """Whether lists and objects in ``data[start:end]`` nest at most ``limit`` deep; counting
    the opening brackets (strings' too) settles it at once for nearly every piece."""
    if data.count(b"[", start, end) + data.count(b"{", start, end) <= limit:
        return True
    return _nesting(bytes(data[start:end])) <= limit


def in_jupyter_layout(start: bytes | bytearray) -> bool:
    """Whether a document whose first ``LAYOUT_SEARCH_SIZE`` bytes (or all, if fewer) are
    ``start`` begins as Jupyter saves a notebook: the quick check may then be sure of it."""
    return _LAYOUT.match(start) is not None


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
    layout = _LAYOUT.match(blocks.buffer)  # as in_jupyter_layout
    if layout is None:
        return None
    head = layout["head"]
    cell_end = layout["indent"] + b"}"
    # Where a long cell is cut: after a line that ends in a comma, as the file ends its lines
    # (Windows line ends keep a carriage return before each line feed).
    windows = blocks.buffer[layout.start("indent") - 1 : layout.start("indent")] == b"\r"
    line_end = b",\r\n" if windows else b",\n"
    # The cells are at depth 3 (the notebook, its list of cells, the cell).
    cell_depth = MAX_NOTEBOOK_DEPTH - 2
    blocks.start = layout.end() - 1
    searched = 0  # from ``blocks.start``: where ``cell_end`` may be
    context: list[bytes] = []  # the brackets open where a long cell's last piece ended
    while True:
        found = blocks.buffer.find(cell_end, blocks.start + searched)
        after = found + len(cell_end)
        if found < 0 or (not blocks.ended and len(blocks.buffer) < after + _LOOK_AHEAD):
            # Read on: to the cell's end, or far enough to see what follows it.
            if found < 0:
                if blocks.unchecked() > LONG_CELL_PIECE:
                    still_open = _long_cell_piece(blocks, context, cell_depth, line_end)
                    if still_open is None:
                        return None
                    context = still_open
                searched = max(0, blocks.unchecked() - len(cell_end) + 1)
            else:
                searched = found - blocks.start
            if blocks.unchecked() > QUICK_MAX_PIECE or (not blocks.more() and found < 0):
                return None
            continue
        buffer, start = blocks.buffer, blocks.start
        if context:
            if _check_long_piece(buffer, start, after, context, cell_depth) != []:
                return None
            context = []
        else:
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


def _long_cell_piece(
    blocks: _Blocks, context: list[bytes], depth: int, line_end: bytes
) -> list[bytes] | None:
    """Check the long cell's bytes read so far, up to the last line that ends in a comma
    (``line_end``: the comma and the file's line end), and move past them: the brackets still
    open there (none when the cell ended there, and the next cell follows), or None when the
    piece is not valid in its context; ``context`` unchanged when no line ends in a comma."""
    cut = blocks.buffer.rfind(line_end, blocks.start)
    if cut < 0:
        return context
    still_open = _check_long_piece(blocks.buffer, blocks.start, cut, context, depth)
    if still_open is not None:
        blocks.start = cut + 1
    return still_open

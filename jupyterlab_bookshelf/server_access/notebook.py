"""The content rules the browser applies (``src/clone/content.ts``), on the server.

Same rules, same messages: a clone takes nbformat 3 and 4 (Jupyter converts 3 when it opens
it), a publish version 4 only; the size limit is ``maxObjectSizeMB`` × 1024 × 1024 bytes.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, BinaryIO, Literal

import ijson

from ..errors import BookshelfError
from .quick_check import LAYOUT_SEARCH_SIZE, MAX_NOTEBOOK_DEPTH, in_jupyter_layout, quick_outline

BYTES_PER_MB = 1024 * 1024
BYTE_ORDER_MARK = b"\xef\xbb\xbf"

Purpose = Literal["clone", "publish"]
#: Bytes the streaming check reads at a time (more inside a long string: see ``_events``).
READ_SIZE = 1024 * 1024
#: The most the streaming check reads at a time.
MAX_READ_SIZE = 256 * 1024 * 1024
#: Up to this size a JSON syntax error is located (parsed again whole, to name the character
#: where it is, as the browser does); a larger file is only said not to be valid JSON.
LOCATE_ERROR_MAX_BYTES = 64 * 1024 * 1024


def size_limit_bytes(max_object_size_mb: float) -> int:
    """``sizeLimitBytes``: 0 when the setting is not positive (then nothing may be cloned)."""
    if not max_object_size_mb > 0:
        return 0
    return int(max_object_size_mb * BYTES_PER_MB)


def _js_number(value: float) -> str:
    """A number as JavaScript prints it in a message (200, not 200.0)."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def check_size(size: int, max_object_size_mb: float) -> None:
    """``TooLarge`` when an object of ``size`` bytes is over the limit (``checkSize``)."""
    if size > size_limit_bytes(max_object_size_mb):
        raise BookshelfError(
            "TooLarge",
            f"The object is {size / BYTES_PER_MB:.1f} MB ({size} bytes), more than the limit of "
            f"{_js_number(max_object_size_mb)} MB; ask an administrator to raise the "
            "maxObjectSizeMB setting.",
        )


def not_a_notebook(reason: str) -> BookshelfError:
    return BookshelfError("NotANotebook", f"The object is not a Jupyter notebook: {reason}")


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether lists and objects nest deeper than ``limit`` (counted without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _is_integer(value: Any) -> bool:
    """``Number.isInteger``: 1 and 1.0, not True."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _found(value: Any) -> str:
    """``String(JSON.stringify(value)?.slice(0, 20))``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))[:20]


def _parse(data: bytes) -> Any:
    """The JSON value of ``data``, or ``NotANotebook`` saying why it has none."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _not_utf8(data[:2]) from None
    if data.startswith(BYTE_ORDER_MARK):
        raise _byte_order_mark()
    try:
        # NaN and Infinity are not JSON for the browser's JSON.parse (nor for the stream).
        return json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError as error:
        # Only where: the parser's message may quote the content.
        raise not_a_notebook(
            f"it is not valid JSON (error at line {error.lineno}, column {error.colno})."
        ) from None
    except ValueError:
        raise not_a_notebook("it is not valid JSON.") from None


def _not_utf8(start: bytes) -> BookshelfError:
    # A UTF-16 file (Windows PowerShell's default) says so by its byte order mark.
    if start in (b"\xff\xfe", b"\xfe\xff"):
        return not_a_notebook(
            "it is UTF-16 text (it starts with a UTF-16 byte order mark), which Jupyter cannot "
            "read: save it as UTF-8."
        )
    return not_a_notebook("it is not UTF-8 text.")


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _byte_order_mark() -> BookshelfError:
    # A clone drops the mark before its check; a saved file that starts with one is a notebook
    # Jupyter cannot open (the browser's checkNotebookText says the same).
    return not_a_notebook(
        "it starts with a byte order mark (U+FEFF), which Jupyter cannot read: save it as UTF-8 "
        "without one."
    )


def _too_deep() -> BookshelfError:
    return not_a_notebook(
        f"its JSON is nested more than {MAX_NOTEBOOK_DEPTH} levels deep, which Jupyter cannot open."
    )


def check_notebook_bytes(data: bytes, purpose: Purpose = "clone") -> None:
    """``NotANotebook`` unless ``data`` (without a byte order mark) is a notebook Jupyter
    opens: ``checkNotebook`` of content.ts. The parsed value is dropped on return."""
    value = _parse(data)
    if _depth_exceeds(value, MAX_NOTEBOOK_DEPTH):
        raise _too_deep()
    check_notebook_value(value, purpose)


def check_notebook_value(value: Any, purpose: Purpose = "clone") -> None:
    """The checks of ``checkNotebookText`` after parsing."""
    if not isinstance(value, dict):
        raise not_a_notebook("it is JSON, but not an object.")
    for field in ("nbformat", "nbformat_minor", "metadata"):
        if field not in value:
            raise not_a_notebook(f"'{field}' is missing.")
    nbformat = value["nbformat"]
    readable = (3, 4) if purpose == "clone" else (4,)
    if not (_is_integer(nbformat) and int(nbformat) in readable):
        found = _found(nbformat)
        if purpose == "clone":
            reason = f"'nbformat' is {found}; only version 3 and 4 notebooks can be cloned."
        elif _is_integer(nbformat) and int(nbformat) == 3:
            reason = (
                "'nbformat' is 3; open the notebook in Jupyter and save it, which converts it "
                "to version 4, then publish it."
            )
        else:
            reason = f"'nbformat' is {found}; only version 4 notebooks can be published."
        raise not_a_notebook(reason)
    if not _is_integer(value["nbformat_minor"]):
        raise not_a_notebook("'nbformat_minor' is not an integer.")
    if not isinstance(value["metadata"], dict):
        raise not_a_notebook("'metadata' is not an object.")
    if int(nbformat) == 3:
        if "worksheets" not in value:
            raise not_a_notebook("'worksheets' is missing.")
        worksheets = value["worksheets"]
        if not isinstance(worksheets, list) or not all(
            isinstance(sheet, dict) and isinstance(sheet.get("cells"), list) for sheet in worksheets
        ):
            raise not_a_notebook("'worksheets' is not a list of worksheets with cells.")
        return
    if "cells" not in value:
        raise not_a_notebook("'cells' is missing.")
    if not isinstance(value["cells"], list):
        raise not_a_notebook("'cells' is not a list.")


def check_notebook_stream(file: BinaryIO, purpose: Purpose = "clone") -> None:
    """``check_notebook_bytes`` of a file read from where it is to its end, in pieces: the
    same rules and messages, with memory flat in the file's size (nothing of the notebook is
    kept but the few top-level values the rules look at). Stricter in one way, the browser's:
    ``NaN`` and ``Infinity`` are not JSON.

    A notebook laid out as Jupyter saves it passes the quick check (``quick_outline``); any
    other file, or one the quick check is not sure of, is read again by the exact one."""
    start = file.tell()
    outline = quick_outline(file.read)
    if outline is None:
        file.seek(start)
        check_notebook_exactly(file, purpose)
    else:
        check_notebook_value(outline, purpose)


def check_notebook_exactly(file: BinaryIO, purpose: Purpose = "clone") -> None:
    """``check_notebook_stream`` through ijson's events, whatever the layout; says where the
    JSON breaks."""
    start = file.tell()
    try:
        outline = _outline(_events(file.read))
    except _BROKEN as error:
        file.seek(start)
        if not _number_overflow(error):
            raise _syntax_error(file) from None
        # A number beyond C's (an integer above 2**63, 1e400): valid JSON, which the browser
        # and the whole-file check take; read again with numbers parsed by Python.
        try:
            outline = _outline(_events(file.read, python_numbers=True))
        except _BROKEN:
            file.seek(start)
            raise _syntax_error(file) from None
    check_notebook_value(outline, purpose)


def check_notebook_once(file: BinaryIO, purpose: Purpose = "clone") -> bool:
    """``check_notebook_stream``'s rules on a file that cannot be read again (bytes as they
    arrive): raises ``NotANotebook`` for a document that is not a notebook, and answers False
    when its JSON or UTF-8 breaks, for the caller to say where from a copy it can read again
    (``check_notebook_stream``). A notebook in Jupyter's layout (seen in its first bytes) gets
    the quick check; where that is not sure, the answer is False too, and the copy's check
    gives the verdict."""
    head = file.read(LAYOUT_SEARCH_SIZE)
    replayed = False

    def read(size: int) -> bytes:
        nonlocal replayed
        if replayed:
            return file.read(size)
        replayed = True
        return head

    if in_jupyter_layout(head):
        outline = quick_outline(read)
        if outline is None:
            return False
    else:
        try:
            outline = _outline(_events(read))
        except _BROKEN:
            return False
    check_notebook_value(outline, purpose)
    return True


#: What ijson raises where JSON or UTF-8 breaks: yajl takes a surrogate encoded in UTF-8
#: (b"\xed\xa0\x80"), which Python's decoder, as the browser's, refuses.
_BROKEN = (ijson.JSONError, UnicodeDecodeError)


def _number_overflow(error: Exception) -> bool:
    """Whether yajl refused a number too large for a C integer or double ("integer overflow",
    "numeric (floating point) overflow"), not the document's syntax."""
    return isinstance(error, ijson.JSONError) and "overflow" in str(error)


def _events(
    read: Callable[[int], bytes], python_numbers: bool = False
) -> Iterator[tuple[str, Any]]:
    """The parser's events (``ijson.basic_parse``'s) of the bytes ``read(size)`` gives, up to
    the b"" that ends them; raises ``ijson.JSONError`` where the JSON breaks or is cut off.
    Numbers are yajl's C integers and doubles, or with ``python_numbers`` Python's integers
    and floats (slower: each goes through a Decimal), which take any size, as
    ``json.loads`` and ``JSON.parse`` do (1e400 is infinity).

    Fed by hand, in pieces whose size this chooses, because of a limit of yajl, the C parser
    under ijson: a token that a piece's end cuts is scanned again from its start with every
    later piece (lloyd/yajl#202, not merged), so one string of S bytes fed in pieces of P
    bytes costs S²/2P. Measured: a notebook holding one 48 MB string of non-ASCII text took
    7.1 s to check in pieces of 1 MiB, and one of 24 MB 25 s in the network's 64 KiB pieces.
    While a piece gives no event (the parser is inside one token), the next one is twice as
    large, which makes the scans of a token add up to about twice its size (yajl holds the
    whole token meanwhile anyway); once events come again, pieces are ``READ_SIZE`` again."""
    events = ijson.sendable_list()
    parser = ijson.basic_parse_coro(events, use_float=not python_numbers)
    given = _as_floats if python_numbers else iter
    size = READ_SIZE
    while piece := read(size):
        parser.send(piece)
        if events:
            yield from given(events)
            events.clear()
            size = READ_SIZE
        else:
            size = min(2 * size, MAX_READ_SIZE)
    parser.close()
    yield from given(events)


def _as_floats(events: list[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """The events with ijson's Decimal numbers as floats, as ``json.loads`` gives them."""
    for event, value in events:
        yield event, float(value) if isinstance(value, Decimal) else value


_STARTS = ("start_map", "start_array")
_ENDS = ("end_map", "end_array")
#: Top-level values whose content a message may quote (``_found``).
_KEPT = ("nbformat", "nbformat_minor")


def _outline(events: Any) -> Any:
    """A stand-in of the document for ``check_notebook_value``: the top level's scalars and
    kept values as they are, other containers as an empty dict or list, each version 3
    worksheet as ``{"cells": []}`` when its cells are a list, else ``None``."""
    depth = 0
    top: Any = None
    key: str | None = None
    builder: Any = None  # a kept container value, being built
    worksheets: list[Any] | None = None
    worksheet_key: str | None = None
    worksheet_ok = False
    for event, value in events:
        if depth > 3 and builder is None:
            # Below the levels the rules look at (most of a notebook's events: its cells'
            # content), only the depth counts: one test for the common case, a scalar.
            if event in _STARTS:
                depth += 1
                if depth > MAX_NOTEBOOK_DEPTH:
                    raise _too_deep()
            elif event in _ENDS:
                depth -= 1
            continue
        if event in _STARTS:
            depth += 1
            if depth > MAX_NOTEBOOK_DEPTH:
                raise _too_deep()
            if depth == 1:
                top = {} if event == "start_map" else []
                continue
            if depth == 2 and isinstance(top, dict):
                if key in _KEPT:
                    builder = ijson.ObjectBuilder()
                elif key == "worksheets":
                    worksheets = [] if event == "start_array" else None
                if key != "worksheets" or worksheets is None:
                    top[key] = {} if event == "start_map" else []
            elif depth == 3 and worksheets is not None and key == "worksheets":
                worksheet_key, worksheet_ok = None, False
                if event != "start_map":
                    worksheets.append(None)
            elif depth == 4 and worksheets is not None and key == "worksheets":
                if worksheet_key == "cells":
                    worksheet_ok = event == "start_array"
        elif event in _ENDS:
            if depth == 3 and worksheets is not None and key == "worksheets":
                if event == "end_map":
                    worksheets.append({"cells": []} if worksheet_ok else None)
            elif depth == 2 and isinstance(top, dict) and key == "worksheets":
                if worksheets is not None:
                    top[key] = worksheets
                    worksheets = None
            depth -= 1
        elif depth == 0:
            top = value
            continue
        elif depth == 1:
            if event == "map_key":
                key = value
            elif isinstance(top, dict):
                top[key] = value
            continue
        elif depth == 3 and worksheets is not None and key == "worksheets":
            if event == "map_key":
                worksheet_key = value
            elif worksheet_key == "cells":
                worksheet_ok = False
            continue
        elif depth == 2 and worksheets is not None and key == "worksheets":
            worksheets.append(None)  # a scalar worksheet
            continue
        if builder is not None:
            builder.event(event, value)
            if depth == 1:
                top[key] = builder.value
                builder = None
    return top


def _syntax_error(file: BinaryIO) -> BookshelfError:
    """What is wrong with a file the streaming parser refused: not UTF-8, or where its JSON
    breaks (as ``check_notebook_bytes`` says it)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    start = file.tell()
    first = file.read(len(BYTE_ORDER_MARK))
    file.seek(start)
    size = 0
    try:
        while chunk := file.read(READ_SIZE):
            size += len(chunk)
            decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return _not_utf8(first[:2])
    if first == BYTE_ORDER_MARK:
        return _byte_order_mark()
    if size <= LOCATE_ERROR_MAX_BYTES:
        file.seek(start)
        try:
            _parse(file.read())
        except BookshelfError as error:
            return error
    # Valid for Python, not for the browser (NaN, Infinity), or too large to locate the error.
    return not_a_notebook("it is not valid JSON.")

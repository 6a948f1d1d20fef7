"""The content rules the browser applies (``src/clone/content.ts``), on the server.

Same rules, same messages: a clone takes nbformat 3 and 4 (Jupyter converts 3 when it opens
it), a publish version 4 only; the size limit is ``maxObjectSizeMB`` × 1024 × 1024 bytes.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ..errors import BookshelfError

BYTES_PER_MB = 1024 * 1024
#: The deepest nesting Jupyter can read (``MAX_NOTEBOOK_DEPTH`` in content.ts).
MAX_NOTEBOOK_DEPTH = 200
BYTE_ORDER_MARK = b"\xef\xbb\xbf"

Purpose = Literal["clone", "publish"]


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


def check_notebook_bytes(data: bytes, purpose: Purpose = "clone") -> None:
    """``NotANotebook`` unless ``data`` (without a byte order mark) is a notebook Jupyter
    opens: ``checkNotebook`` of content.ts. The parsed value is dropped on return."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise not_a_notebook("it is not UTF-8 text.") from None
    too_deep = not_a_notebook(
        f"its JSON is nested more than {MAX_NOTEBOOK_DEPTH} levels deep, which Jupyter cannot open."
    )
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep from None
    except ValueError as error:
        # Only the position: the parser's message may quote the content.
        position = getattr(error, "pos", None)
        raise not_a_notebook(
            "it is not valid JSON."
            if position is None
            else f"it is not valid JSON (error at character {position})."
        ) from None
    if _depth_exceeds(value, MAX_NOTEBOOK_DEPTH):
        raise too_deep
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

"""The streaming notebook check (server-side clone and publish) says what the whole-file check
says, on every kind of document; the one difference is the browser's: NaN is not JSON."""

from __future__ import annotations

import io
import json

import pytest

from jupyterlab_bookshelf.errors import BookshelfError
from jupyterlab_bookshelf.server_access import notebook as notebook_module
from jupyterlab_bookshelf.server_access.notebook import (
    check_notebook_bytes,
    check_notebook_exactly,
    check_notebook_stream,
)


def nb(**fields) -> bytes:
    base = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps({**base, **fields}).encode()


def v3(worksheets) -> bytes:
    return json.dumps(
        {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": worksheets}
    ).encode()


CASES = [
    b"not json", b"\xff\xfe", b"[1]", b"1", b'"x"', b"", b"  ", nb(), nb(nbformat=5),
    nb(nbformat=3), nb(nbformat="4"), nb(nbformat={"a": [1, 2, {"b": "c" * 30}]}),
    nb(nbformat=[4]), nb(nbformat=4.0), nb(nbformat=True), nb(nbformat_minor=1.5),
    nb(nbformat_minor=None), nb(metadata=[]), nb(metadata=1), nb(cells={}), nb(cells="x"),
    json.dumps({"nbformat": 4, "metadata": {}}).encode(),
    json.dumps({"nbformat": 4, "nbformat_minor": 0}).encode(),
    json.dumps({"nbformat": 4, "nbformat_minor": 0, "metadata": {}}).encode(),
    b"[" * 300 + b"]" * 300, b"[" * 200 + b"]" * 200,
    b'{"a":' + b"[" * 199 + b"]" * 199 + b"}", b'{"a":' + b"[" * 200 + b"]" * 200 + b"}",
    nb() + b" x", b"\xef\xbb\xbf" + nb(), b'{"a":"\xff"}', nb()[:-1],
    # Numbers beyond C's integers and doubles (yajl's), in kept values and below them.
    nb(metadata={"x": 2**63, "y": -(10**30)}), nb(nbformat=2**64), nb(nbformat_minor=10**30),
    nb(cells=[{"outputs": [[10**40, 1.5]]}]),
    nb(metadata={"x": 1}).replace(b'"x": 1', b'"x": 1e400'),
    nb(metadata={"x": 1}).replace(b'"x": 1', b'"x": -1E+999'),
    nb().replace(b'"nbformat": 4', b'"nbformat": 1e400'),
    nb().replace(b'"nbformat": 4', b'"nbformat": 4.0e0'),
    nb(x=[1]).replace(b"[1]", b"[1e400, 1e999"),  # broken after the overflow
    # A surrogate encoded in UTF-8: yajl takes it, Python's decoder (as the browser's) does not.
    b'{"a":"\xed\xa0\x80"}',
    b'{"nbformat":4,"nbformat":3,"nbformat_minor":0,"metadata":{},"worksheets":[]}',
    b'{"nbformat":3,"nbformat_minor":0,"metadata":{},"worksheets":[{"cells":1,"cells":[]}]}',
    b'{"nbformat":3,"nbformat_minor":0,"metadata":{},"worksheets":[{"cells":[],"cells":2}]}',
    # Below the levels the rules look at: kept values, cells' content, the depth limit.
    nb(nbformat=[[[[[4, {"a": [None, True, 1.5]}]]]]]),
    nb(cells=[{"outputs": [{"text": ["a", {"b": [1, None, True, 1.5, {}]}]}]}], x=[[[[1]]]]),
    b'{"cells":' + b"[" * 199 + b"]" * 199 + b',"metadata":{},"nbformat":4,"nbformat_minor":5}',
    b'{"cells":' + b"[" * 200 + b"]" * 200 + b',"metadata":{},"nbformat":4,"nbformat_minor":5}',
    *(
        v3(worksheets)
        for worksheets in (
            [], [{"cells": []}], [{"cells": {}}], [1], [[]], [{"x": 1}],
            [{"cells": [], "x": [{"cells": 1}]}], [{"cells": 1, "other": []}],
            [{"cells": [{"cells": 1}]}], {}, "x",
            [{"cells": []}, {"cells": [[1]]}, {"a": {"cells": 1}}],
            [{"cells": [[[[["x", {"cells": 1}]]]]]}, {"cells": [], "y": [[[[2]]]]}],
        )
    ),
]  # fmt: skip


def outcome(check, *args):
    try:
        check(*args)
    except BookshelfError as error:
        return error.code, error.message
    return None


@pytest.mark.parametrize("purpose", ["clone", "publish"])
@pytest.mark.parametrize("data", CASES)
def test_the_stream_says_what_the_whole_file_check_says(data, purpose):
    assert outcome(check_notebook_stream, io.BytesIO(data), purpose) == outcome(
        check_notebook_bytes, data, purpose
    )


def test_nan_is_not_json_as_in_the_browser():
    assert outcome(check_notebook_stream, io.BytesIO(nb(x=float("nan"))), "publish") == (
        "NotANotebook",
        "The object is not a Jupyter notebook: it is not valid JSON.",
    )


def test_a_large_broken_file_is_not_read_whole_to_locate_the_error(monkeypatch):
    monkeypatch.setattr(notebook_module, "LOCATE_ERROR_MAX_BYTES", 100)
    data = nb(cells=[{"x": "y" * 200}])[:-2]
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") == (
        "NotANotebook",
        "The object is not a Jupyter notebook: it is not valid JSON.",
    )


@pytest.mark.parametrize("locate_up_to", [100, notebook_module.LOCATE_ERROR_MAX_BYTES])
def test_a_byte_order_mark_is_named_at_any_size(monkeypatch, locate_up_to):
    """Jupyter's reader refuses the mark: the check says so, not where the JSON breaks."""
    monkeypatch.setattr(notebook_module, "LOCATE_ERROR_MAX_BYTES", locate_up_to)
    data = b"\xef\xbb\xbf" + nb(cells=[{"x": "y" * 200}])
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") == (
        "NotANotebook",
        "The object is not a Jupyter notebook: it starts with a byte order mark (U+FEFF), "
        "which Jupyter cannot read: save it as UTF-8 without one.",
    )


def test_memory_is_flat_in_the_notebook_size():
    """Read in pieces: a 40 MB notebook is checked without a read larger than a piece."""
    cell = {"cell_type": "markdown", "metadata": {}, "source": "x" * 100_000}
    data = nb(cells=[cell] * 400)

    class Reads(io.BytesIO):
        largest = 0

        def read(self, size=-1):
            chunk = super().read(size)
            Reads.largest = max(Reads.largest, len(chunk))
            return chunk

    check_notebook_stream(Reads(data), "publish")
    assert len(data) > 40_000_000
    assert Reads.largest <= notebook_module.READ_SIZE


class _AskedSizes(io.BytesIO):
    """A file that records the size of each read asked of it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size=-1):
        self.asked.append(size)
        return super().read(size)


def test_a_long_string_is_read_in_growing_pieces_then_in_small_ones_again():
    """yajl scans a token cut by a piece's end again with every later piece: within one long
    string the pieces double, so the scans add up to about twice the string, not its square
    over the piece size; after it, pieces are small again (memory flat)."""
    piece = notebook_module.READ_SIZE
    long_cell = {"cell_type": "markdown", "metadata": {}, "source": "é" * (10 * piece)}
    small_cell = {"cell_type": "markdown", "metadata": {}, "source": "x" * 1000}
    cells = [long_cell] + [small_cell] * (3 * piece // 1000)
    data = json.dumps(
        {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
        ensure_ascii=False,
    ).encode()
    file = _AskedSizes(data)
    check_notebook_exactly(file, "publish")
    # The first piece gives the events of the start; 20 MiB of string follow, which
    # 1 + 2 + 4 + 8 + 16 MiB more reach past.
    assert file.asked[:6] == [piece, piece, 2 * piece, 4 * piece, 8 * piece, 16 * piece]
    assert file.asked[6:] and set(file.asked[6:]) == {piece}


def test_the_pieces_of_a_long_string_grow_to_a_bound():
    data = nb(cells=[{"cell_type": "markdown", "metadata": {}, "source": "x" * 5000}])
    file = _AskedSizes(data)
    bound = notebook_module.MAX_READ_SIZE
    try:
        notebook_module.READ_SIZE, notebook_module.MAX_READ_SIZE = 100, 400
        check_notebook_exactly(file, "publish")
    finally:
        notebook_module.READ_SIZE, notebook_module.MAX_READ_SIZE = 1024 * 1024, bound
    # The first piece gives the events of the start, then the string.
    assert file.asked[:6] == [100, 100, 200, 400, 400, 400]

"""The quick notebook check (``quick_outline``): a notebook in Jupyter's layout is checked a cell
at a time by msgspec, and the verdict is always the exact check's; what the quick check is not
sure of goes to the exact check."""

from __future__ import annotations

import hashlib
import io
import json
import random

import msgspec
import nbformat
import pytest

from jupyterlab_bookshelf.errors import BookshelfError
from jupyterlab_bookshelf.server_access import notebook as notebook_module
from jupyterlab_bookshelf.server_access import quick_check
from jupyterlab_bookshelf.server_access.notebook import (
    MAX_NOTEBOOK_DEPTH,
    check_notebook_bytes,
    check_notebook_exactly,
    check_notebook_once,
    check_notebook_stream,
    quick_outline,
)
from jupyterlab_bookshelf.server_access.publish import check_publishable_file

from .test_notebook_stream import outcome


def saved(notebook: dict) -> bytes:
    """A notebook as Jupyter saves it (``nbformat.writes``: one space of indentation, sorted
    keys, text as it is)."""
    return (json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def notebook(cells: list, **fields) -> dict:
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5, **fields}


def code(source: str, outputs: list | None = None) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 1,
        "id": "a1",
        "metadata": {},
        "outputs": outputs or [],
        "source": source,
    }


#: Strings that trip a scanner: brackets, quotes and backslashes inside text, escapes.
TRICKY = [
    'print("}")',
    'a\\"b\\\\',
    "\\",
    '"',
    "[{",
    "]}",
    '\\u005c"',
    "é ✓ 漢字 \U0001f600",
    "\n  }\n ],",
    "line\r\n",
]

SAVED = [
    saved(notebook([code("print(1)")])),
    saved(notebook([code(text) for text in TRICKY])),
    saved(notebook([code("x", [{"output_type": "stream", "name": "stdout", "text": TRICKY}])])),
    saved(notebook([{"cell_type": "raw", "id": "m", "metadata": {"a": [[[1]]]}, "source": ""}])),
    saved(notebook([code("1")], metadata={"kernelspec": {"name": "py"}, "x": [1.5, -0, 1e300]})),
    saved(notebook([code("1")], nbformat="4")),
    saved(notebook([code("1")], nbformat=5)),
    saved(notebook([code("1")], nbformat=3)),
    saved(notebook([code("1")], nbformat=4.0, nbformat_minor=2.5)),
    saved(notebook([code("1")], metadata=[])),
    saved({"cells": [code("1")], "nbformat": 4, "nbformat_minor": 5}),
    json.dumps(notebook([code("1"), code("2")]), indent=2).encode(),
    nbformat.writes(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("print('é')"), nbformat.v4.new_markdown_cell("# T")]
        )
    ).encode(),
]  # fmt: skip

DEEP_CELL = "[" * 197 + "]" * 197  # with the cell object: depth 198, the notebook's 200


def in_a_cell(text: str | bytes) -> bytes:
    """A saved notebook with ``text`` as the value of a cell's field, as it is."""
    raw = text if isinstance(text, bytes) else text.encode()
    return saved(notebook([code("MARK")])).replace(b'"MARK"', raw)


NOT_SURE = [
    # Another layout.
    json.dumps(notebook([code("1")])).encode(),
    saved(notebook([])),
    json.dumps({"metadata": {}, **notebook([code("1")])}, indent=1).encode(),  # cells second
    # Cells that are not objects (no line of their own closes them).
    saved(notebook([code("1"), 1, "x", [], None])),
    # Valid JSON msgspec does not take: a lone surrogate escape, a number beyond a double.
    in_a_cell('"\\ud800"'),
    saved(notebook([code("1")])).replace(b'"nbformat": 4', b'"nbformat": 1e400'),
    # Too deep, in a cell and at the top.
    in_a_cell(DEEP_CELL.replace("[", "[[", 1).replace("]", "]]", 1)),
    saved(notebook([code("1")], metadata={"a": json.loads("[" * 199 + "]" * 199)})),
    # Not JSON, or not UTF-8, inside a cell and after the cells.
    in_a_cell("NaN"),
    in_a_cell('"a\nb"'),
    in_a_cell("[1,]"),
    in_a_cell(b'"\xff"'),
    in_a_cell(b'"\xed\xa0\x80"'),
    saved(notebook([code("1")])) + b"x",
    saved(notebook([code("1")]))[:-3],
    saved(notebook([code("1")])).replace(b'"nbformat": 4', b'"nbformat": 4,'),
    # A line that looks like a cell's end inside a cell.
    in_a_cell('{"a": 1\n  }'),
]  # fmt: skip


@pytest.fixture
def no_exact_check(monkeypatch):
    """Fail any use of the exact check: the quick one must be sure."""

    def refuse(read):
        raise AssertionError("the exact check was used")

    monkeypatch.setattr(notebook_module, "_events", refuse)


@pytest.mark.parametrize("data", SAVED)
def test_a_saved_notebook_is_checked_quickly(data, no_exact_check):
    for purpose in ("clone", "publish"):
        expected = outcome(check_notebook_bytes, data, purpose)
        assert outcome(check_notebook_stream, io.BytesIO(data), purpose) == expected


@pytest.mark.parametrize("data", [in_a_cell(DEEP_CELL), in_a_cell('"\\"\\\\[[[["')])
def test_the_deepest_cell_jupyter_opens_is_checked_quickly(data, no_exact_check):
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") is None


@pytest.mark.parametrize("data", NOT_SURE)
def test_what_the_quick_check_is_not_sure_of_gets_the_exact_verdict(data):
    assert quick_outline(io.BytesIO(data).read) is None
    for purpose in ("clone", "publish"):
        assert outcome(check_notebook_stream, io.BytesIO(data), purpose) == outcome(
            check_notebook_exactly, io.BytesIO(data), purpose
        )


def test_windows_line_ends_are_checked_quickly(no_exact_check):
    data = saved(notebook([code("a"), code("b")])).replace(b"\n", b"\r\n")
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") is None


def test_cells_larger_than_a_read_and_text_cut_between_reads(monkeypatch, no_exact_check):
    monkeypatch.setattr(quick_check, "READ_SIZE", 1000)
    text = "é✓漢" * 700  # multi-byte characters across the reads' ends
    cells = [code(text), code("x" * 5000), code("1")] * 3
    data = saved(notebook(cells))
    for purpose in ("clone", "publish"):
        assert outcome(check_notebook_stream, io.BytesIO(data), purpose) is None


def test_a_cell_larger_than_the_quick_checks_bound_gets_the_exact_check(monkeypatch):
    monkeypatch.setattr(quick_check, "READ_SIZE", 1000)
    monkeypatch.setattr(quick_check, "QUICK_MAX_PIECE", 4000)
    data = saved(notebook([code("1"), code("x" * 10_000)]))
    assert quick_outline(io.BytesIO(data).read) is None
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") is None


def chained(levels: int):
    """Lists nested ``levels`` deep, two members each, so that Jupyter's layout has a line
    ending in a comma at every level."""
    value: object = 1
    for _ in range(levels):
        value = [value, 1]
    return value


def stream(text: list) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


DISPLAY = {"output_type": "display_data", "data": {}, "metadata": {}}

#: Notebooks with cells far larger than a piece (as ``small_pieces`` sets it): text outputs
#: of many lines, brackets and quotes in them, nesting across the cuts, many outputs.
LONG_CELLS = [
    saved(notebook([code("1"), code("x", [stream(["line é ✓\n"] * 3000)]), code("2")])),
    saved(notebook([code("x", [stream(TRICKY * 300)] * 3), code("y", [stream(TRICKY)])])),
    saved(notebook([{**code("x"), "metadata": {"a": [{"b": [TRICKY] * 40}] * 20}}])),
    saved(notebook([{**code("x"), "source": chained(197)}])),  # the notebook's 200 levels
    saved(notebook([code("x", [DISPLAY] * 900)])),
]  # fmt: skip


@pytest.fixture
def small_pieces(monkeypatch):
    """Reads of 64 bytes, long cells checked in pieces of about 1,000 bytes (the lists nested
    200 deep take 20,000 bytes of indentation before their first comma); the pieces checked
    are counted."""
    monkeypatch.setattr(quick_check, "LAYOUT_SEARCH_SIZE", 256)
    monkeypatch.setattr(quick_check, "READ_SIZE", 64)
    monkeypatch.setattr(quick_check, "LONG_CELL_PIECE", 1000)
    monkeypatch.setattr(quick_check, "QUICK_MAX_PIECE", 40_000)
    pieces = []
    check = quick_check._check_long_piece

    def counted(*args):
        pieces.append(args[1:3])
        return check(*args)

    monkeypatch.setattr(quick_check, "_check_long_piece", counted)
    return pieces


def windows_line_ends(data: bytes) -> bytes:
    """The notebook saved with Windows line ends (a line feed in a string is escaped)."""
    return data.replace(b"\n", b"\r\n")


@pytest.mark.parametrize("line_ends", [lambda data: data, windows_line_ends])
@pytest.mark.parametrize("data", LONG_CELLS)
def test_a_long_cell_is_checked_quickly_in_pieces(data, line_ends, small_pieces, no_exact_check):
    data = line_ends(data)
    assert len(data) > 20 * quick_check.LONG_CELL_PIECE
    for purpose in ("clone", "publish"):
        expected = outcome(check_notebook_bytes, data, purpose)
        assert outcome(check_notebook_stream, io.BytesIO(data), purpose) == expected
    assert len(small_pieces) > 2 * len(data) // 2000


def long_cell_with(text: str) -> bytes:
    """A saved notebook whose long text output has, halfway, ``text`` (raw JSON) as a line."""
    lines = [f"line {index}\n" for index in range(600)]
    data = saved(notebook([code("x", [stream(lines)])]))
    return data.replace(b'"line 300\\n",', text.encode(), 1)


#: Damage that a piece valid where it stands would hide if its cut were not checked: a
#: comma before a closer, a member missing, a comma after an opener; a comma missing, more
#: closed than open; too deep across cuts.
DAMAGED_LONG_CELLS = [
    long_cell_with('"a",\n      ],\n      ['),
    long_cell_with('"a",\n      ,'),
    long_cell_with('"a",\n      [,\n 1],'),
    long_cell_with('"a"\n      "b",'),
    long_cell_with('"a"]],\n ['),
    saved(notebook([{**code("x"), "source": chained(198)}])),
]  # fmt: skip


def not_sure_wherever_cut(data: bytes, pieces: list) -> None:
    # Reads of other sizes cut the cell at other lines.
    for read_size in range(40, 120, 3):
        quick_check.READ_SIZE = read_size  # put back by small_pieces
        pieces.clear()
        assert quick_outline(io.BytesIO(data).read) is None, read_size
        assert pieces, read_size


@pytest.mark.parametrize("line_ends", [lambda data: data, windows_line_ends])
@pytest.mark.parametrize("data", DAMAGED_LONG_CELLS)
def test_a_damaged_long_cell_gets_the_exact_verdict_wherever_it_is_cut(
    data, line_ends, small_pieces
):
    data = line_ends(data)
    expected = outcome(check_notebook_exactly, io.BytesIO(data), "publish")
    assert expected is not None
    not_sure_wherever_cut(data, small_pieces)
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") == expected


@pytest.mark.parametrize(
    ("piece", "context", "still_open"),
    [
        (b'\n "a",\n "b"', [b"{", b"["], [b"{", b"["]),
        (b'\n "a": [\n "b"', [b"{"], [b"{", b"["]),
        (b'\n "b"\n ]\n }', [b"{", b"{", b"["], [b"{"]),
        (b'\n "b"\n ]\n }', [b"{", b"["], []),  # the cell's end
        (b'\n "\\"[{"', [b"{", b"["], [b"{", b"["]),  # brackets in a string
    ],
)
def test_a_piece_in_its_context_leaves_the_brackets_still_open(piece, context, still_open):
    data = bytearray(b"xx" + piece + b"yy")
    assert quick_check._check_long_piece(data, 2, len(data) - 2, context, 198) == still_open


@pytest.mark.parametrize(
    ("piece", "context"),
    [
        (b'\n ],\n "x"', [b"[", b"["]),  # a closer after the comma: "[[1,],2]" made valid
        (b"\n ", [b"{", b"["]),  # nothing between two commas
        (b'\n "a": [', [b"{"]),  # an opener before the comma: "[," made "[]"
        (b'\n "a": {', [b"{"]),
        (b'\n "a"]]', [b"{", b"["]),  # closed as another kind
        (b'\n "a"]}}', [b"{", b"["]),  # more closed than open
        (b'\n "a": ' + b"[" * 197, [b"{"]),  # deeper than the notebook's 200 levels
    ],
)
def test_a_piece_whose_added_brackets_would_hide_damage_is_not_sure(piece, context):
    data = bytearray(piece)
    try:
        still_open = quick_check._check_long_piece(data, 0, len(data), context, 198)
    except msgspec.MsgspecError:
        still_open = None
    assert still_open is None


def test_a_long_cell_that_ends_on_a_line_not_its_own_is_not_sure(small_pieces):
    lines = [f"line {index}\n" for index in range(600)]
    data = saved(notebook([code("x", [stream(lines)]), code("y")]))
    data = data.replace(b"\n  },\n  {", b"}, {", 1)  # still valid JSON, not the layout
    not_sure_wherever_cut(data, small_pieces)
    assert outcome(check_notebook_stream, io.BytesIO(data), "publish") is None


def test_the_quick_check_agrees_with_the_exact_one_on_damaged_long_cells(small_pieces):
    """Soundness of the pieces, as for whole cells below; with Windows line ends too."""
    base = saved(notebook([code("x", [stream(TRICKY * 20), stream(["é\n"] * 50)])]))
    assert len(base) > 4 * quick_check.LONG_CELL_PIECE
    # Most changes inside strings and whitespace leave a valid notebook: the quick check took
    # its share, so the assertions were put to it.
    assert quick_acceptances(base, 1500, seed=17) > 300
    assert quick_acceptances(windows_line_ends(base), 500, seed=18) > 100


@pytest.fixture
def largest_buffer(monkeypatch):
    """The most bytes the quick check's buffer held, in a list of one (updated as it reads)."""
    largest = [0]
    more = quick_check._Blocks.more

    def recorded(self, *args):
        grew = more(self, *args)
        largest[0] = max(largest[0], len(self.buffer))
        return grew

    monkeypatch.setattr(quick_check._Blocks, "more", recorded)
    return largest


def test_a_long_cells_memory_is_bounded_by_a_piece(monkeypatch, largest_buffer):
    monkeypatch.setattr(quick_check, "READ_SIZE", 10_000)
    monkeypatch.setattr(quick_check, "LONG_CELL_PIECE", 100_000)
    data = saved(notebook([code("x", [stream(["x" * 100 + "\n"] * 30_000)])]))
    assert len(data) > 3_000_000
    assert quick_outline(io.BytesIO(data).read) is not None
    assert largest_buffer[0] <= quick_check.LONG_CELL_PIECE + 3 * quick_check.READ_SIZE


def test_memory_is_flat_in_the_notebook_size(largest_buffer):
    """A 40 MB notebook of 400 cells: the buffer never holds more than two reads and a cell."""
    data = saved(notebook([code("x" * 100_000)] * 400))
    assert len(data) > 40_000_000
    assert quick_outline(io.BytesIO(data).read) is not None
    assert largest_buffer[0] <= 2 * quick_check.READ_SIZE + 100_100 + quick_check._LOOK_AHEAD


def mutations(data: bytes, count: int, seed: int):
    """``count`` copies of ``data``, each with one byte deleted, inserted or replaced, at
    random (the same each run): bytes that matter to JSON, to UTF-8 and to the layout."""
    alphabet = b'{}[]",:\\ \n\r\t0123456789.-+eEtrufalsnNI/\x00\x1f\x7f\xc3\xa9\xff'
    chance = random.Random(seed)
    for _ in range(count):
        at = chance.randrange(len(data))
        kind = chance.choice(("delete", "insert", "replace"))
        byte = bytes([chance.choice(alphabet)])
        if kind == "delete":
            yield data[:at] + data[at + 1 :]
        elif kind == "insert":
            yield data[:at] + byte + data[at:]
        else:
            yield data[:at] + byte + data[at + 1 :]


def quick_acceptances(base: bytes, count: int, seed: int) -> int:
    """Check ``count`` damaged copies of ``base``: whatever the quick check accepts is valid
    JSON, nested within the limit, with the verdict of the whole-file and the exact checks,
    and the stream check's verdict is always the exact one's. How many it accepted."""
    accepted = 0
    for data in mutations(base, count, seed):
        outline = quick_outline(io.BytesIO(data).read)
        expected = outcome(check_notebook_exactly, io.BytesIO(data), "publish")
        if outline is not None:
            accepted += 1
            value = json.loads(data.decode("utf-8"))
            assert not notebook_module._depth_exceeds(value, MAX_NOTEBOOK_DEPTH)
            verdict = outcome(notebook_module.check_notebook_value, outline, "publish")
            assert verdict == expected == outcome(check_notebook_bytes, data, "publish")
        assert outcome(check_notebook_stream, io.BytesIO(data), "publish") == expected
        assert_once_agrees(data, "publish", expected)
    return accepted


def assert_once_agrees(data: bytes, purpose: str, expected) -> bool:
    """``check_notebook_once`` of ``data`` as it arrives: a pass or a refusal is the exact
    check's verdict (``expected``); False leaves the verdict to the check of the copy."""
    try:
        passed = check_notebook_once(Arriving(data), purpose)
    except BookshelfError as error:
        assert (error.code, error.message) == expected
        return True
    if passed:
        assert expected is None
    return passed


class Arriving:
    """Bytes as a body brings them: each read gives what was asked, in one piece (as
    ``upload.NotebookCheckAsItArrives``), and cannot go back."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)

    def read(self, size: int = -1) -> bytes:
        size = len(self._data) if size < 0 else size
        piece, self._data = bytes(self._data[:size]), self._data[size:]
        return piece


@pytest.mark.parametrize("data", SAVED)
def test_a_saved_notebook_is_checked_quickly_as_it_arrives(data, no_exact_check):
    for purpose in ("clone", "publish"):
        assert assert_once_agrees(data, purpose, outcome(check_notebook_bytes, data, purpose))


@pytest.mark.parametrize("data", NOT_SURE)
def test_as_it_arrives_another_layout_gets_the_exact_check_and_not_sure_leaves_it_to_the_copy(
    data,
):
    expected = outcome(check_notebook_exactly, io.BytesIO(data), "clone")
    passed = assert_once_agrees(data, "clone", expected)
    if quick_check.in_jupyter_layout(data[: quick_check.LAYOUT_SEARCH_SIZE]):
        assert passed is False  # only the exact check of the copy can say
    elif not passed:
        assert expected is not None  # the exact check found the JSON or UTF-8 broken


def test_the_quick_check_agrees_with_the_exact_one_on_thousands_of_damaged_notebooks(monkeypatch):
    """Soundness: whatever the quick check accepts is valid JSON, nested within the limit,
    and gets the verdict the whole-file check and the exact check give."""
    stream = {"output_type": "stream", "name": "stdout"}
    cells = [code(text, [{**stream, "text": [text, "x"]}]) for text in TRICKY]
    base = saved(notebook(cells, metadata={"language_info": {"name": "python", "version": [3]}}))
    # Most changes inside strings and whitespace leave a valid notebook: the quick check took
    # its share, so the assertions were put to it.
    assert quick_acceptances(base, 3000, seed=15) > 600


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def random_value(chance: random.Random, level: int = 0):
    kind = chance.randrange(6 if level < 12 else 3)
    if kind == 0:
        return chance.choice(TRICKY + ["", "\\\\", '\\"'])
    if kind == 1:
        return chance.choice([0, -1.5, True, None, 1e10])
    if kind == 2:
        return chance.choice(["[", "]", "{", "}", '"]"', "\\"]) * chance.randrange(4)
    if kind == 3:
        return [random_value(chance, level + 1) for _ in range(chance.randrange(4))]
    return {
        chance.choice(TRICKY + ["k"]) + str(index): random_value(chance, level + 1)
        for index in range(chance.randrange(4))
    }


def test_nesting_counts_brackets_outside_strings_only():
    chance = random.Random(16)
    for _ in range(2000):
        value = random_value(chance)
        for ascii_only in (True, False):
            data = json.dumps(value, ensure_ascii=ascii_only).encode()
            assert quick_check._nesting(data) == depth(value), data


def test_check_publishable_file_hashes_each_byte_once_when_the_file_is_read_again(tmp_path):
    """A notebook the quick check is not sure of is read twice; the parts' MD5s are the file's."""
    data = json.dumps(notebook([code("x" * 3000) for _ in range(20)])).encode()  # compact
    path = tmp_path / "compact.ipynb"
    path.write_bytes(data)
    part = 10_000
    answer = check_publishable_file(str(path), part)
    expected = [hashlib.md5(data[i : i + part]).hexdigest() for i in range(0, len(data), part)]
    assert answer["size"] == len(data)
    assert answer["part_md5s"] == expected

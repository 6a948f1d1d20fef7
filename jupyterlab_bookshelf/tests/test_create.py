"""POST /api/bookshelf/create against a real Jupyter server: a clone's bytes saved and committed
in one request, checked on the way, and nothing left behind by any failure.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import urllib.parse

import pytest

from jupyterlab_bookshelf.server_access import notebook as notebook_module
from jupyterlab_bookshelf.server_access import quick_check

from .test_commit import files, post_commit, run, save, temporary  # noqa: F401 (fixtures)

NOTEBOOK = json.dumps(
    {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "raw", "source": "é", "metadata": {}}],
    }
).encode()
LARGE_NOTEBOOK = json.dumps(
    {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "raw", "source": "é" * 50_000, "metadata": {}}],
    },
    ensure_ascii=False,
).encode()


@pytest.fixture
def create(jp_fetch):
    """POST a create request: ``path``, ``target`` and options as the query, ``data`` the
    body; any status is returned."""

    def post(path, target, data: bytes, **query):
        params = {"path": path, "target": target, **query}
        return jp_fetch(
            "api",
            "bookshelf",
            "create",
            method="POST",
            params=params,
            body=data,
            headers={"Content-Type": "application/octet-stream"},
            raise_error=False,
        )

    return post


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def error(response) -> dict:
    return json.loads(response.body)


def test_saves_and_commits_in_one_request(run, create, jp_root_dir):
    data = b"a,b\n1,2\n" * 1000
    response = run(create(temporary("data.csv"), "data.csv", data, md5=md5(data)))
    assert response.code == 201
    model = json.loads(response.body)
    assert (model["path"], model["name"], model["type"]) == ("data.csv", "data.csv", "file")
    assert "content" not in model or model["content"] is None
    assert (jp_root_dir / "data.csv").read_bytes() == data
    assert files(jp_root_dir) == ["data.csv"]


def test_takes_the_next_free_name_in_a_folder(run, create, jp_root_dir):
    (jp_root_dir / "sub").mkdir()
    (jp_root_dir / "sub" / "q3.ipynb").write_bytes(b"mine")
    response = run(
        create(f"sub/{temporary('q3.ipynb')}", "sub/q3.ipynb", NOTEBOOK, check="notebook")
    )
    assert response.code == 201
    assert json.loads(response.body)["path"] == "sub/q3-1.ipynb"
    assert (jp_root_dir / "sub" / "q3.ipynb").read_bytes() == b"mine"
    assert (jp_root_dir / "sub" / "q3-1.ipynb").read_bytes() == NOTEBOOK
    assert files(jp_root_dir / "sub") == ["q3-1.ipynb", "q3.ipynb"]


def test_twenty_parallel_creates_and_commits_give_forty_files(
    run, create, post_commit, save, jp_root_dir
):
    # Twenty clones through this path race twenty through the save and commit.
    for n in range(20):
        run(save(temporary("q3.ipynb", 100 + n), NOTEBOOK))

    async def together():
        return await asyncio.gather(
            *(create(temporary("q3.ipynb", n), "q3.ipynb", NOTEBOOK) for n in range(20)),
            *(
                post_commit({"path": temporary("q3.ipynb", 100 + n), "target": "q3.ipynb"})
                for n in range(20)
            ),
        )

    responses = run(together())
    assert [response.code for response in responses] == [201] * 40
    paths = {json.loads(response.body)["path"] for response in responses}
    assert len(paths) == 40
    assert files(jp_root_dir) == sorted(paths)
    assert all((jp_root_dir / path).read_bytes() == NOTEBOOK for path in paths)


def test_a_body_damaged_on_the_way_is_refused_and_nothing_stays(run, create, jp_root_dir):
    data = b"x" * 300_000
    response = run(create(temporary("x.bin"), "x.bin", data[:-1] + b"y", md5=md5(data)))
    assert response.code == 502
    assert error(response)["code"] == "Corrupted"
    assert error(response)["reason"] == "checksum"
    assert (error(response)["expected"], error(response)["actual"]) == (
        md5(data),
        md5(data[:-1] + b"y"),
    )
    assert files(jp_root_dir) == []


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{"cells": [', "not valid JSON"),
        (b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "'cells' is missing"),
        (b"{\xff\xfe}", "not UTF-8"),
        ("\ufeff{}".encode("utf-16-le"), "UTF-16 text"),
        (b'{"a": "\xed\xa0\x80"}', "not UTF-8"),  # a surrogate, which yajl takes
    ],
)
def test_a_notebook_that_is_not_one_is_refused_and_nothing_stays(
    run, create, jp_root_dir, data, words
):
    response = run(create(temporary("n.ipynb"), "n.ipynb", data, md5=md5(data), check="notebook"))
    assert response.code == 400
    assert error(response)["code"] == "NotANotebook"
    assert words in error(response)["message"]
    assert files(jp_root_dir) == []


def test_a_notebook_loses_its_byte_order_mark_and_nothing_else(run, create, jp_root_dir):
    data = b"\xef\xbb\xbf" + NOTEBOOK
    # The MD5 is that of the object as it came, with its mark.
    response = run(create(temporary("n.ipynb"), "n.ipynb", data, md5=md5(data), check="notebook"))
    assert response.code == 201
    assert (jp_root_dir / "n.ipynb").read_bytes() == NOTEBOOK


def test_other_files_keep_every_byte(run, create, jp_root_dir):
    data = b"\xef\xbb\xbfname\r\n\x00\xff" + bytes(range(256))
    response = run(create(temporary("raw.txt"), "raw.txt", data, md5=md5(data)))
    assert response.code == 201
    assert (jp_root_dir / "raw.txt").read_bytes() == data


def test_an_old_notebook_is_kept_as_it_came(run, create, jp_root_dir):
    data = json.dumps(
        {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    ).encode()
    response = run(create(temporary("v3.ipynb"), "v3.ipynb", data, check="notebook"))
    assert response.code == 201
    assert (jp_root_dir / "v3.ipynb").read_bytes() == data


def test_an_empty_file_is_created(run, create, jp_root_dir):
    response = run(create(temporary("empty.txt"), "empty.txt", b"", md5=md5(b"")))
    assert response.code == 201
    assert (jp_root_dir / "empty.txt").read_bytes() == b""


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"path": "q3.ipynb"}, "path"),
        ({"path": f"sub/{temporary('q3.ipynb')}"}, "path"),
        ({"target": temporary("other.ipynb")}, "target"),
        ({"target": "../q3.ipynb"}, "target"),
        ({"target": "missing/q3.ipynb", "path": f"missing/{temporary('q3.ipynb')}"}, "target"),
        ({"target": ".hidden/q3.ipynb", "path": f".hidden/{temporary('q3.ipynb')}"}, "path"),
        ({"md5": "ABC"}, "md5"),
        ({"check": "csv"}, "check"),
    ],
)
def test_refuses_an_invalid_request_and_writes_nothing(run, create, jp_root_dir, change, field):
    (jp_root_dir / ".hidden").mkdir()
    request = {"path": temporary("q3.ipynb"), "target": "q3.ipynb", **change}
    path, target = request.pop("path"), request.pop("target")
    # A body large enough that it is still being sent when the refusal is known.
    response = run(create(path, target, NOTEBOOK * 2000, **request))
    assert response.code == 400
    assert error(response)["code"] == "InvalidRequest"
    assert error(response).get("field") == field
    assert files(jp_root_dir) == [".hidden"]
    assert files(jp_root_dir / ".hidden") == []


def test_never_writes_onto_an_existing_temporary_file(run, create, jp_root_dir):
    (jp_root_dir / temporary("q3.ipynb")).write_bytes(b"someone's")
    response = run(create(temporary("q3.ipynb"), "q3.ipynb", NOTEBOOK))
    assert response.code == 400
    assert error(response)["field"] == "path"
    assert (jp_root_dir / temporary("q3.ipynb")).read_bytes() == b"someone's"
    assert files(jp_root_dir) == [temporary("q3.ipynb")]


def test_without_a_token_is_refused(run, jp_fetch, jp_root_dir):
    response = run(
        jp_fetch(
            "api",
            "bookshelf",
            "create",
            method="POST",
            params={"path": temporary("q3.ipynb"), "target": "q3.ipynb"},
            body=NOTEBOOK,
            headers={"Authorization": ""},
            raise_error=False,
        )
    )
    assert response.code in (401, 403)
    assert files(jp_root_dir) == []


def test_asked_again_after_a_lost_answer_the_commit_path_gives_the_answer(
    run, create, post_commit, jp_root_dir
):
    first = run(create(temporary("q3.ipynb"), "q3.ipynb", NOTEBOOK))
    again = run(post_commit({"path": temporary("q3.ipynb"), "target": "q3.ipynb"}))
    assert again.code == 201
    assert json.loads(again.body)["path"] == json.loads(first.body)["path"] == "q3.ipynb"
    assert files(jp_root_dir) == ["q3.ipynb"]


async def send_part(port: int, serverapp, query: dict, total: int, part: bytes):
    """Start a create request of ``total`` bytes by hand and send ``part`` of its body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    url = f"{serverapp.base_url}api/bookshelf/create?{urllib.parse.urlencode(query)}"
    token = serverapp.identity_provider.token
    writer.write(
        (
            f"POST {url} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: token {token}\r\nContent-Length: {total}\r\n\r\n"
        ).encode()
        + part
    )
    await writer.drain()
    return reader, writer


async def wait_for(condition) -> None:
    for _ in range(300):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("waited in vain")


def test_a_body_cut_off_leaves_nothing(run, jp_fetch, jp_serverapp, jp_http_port, jp_root_dir):
    # jp_fetch: the server listens on jp_http_port only with it.
    async def cut_off() -> None:
        query = {"path": temporary("big.bin"), "target": "big.bin"}
        _, writer = await send_part(jp_http_port, jp_serverapp, query, 10**7, b"x" * 10**6)
        # The server writes what came, then the connection goes.
        await wait_for(lambda: files(jp_root_dir) == [temporary("big.bin")])
        writer.close()
        await wait_for(lambda: files(jp_root_dir) == [])

    run(cut_off())
    assert files(jp_root_dir) == []


def test_a_commit_asked_while_the_body_comes_waits_for_it(
    run, jp_fetch, jp_serverapp, jp_http_port, jp_root_dir, post_commit
):
    """A browser whose answer was lost asks the commit path: it must neither move a file not
    yet all there and checked, nor give another answer than the create's."""
    data = LARGE_NOTEBOOK

    async def together() -> None:
        query = {"path": temporary("n.ipynb"), "target": "n.ipynb", "check": "notebook"}
        reader, writer = await send_part(jp_http_port, jp_serverapp, query, len(data), data[:1000])
        await wait_for(lambda: files(jp_root_dir) == [temporary("n.ipynb")])
        asked = asyncio.ensure_future(
            post_commit({"path": temporary("n.ipynb"), "target": "n.ipynb"})
        )
        await asyncio.sleep(0.2)
        assert not asked.done()
        assert files(jp_root_dir) == [temporary("n.ipynb")]
        writer.write(data[1000:])
        await writer.drain()
        answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert answer.startswith(b"HTTP/1.1 201")
        response = await asked
        assert response.code == 201
        assert json.loads(response.body)["path"] == "n.ipynb"
        writer.close()

    run(together())
    assert files(jp_root_dir) == ["n.ipynb"]
    assert (jp_root_dir / "n.ipynb").read_bytes() == LARGE_NOTEBOOK


def test_a_commit_asked_while_the_body_comes_fails_with_it(
    run, jp_fetch, jp_serverapp, jp_http_port, jp_root_dir, post_commit
):
    async def together() -> None:
        query = {"path": temporary("n.ipynb"), "target": "n.ipynb", "check": "notebook"}
        _, writer = await send_part(jp_http_port, jp_serverapp, query, 10**6, b"{" * 1000)
        await wait_for(lambda: files(jp_root_dir) == [temporary("n.ipynb")])
        asked = asyncio.ensure_future(
            post_commit({"path": temporary("n.ipynb"), "target": "n.ipynb"})
        )
        await asyncio.sleep(0.1)
        writer.close()
        response = await asked
        assert response.code == 400
        assert "cut off" in json.loads(response.body)["message"]

    run(together())
    assert files(jp_root_dir) == []


def big_notebook(cells: int) -> bytes:
    """A notebook of many cells: many parser events, as real ones have."""
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "id": "c"}
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3"}},
            "cells": [{**cell, "source": [f"x = {n}\n", "print('ü', x)\n"]} for n in range(cells)],
        },
        ensure_ascii=False,
    ).encode()


def test_a_large_notebook_is_checked_as_it_arrives_and_kept_whole(run, create, jp_root_dir):
    data = b"\xef\xbb\xbf" + big_notebook(70_000)
    assert len(data) > 8 * 1024 * 1024
    response = run(
        create(temporary("big.ipynb"), "big.ipynb", data, md5=md5(data), check="notebook")
    )
    assert response.code == 201
    assert (jp_root_dir / "big.ipynb").read_bytes() == data[3:]
    assert files(jp_root_dir) == ["big.ipynb"]


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda data: data.replace(b'"nbformat": 4', b'"nbformat": 9', 1), "nbformat"),
        (lambda data: data.replace(b'"outputs"', b', "outputs"', 1), "not valid JSON"),
        (lambda data: data[: len(data) // 2] + b"\xff" + data[len(data) // 2 :], "not UTF-8"),
        (lambda data: data.replace(b"print", b"\xed\xa0\x80", 1), "not UTF-8"),
    ],
)
def test_a_large_body_that_is_not_a_notebook_is_refused_and_nothing_stays(
    run, create, jp_root_dir, damage, words
):
    data = damage(big_notebook(60_000))
    response = run(create(temporary("big.ipynb"), "big.ipynb", data, check="notebook"))
    assert response.code == 400
    assert error(response)["code"] == "NotANotebook"
    assert words in error(response)["message"]
    assert files(jp_root_dir) == []


def saved_as_jupyter_does(data: bytes) -> bytes:
    """The notebook ``data`` laid out as Jupyter saves it (``nbformat.writes``)."""
    return (json.dumps(json.loads(data), indent=1, sort_keys=True, ensure_ascii=False)).encode()


def large_output_notebook() -> bytes:
    """A notebook as Jupyter saves it, with a text output of 12 MB: its cell is checked in
    pieces."""
    notebook = json.loads(big_notebook(100))
    lines = [f"line {n} ü ✓\n" for n in range(700_000)]
    notebook["cells"][50]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": lines}]
    return saved_as_jupyter_does(json.dumps(notebook).encode())


def test_a_notebook_as_jupyter_saves_it_gets_the_quick_check_as_it_arrives(
    run, create, jp_root_dir, monkeypatch
):
    def refuse(read):
        raise AssertionError("the exact check was used")

    monkeypatch.setattr(notebook_module, "_events", refuse)
    data = large_output_notebook()
    assert len(data) > 12_000_000
    response = run(create(temporary("big.ipynb"), "big.ipynb", data, check="notebook"))
    assert response.code == 201
    assert (jp_root_dir / "big.ipynb").read_bytes() == data
    assert files(jp_root_dir) == ["big.ipynb"]


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda data: data.replace(b'"nbformat": 4', b'"nbformat": 9', 1), "nbformat"),
        (lambda data: data.replace(b'"line 9 ', b'"line 9 ",', 1), "not valid JSON"),
        (lambda data: data.replace(b"line 9 ", b"line 9 \xff", 1), "not UTF-8"),
        (lambda data: data.replace(b"line 99 ", b"line 99 \xed\xa0\x80", 1), "not UTF-8"),
    ],
)
def test_a_notebook_as_jupyter_saves_it_that_is_not_one_is_refused_and_nothing_stays(
    run, create, jp_root_dir, damage, words
):
    data = damage(large_output_notebook())
    response = run(create(temporary("big.ipynb"), "big.ipynb", data, check="notebook"))
    assert response.code == 400
    assert error(response)["code"] == "NotANotebook"
    assert words in error(response)["message"]
    assert files(jp_root_dir) == []


def test_a_notebook_the_quick_check_is_not_sure_of_gets_the_exact_check_of_the_copy(
    run, create, jp_root_dir
):
    # A lone surrogate escape: valid JSON (JSON.parse takes it), which msgspec refuses.
    data = saved_as_jupyter_does(big_notebook(1000)).replace(b"x = 7", b"x = \\ud800", 1)
    assert quick_check.in_jupyter_layout(data)
    assert quick_check.quick_outline(io.BytesIO(data).read) is None
    response = run(create(temporary("n.ipynb"), "n.ipynb", data, check="notebook"))
    assert response.code == 201
    assert (jp_root_dir / "n.ipynb").read_bytes() == data


def test_an_empty_notebook_is_refused_at_once(run, create, jp_root_dir):
    async def in_time():
        return await asyncio.wait_for(
            create(temporary("empty.ipynb"), "empty.ipynb", b"", check="notebook"), 10
        )

    response = run(in_time())
    assert response.code == 400
    assert error(response)["code"] == "NotANotebook"
    assert files(jp_root_dir) == []


def test_the_check_as_the_body_arrives_reads_whole_pieces_not_the_networks(monkeypatch):
    """The notebook check reads the body in the sizes it asks for, gathered from the network's
    small pieces: the parser scans a token cut by a read's end again with every later read."""
    from jupyterlab_bookshelf import upload as upload_module

    sizes = []

    def check(file, purpose):
        while chunk := file.read(1024 * 1024):
            sizes.append(len(chunk))
        return True

    monkeypatch.setattr(upload_module, "check_notebook_once", check)
    arriving = upload_module.NotebookCheckAsItArrives()

    async def feed():
        for _ in range(40):
            await arriving.put(b"x" * 64 * 1024)
        return await arriving.result()

    assert asyncio.run(feed()) is True
    assert sizes == [1024 * 1024, 1024 * 1024, 512 * 1024]

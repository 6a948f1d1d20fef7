"""POST /api/bookshelf/commit against a real Jupyter server: the temporary
file moves to the first free name, atomically, whoever else writes.

Requests run on the server's event loop (``jp_asyncio_loop``), as in
test_routes.py; requests sent together with ``asyncio.gather`` overlap on
the server, whose commits run in threads.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import hashlib
import json
import os

import pytest

from jupyterlab_bookshelf.commit import PARTIAL_SUFFIX


@pytest.fixture
def run(jp_asyncio_loop):
    """Run a coroutine on the server's loop."""
    return jp_asyncio_loop.run_until_complete


@pytest.fixture
def post_commit(jp_fetch):
    """POST a commit request (a dict, or raw bytes); any status is returned."""

    def post(body, **kwargs):
        data = body if isinstance(body, bytes) else json.dumps(body)
        return jp_fetch(
            "api", "bookshelf", "commit", method="POST", body=data, raise_error=False, **kwargs
        )

    return post


@pytest.fixture
def save(jp_fetch):
    """Save a file through the contents API, as the browser's upload does."""

    def put(path, data: bytes):
        model = {"type": "file", "format": "base64", "content": base64.b64encode(data).decode()}
        return jp_fetch("api", "contents", path, method="PUT", body=json.dumps(model))

    return put


def temporary(name: str, n: int = 0) -> str:
    return f"{name}.{n:016x}{PARTIAL_SUFFIX}"


def files(folder) -> list[str]:
    return sorted(os.listdir(folder))


def test_commits_to_the_name_and_answers_the_model(run, post_commit, save, jp_root_dir):
    (jp_root_dir / "work").mkdir()
    run(save("work/" + temporary("q3.ipynb"), b'{"cells": []}'))
    response = run(
        post_commit({"path": "work/" + temporary("q3.ipynb"), "target": "work/q3.ipynb"})
    )
    assert response.code == 201
    model = json.loads(response.body)
    assert model["path"] == "work/q3.ipynb"
    assert model["name"] == "q3.ipynb"
    assert model["content"] is None
    assert model["type"] == "notebook"
    assert response.headers["Location"].endswith("/api/contents/work/q3.ipynb")
    assert files(jp_root_dir / "work") == ["q3.ipynb"]
    assert (jp_root_dir / "work" / "q3.ipynb").read_bytes() == b'{"cells": []}'


def test_tells_the_contents_listeners_of_the_move(run, post_commit, save, jp_serverapp):
    cm = jp_serverapp.contents_manager
    events = []

    async def listener(logger, schema_id, data):
        events.append(dict(data))

    cm.event_logger.add_listener(schema_id=cm.event_schema_id, listener=listener)
    run(save(temporary("q3.ipynb"), b"{}"))
    events.clear()
    assert run(post_commit({"path": temporary("q3.ipynb"), "target": "q3.ipynb"})).code == 201
    run(asyncio.sleep(0.1))  # listeners run as tasks
    assert {"action": "rename", "path": "q3.ipynb", "source_path": temporary("q3.ipynb")} in [
        {key: event.get(key) for key in ("action", "path", "source_path")} for event in events
    ]


def test_a_name_with_a_backslash_is_a_name(run, post_commit, save, jp_root_dir):
    # As jupyter_server saves it on POSIX, where a backslash separates nothing.
    run(save(temporary("a\\b.ipynb"), b"{}"))
    response = run(post_commit({"path": temporary("a\\b.ipynb"), "target": "a\\b.ipynb"}))
    assert response.code == 201
    assert files(jp_root_dir) == ["a\\b.ipynb"]


def test_takes_the_next_free_name_and_keeps_the_file_there(run, post_commit, save, jp_root_dir):
    (jp_root_dir / "data.tar.gz").write_bytes(b"already here")
    (jp_root_dir / "data-1.tar.gz").write_bytes(b"and here")
    run(save(temporary("data.tar.gz"), b"new"))
    response = run(post_commit({"path": temporary("data.tar.gz"), "target": "data.tar.gz"}))
    assert response.code == 201
    assert json.loads(response.body)["path"] == "data-2.tar.gz"
    assert (jp_root_dir / "data.tar.gz").read_bytes() == b"already here"
    assert (jp_root_dir / "data-1.tar.gz").read_bytes() == b"and here"
    assert (jp_root_dir / "data-2.tar.gz").read_bytes() == b"new"


async def commit_together(post_commit, temporaries, target):
    responses = await asyncio.gather(
        *(post_commit({"path": path, "target": target}) for path in temporaries)
    )
    assert [response.code for response in responses] == [201] * len(temporaries)
    return [json.loads(response.body)["path"] for response in responses]


def check_twenty_commits(run, post_commit, save, root):
    """20 commits of 20 temporary files onto one name: 20 distinct files with
    their own bytes, the file there unchanged, no temporary file left."""
    (root / "shared").mkdir()
    (root / "shared" / "q3.ipynb").write_bytes(b"already here")
    temporaries = [f"shared/{temporary('q3.ipynb', n)}" for n in range(20)]
    for n, path in enumerate(temporaries):
        run(save(path, f"clone {n}".encode()))
    paths = run(commit_together(post_commit, temporaries, "shared/q3.ipynb"))
    assert sorted(paths) == sorted(f"shared/q3-{n}.ipynb" for n in range(1, 21))
    for n, path in enumerate(paths):
        assert (root / path).read_bytes() == f"clone {n}".encode(), path
    assert (root / "shared" / "q3.ipynb").read_bytes() == b"already here"
    assert [name for name in files(root / "shared") if name.endswith(PARTIAL_SUFFIX)] == []
    # Checkpoints (.ipynb_checkpoints) aside.
    assert len([name for name in files(root / "shared") if not name.startswith(".")]) == 21


def test_twenty_parallel_commits_give_twenty_files(run, post_commit, save, jp_root_dir):
    check_twenty_commits(run, post_commit, save, jp_root_dir)


def test_without_hard_links_claims_the_name_with_o_excl(
    run, post_commit, save, jp_root_dir, monkeypatch
):
    def no_link(*args, **kwargs):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    check_twenty_commits(run, post_commit, save, jp_root_dir)


def test_a_save_of_a_candidate_name_is_never_replaced(run, post_commit, save, jp_root_dir):
    # Commits and plain saves of the names the commits will try, all at once.
    temporaries = [temporary("race.txt", n) for n in range(20)]
    for n, path in enumerate(temporaries):
        run(save(path, f"commit {n}".encode()))
    saved = ["race.txt"] + [f"race-{n}.txt" for n in range(1, 20, 2)]

    async def together():
        saves = [save(name, f"save {name}".encode()) for name in saved]
        return await asyncio.gather(commit_together(post_commit, temporaries, "race.txt"), *saves)

    committed, *_ = run(together())
    for name in saved:
        # A save always writes: a commit never lands on top of it.
        assert (jp_root_dir / name).read_bytes() == f"save {name}".encode(), name
    assert len(set(committed)) == 20
    for n, path in enumerate(committed):
        if path not in saved:
            assert (jp_root_dir / path).read_bytes() == f"commit {n}".encode(), path
    assert [name for name in files(jp_root_dir) if name.endswith(PARTIAL_SUFFIX)] == []


def test_asked_again_after_a_lost_answer_gives_the_same_answer(run, post_commit, save, jp_root_dir):
    run(save(temporary("q3.ipynb"), b"{}"))
    request = {"path": temporary("q3.ipynb"), "target": "q3.ipynb"}
    first = run(post_commit(request))
    again = run(post_commit(request))
    assert (first.code, again.code) == (201, 201)
    assert json.loads(again.body)["path"] == json.loads(first.body)["path"] == "q3.ipynb"
    assert files(jp_root_dir) == ["q3.ipynb"]


def test_asked_again_while_it_runs_gives_the_same_answer(run, post_commit, save, jp_root_dir):
    run(save(temporary("q3.ipynb"), b"{}"))
    request = {"path": temporary("q3.ipynb"), "target": "q3.ipynb"}
    paths = run(commit_together(post_commit, [request["path"]] * 5, request["target"]))
    assert paths == ["q3.ipynb"] * 5
    assert files(jp_root_dir) == ["q3.ipynb"]


@pytest.mark.parametrize(
    "body, field",
    [
        (b"not json", None),
        ([], None),
        ({"target": "q3.ipynb"}, "path"),
        ({"path": temporary("q3.ipynb")}, "target"),
        ({"path": temporary("q3.ipynb"), "target": 3}, "target"),
        ({"path": temporary("q3.ipynb"), "target": "/q3.ipynb"}, "target"),
        ({"path": "../" + temporary("q3.ipynb"), "target": "../q3.ipynb"}, "path"),
        ({"path": "work/" + temporary("q3.ipynb"), "target": "work/../../q3.ipynb"}, "target"),
        ({"path": temporary("q3.ipynb"), "target": "q3\x07.ipynb"}, "target"),
        ({"path": temporary("q3.ipynb"), "target": ".q3.ipynb"}, "target"),
        ({"path": ".hidden/" + temporary("q3.ipynb"), "target": ".hidden/q3.ipynb"}, "path"),
        ({"path": temporary("q3.ipynb"), "target": "q3.ipynb/"}, "target"),
        ({"path": "q3.ipynb.tmp", "target": "q3.ipynb"}, "path"),
        ({"path": "work/" + temporary("q3.ipynb"), "target": "q3.ipynb"}, "path"),
        ({"path": temporary("q3.ipynb"), "target": temporary("q4.ipynb")}, "target"),
        ({"path": "missing/" + temporary("q3.ipynb"), "target": "missing/q3.ipynb"}, "target"),
    ],
)
def test_refuses_an_invalid_request_with_400(run, post_commit, save, jp_root_dir, body, field):
    (jp_root_dir / "work").mkdir()
    run(save(temporary("q3.ipynb"), b"{}"))
    run(save("work/" + temporary("q3.ipynb"), b"{}"))
    response = run(post_commit(body))
    assert response.code == 400
    error = json.loads(response.body)
    assert error["code"] == "InvalidRequest"
    assert error.get("field") == field
    assert "Traceback" not in error["message"]
    # Nothing moved.
    assert files(jp_root_dir) == sorted([temporary("q3.ipynb"), "work"])


def test_refuses_a_link_named_like_a_temporary_file(run, post_commit, jp_root_dir, tmp_path):
    (tmp_path / "secret").write_text("outside the root")
    os.symlink(tmp_path / "secret", jp_root_dir / temporary("q3.ipynb"))
    response = run(post_commit({"path": temporary("q3.ipynb"), "target": "q3.ipynb"}))
    assert response.code == 400
    assert json.loads(response.body)["field"] == "path"
    assert not (jp_root_dir / "q3.ipynb").exists()


def test_a_missing_temporary_file_is_404(run, post_commit):
    response = run(post_commit({"path": temporary("q3.ipynb"), "target": "q3.ipynb"}))
    assert response.code == 404
    assert json.loads(response.body) == {
        "code": "ReadFailed",
        "message": "path: the temporary file does not exist (removed, or committed already).",
        "field": "path",
    }


def test_no_free_name_is_409(run, post_commit, save, jp_root_dir):
    # Taken, and every increment would be longer than a file name may be.
    name = "n" * 249 + ".ipynb"
    (jp_root_dir / name).write_text("already here")
    run(save(temporary("n.ipynb"), b"{}"))
    response = run(post_commit({"path": temporary("n.ipynb"), "target": name}))
    assert response.code == 409
    error = json.loads(response.body)
    assert error["code"] == "Conflict"
    assert "No free name was found" in error["message"]
    assert (jp_root_dir / name).read_text() == "already here"
    assert (jp_root_dir / temporary("n.ipynb")).exists()


def test_without_a_token_is_refused(run, post_commit, save, jp_root_dir):
    run(save(temporary("q3.ipynb"), b"{}"))
    response = run(
        post_commit(
            {"path": temporary("q3.ipynb"), "target": "q3.ipynb"}, headers={"Authorization": ""}
        )
    )
    assert response.code in (401, 403)
    assert files(jp_root_dir) == [temporary("q3.ipynb")]


def test_a_cookie_without_the_xsrf_token_is_refused(
    run, jp_fetch, jp_serverapp, post_commit, save, jp_root_dir
):
    run(save(temporary("q3.ipynb"), b"{}"))
    # A browser's login: the session cookie, then a POST with it alone, as a
    # page of another site would send it.
    login = run(
        jp_fetch("login", headers={"Authorization": ""}, raise_error=False, follow_redirects=False)
    )
    cookies = login.headers.get_list("Set-Cookie")
    xsrf = next(cookie.split(";")[0] for cookie in cookies if cookie.startswith("_xsrf="))
    logged_in = run(
        jp_fetch(
            "login",
            method="POST",
            body=f"password={jp_serverapp.identity_provider.token}&{xsrf}",
            headers={"Authorization": "", "Cookie": xsrf},
            raise_error=False,
            follow_redirects=False,
        )
    )
    session = [cookie.split(";")[0] for cookie in logged_in.headers.get_list("Set-Cookie")]
    assert any(cookie.startswith("username-") for cookie in session), session
    cookie = "; ".join(session + [xsrf])
    refused = run(
        post_commit(
            {"path": temporary("q3.ipynb"), "target": "q3.ipynb"},
            headers={"Authorization": "", "Cookie": cookie},
        )
    )
    assert refused.code == 403
    assert files(jp_root_dir) == [temporary("q3.ipynb")]
    accepted = run(
        post_commit(
            {"path": temporary("q3.ipynb"), "target": "q3.ipynb"},
            headers={
                "Authorization": "",
                "Cookie": cookie,
                "X-XSRFToken": xsrf.split("=", 1)[1],
            },
        )
    )
    assert accepted.code == 201
    assert files(jp_root_dir) == ["q3.ipynb"]


def test_a_listing_while_clones_commit_never_fails(run, post_commit, save, jp_fetch, jp_root_dir):
    """The file browser lists the folder while clones arrive there. The server lists a folder
    by reading each name, and answers 404 for the whole folder when a name goes away between
    the two (as a temporary file does at its commit): temporary files are left out of listings,
    so that never happens, and a person never sees them."""
    (jp_root_dir / "inbox").mkdir()
    failures: list[int] = []

    async def listing() -> list[str]:
        response = await jp_fetch("api", "contents", "inbox", raise_error=False)
        if response.code != 200:
            failures.append(response.code)
            return []
        return [item["name"] for item in json.loads(response.body)["content"]]

    async def clone(n: int) -> None:
        await save("inbox/" + temporary("data.csv", n), b"a,b\n1,2\n")
        response = await post_commit(
            {"path": "inbox/" + temporary("data.csv", n), "target": "inbox/data.csv"}
        )
        assert response.code == 201

    async def round_(start: int) -> list[list[str]]:
        clones = [clone(start + n) for n in range(5)]
        listings = [listing() for _ in range(15)]
        results = await asyncio.gather(*clones, *listings)
        return [names for names in results if names is not None]

    seen: list[list[str]] = []
    for start in range(0, 100, 5):
        seen += run(round_(start))
    assert failures == []
    assert not [names for names in seen if any(n.endswith(PARTIAL_SUFFIX) for n in names)]
    names = files(jp_root_dir / "inbox")
    assert len([name for name in names if name.startswith("data")]) == 100
    assert [name for name in names if name.endswith(PARTIAL_SUFFIX)] == []


# POST /api/bookshelf/check: a streamed clone's notebook, checked on disk before its commit


@pytest.fixture
def post_check(jp_fetch):
    def post(body):
        return jp_fetch(
            "api", "bookshelf", "check", method="POST", body=json.dumps(body), raise_error=False
        )

    return post


NOTEBOOK_V4 = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
NOTEBOOK_V3 = {"metadata": {}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": []}]}


@pytest.mark.parametrize("notebook", [NOTEBOOK_V4, NOTEBOOK_V3])
def test_check_passes_a_notebook(run, post_check, save, jp_root_dir, notebook):
    data = json.dumps({**notebook, "cells": [{"x": "y" * 100000}] * 20}).encode()
    run(save(temporary("big.ipynb"), data))
    response = run(post_check({"path": temporary("big.ipynb"), "check": "notebook"}))
    assert response.code == 200
    assert json.loads(response.body) == {"checked": "notebook"}
    # Checked, not moved or changed.
    assert (jp_root_dir / temporary("big.ipynb")).read_bytes() == data


@pytest.mark.parametrize(
    "data, words",
    [
        (b'{"cells": [', "not valid JSON"),
        (json.dumps({"cells": []}).encode(), "nbformat"),
        (json.dumps({**NOTEBOOK_V4, "nbformat": 5}).encode(), "nbformat"),
        (b"\x80\xff not text", "not UTF-8"),
        ("\ufeff{}".encode("utf-16-le"), "UTF-16 text"),
    ],
)
def test_check_refuses_what_is_not_a_notebook(run, post_check, save, jp_root_dir, data, words):
    run(save(temporary("bad.ipynb"), data))
    response = run(post_check({"path": temporary("bad.ipynb"), "check": "notebook"}))
    assert response.code == 400
    reply = json.loads(response.body)
    assert reply["code"] == "NotANotebook"
    assert reply["message"].startswith("The object is not a Jupyter notebook: ")
    assert words in reply["message"]
    # The browser removes it; the check leaves it as it is.
    assert (jp_root_dir / temporary("bad.ipynb")).read_bytes() == data


@pytest.mark.parametrize(
    "body, field",
    [
        (None, None),
        ({"path": temporary("a.ipynb")}, "check"),
        ({"path": temporary("a.ipynb"), "check": "text"}, "check"),
        ({"path": "a.ipynb", "check": "notebook"}, "path"),
        ({"path": "../" + temporary("a.ipynb"), "check": "notebook"}, "path"),
        ({"path": 7, "check": "notebook"}, "path"),
    ],
)
def test_check_refuses_an_invalid_request(run, post_check, body, field):
    response = run(post_check(body))
    assert response.code == 400
    reply = json.loads(response.body)
    assert reply["code"] == "InvalidRequest"
    assert reply.get("field") == field


def test_check_of_a_missing_file_is_404(run, post_check):
    response = run(post_check({"path": temporary("gone.ipynb"), "check": "notebook"}))
    assert response.code == 404
    assert json.loads(response.body)["code"] == "ReadFailed"


# The publish's check: a saved notebook the browser uploads in parts meanwhile

PART = 5 * 1024 * 1024


def multipart_etag_from_s3(data: bytes, part_size: int) -> str:
    """The ETag an S3 implementation (moto, in this process) gives ``data`` uploaded in parts
    of ``part_size``."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="parts")
        upload = s3.create_multipart_upload(Bucket="parts", Key="nb.ipynb")["UploadId"]
        parts = []
        for number, start in enumerate(range(0, len(data), part_size), 1):
            answer = s3.upload_part(
                Bucket="parts",
                Key="nb.ipynb",
                UploadId=upload,
                PartNumber=number,
                Body=data[start : start + part_size],
            )
            parts.append({"PartNumber": number, "ETag": answer["ETag"]})
        done = s3.complete_multipart_upload(
            Bucket="parts", Key="nb.ipynb", UploadId=upload, MultipartUpload={"Parts": parts}
        )
        return done["ETag"]


@pytest.mark.parametrize("extra", [0, 1, PART - 1])
def test_publish_check_answers_the_size_and_multipart_etag(run, post_check, save, extra):
    cells = [{"cell_type": "raw", "metadata": {}, "source": "x" * 1000}] * 11000
    data = json.dumps({**NOTEBOOK_V4, "cells": cells}).encode()
    data = data[:-1] + b" " * extra + b"}\n"
    run(save("big.ipynb", data))
    response = run(
        post_check(
            {"path": "big.ipynb", "check": "notebook", "purpose": "publish", "part_size": PART}
        )
    )
    assert response.code == 200
    reply = json.loads(response.body)
    assert reply == {
        "checked": "notebook",
        "size": len(data),
        "etag": multipart_etag_from_s3(data, PART),
        "part_md5s": [
            hashlib.md5(data[start : start + PART]).hexdigest()
            for start in range(0, len(data), PART)
        ],
    }


def test_publish_check_applies_the_publish_rules(run, post_check, save):
    run(save("old.ipynb", json.dumps(NOTEBOOK_V3).encode()))
    body = {"path": "old.ipynb", "check": "notebook", "purpose": "publish", "part_size": PART}
    response = run(post_check(body))
    assert response.code == 400
    reply = json.loads(response.body)
    assert reply["code"] == "NotANotebook"
    assert "nbformat" in reply["message"]


def test_publish_check_streams_each_part_md5_then_the_answer(run, post_check, save):
    cells = [{"cell_type": "raw", "metadata": {}, "source": "x" * 1000}] * 16000
    data = json.dumps({**NOTEBOOK_V4, "cells": cells}).encode()
    run(save("big.ipynb", data))
    body = {"path": "big.ipynb", "check": "notebook", "purpose": "publish", "part_size": PART}
    response = run(post_check({**body, "stream": True}))
    assert response.code == 200
    assert response.headers["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in response.body.decode().splitlines()]
    md5s = [
        hashlib.md5(data[start : start + PART]).hexdigest() for start in range(0, len(data), PART)
    ]
    assert len(md5s) == 4
    # A line for each whole part (the last one is short), then the answer of a plain check.
    assert lines[:-1] == [{"part": n, "md5": md5} for n, md5 in enumerate(md5s[:-1], 1)]
    plain = json.loads(run(post_check(body)).body)
    assert (
        lines[-1]
        == plain
        == {
            "checked": "notebook",
            "size": len(data),
            "etag": f'"{hashlib.md5(b"".join(bytes.fromhex(m) for m in md5s)).hexdigest()}-4"',
            "part_md5s": md5s,
        }
    )


def test_a_streamed_publish_check_ends_with_the_error(run, post_check, save):
    # Right for its first parts, wrong at its end: the parts went, and the error comes last.
    data = json.dumps({**NOTEBOOK_V4, "cells": [{"x": "y" * 1000}] * 12000}).encode()
    data = data.replace(b'"nbformat": 4', b'"nbformat": 4 ').rstrip(b"}") + b', "cells": 5}'
    run(save("bad.ipynb", data))
    body = {"path": "bad.ipynb", "check": "notebook", "purpose": "publish", "part_size": PART}
    response = run(post_check({**body, "stream": True}))
    assert response.code == 200
    lines = [json.loads(line) for line in response.body.decode().splitlines()]
    assert [line["part"] for line in lines[:-1]] == [1, 2]
    assert lines[-1]["error"]["code"] == "NotANotebook"
    assert "cells" in lines[-1]["error"]["message"]
    # The same error as a plain check's.
    assert json.loads(run(post_check(body)).body)["message"] == lines[-1]["error"]["message"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"path": "a.txt"}, "path"),
        ({"purpose": "print"}, "purpose"),
        ({"part_size": None}, "part_size"),
        ({"part_size": 1024}, "part_size"),
        ({"part_size": True}, "part_size"),
        ({"part_size": "8388608"}, "part_size"),
    ],
)
def test_publish_check_refuses_an_invalid_request(run, post_check, change, field):
    body = {"path": "a.ipynb", "check": "notebook", "purpose": "publish", "part_size": PART}
    response = run(post_check({**body, **change}))
    assert response.code == 400
    reply = json.loads(response.body)
    assert reply["code"] == "InvalidRequest"
    assert reply.get("field") == field

"""Server-side clone through the HTTP API of a real Jupyter server, from a real S3 server (moto).

Every test checks the file tree afterwards: the file has the object's bytes, and no temporary
file (``*.bookshelf-partial``) is left, also after a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from jupyterlab_bookshelf.errors import error_codes
from jupyterlab_bookshelf.validation import validate_clone_request

from .s3_servers import (  # noqa: F401  (fixtures)
    admin_settings,
    api,
    aws_env,
    fault_proxy,
    jp_server_config,
    lab_dirs,
    moto,
    moto_client,
    reply,
    server_access,
    unique,
    write_settings,
)

CLONE_PATHS = [("api", "bookshelf", "clone"), ("api", "bookshelf", "cloned")]
SHARED = json.loads((Path(__file__).parent / "clone_request_cases.json").read_text())


def notebook(nbformat=4, text="hello"):
    if nbformat == 3:
        return {
            "nbformat": 3,
            "nbformat_minor": 0,
            "metadata": {},
            "worksheets": [{"cells": [{"cell_type": "markdown", "source": text}]}],
        }
    return {
        "nbformat": nbformat,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": text}],
    }


def notebook_bytes(**kwargs) -> bytes:
    return (json.dumps(notebook(**kwargs), indent=1) + "\n").encode()


def tree(root: Path) -> list[str]:
    """Every file below the root, relative, sorted."""
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def no_partials(root: Path) -> bool:
    return not any(name.endswith(".bookshelf-partial") for name in tree(root))


def assert_error(response, status, code, field=None):
    assert response.code == status, response.body
    assert response.headers["Content-Type"].startswith("application/json")
    body = reply(response)
    assert body["code"] == code
    assert error_codes()[code]["status"] == status or code == "NotConfigured"
    assert isinstance(body["message"], str) and body["message"]
    assert "Traceback" not in body["message"]
    if field is not None:
        assert body.get("field") == field
    return body


@pytest.fixture
def put_object(moto_client):
    def put(bucket, key, body: bytes, **extra):
        return moto_client.put_object(Bucket=bucket, Key=key, Body=body, **extra)

    return put


# Mode


def test_info_reports_server_access_on(api):
    assert reply(api("api", "bookshelf"))["server_access"] is True


@pytest.mark.parametrize("server_access", [False])
@pytest.mark.parametrize("path", CLONE_PATHS)
def test_without_server_access_clone_is_501_with_the_link(api, path, jp_root_dir):
    assert reply(api("api", "bookshelf"))["server_access"] is False
    response = api(*path, method="POST", body={"s3_bucket": "examples", "s3_key": "intro.ipynb"})
    body = assert_error(response, 501, "NotConfigured")
    assert body["clone_url"].endswith("bookshelf/clone?s3_bucket=examples&s3_key=intro.ipynb")
    assert tree(jp_root_dir) == []


# Clone


@pytest.mark.parametrize("path", CLONE_PATHS)
def test_clones_a_notebook_byte_for_byte(api, path, moto_client, jp_root_dir):
    response = api(*path, method="POST", body={"s3_bucket": "examples", "s3_key": "intro.ipynb"})
    assert response.code == 201, response.body
    model = reply(response)
    assert model["path"] == "intro.ipynb"
    assert model["type"] == "notebook"
    assert model["content"] is None
    assert response.headers["Location"].endswith("/api/contents/intro.ipynb")
    expected = moto_client.get_object(Bucket="examples", Key="intro.ipynb")["Body"].read()
    assert (jp_root_dir / "intro.ipynb").read_bytes() == expected
    assert tree(jp_root_dir) == ["intro.ipynb"]


def test_clones_again_under_the_next_free_name(api, jp_root_dir):
    (jp_root_dir / "work").mkdir()
    (jp_root_dir / "work" / "q3.ipynb").write_text("mine")
    request = {"s3_bucket": "examples", "s3_key": "reports/2026/q3.ipynb", "target_path": "work/"}
    first = api("api", "bookshelf", "clone", method="POST", body=request)
    second = api("api", "bookshelf", "clone", method="POST", body=request)
    assert [reply(first)["path"], reply(second)["path"]] == ["work/q3-1.ipynb", "work/q3-2.ipynb"]
    assert (jp_root_dir / "work" / "q3.ipynb").read_text() == "mine"
    assert tree(jp_root_dir) == ["work/q3-1.ipynb", "work/q3-2.ipynb", "work/q3.ipynb"]


def test_a_target_path_names_the_file(api, jp_root_dir, moto_client):
    (jp_root_dir / "work").mkdir()
    request = {"s3_bucket": "examples", "s3_key": "data/logo.png", "target_path": "work/pic.png"}
    response = api("api", "bookshelf", "clone", method="POST", body=request)
    assert reply(response)["path"] == "work/pic.png"
    expected = moto_client.get_object(Bucket="examples", Key="data/logo.png")["Body"].read()
    assert (jp_root_dir / "work" / "pic.png").read_bytes() == expected


def test_a_target_path_without_slash_naming_a_folder_is_that_folder(api, jp_root_dir):
    (jp_root_dir / "work").mkdir()
    request = {"s3_bucket": "examples", "s3_key": "data/readme.txt", "target_path": "work"}
    response = api("api", "bookshelf", "clone", method="POST", body=request)
    assert reply(response)["path"] == "work/readme.txt"


def test_a_missing_target_folder_is_400_and_nothing_is_written(api, jp_root_dir):
    request = {"s3_bucket": "examples", "s3_key": "intro.ipynb", "target_path": "nowhere/"}
    response = api("api", "bookshelf", "clone", method="POST", body=request)
    body = assert_error(response, 400, "InvalidRequest", "target_path")
    assert "'nowhere' does not exist" in body["message"]
    assert tree(jp_root_dir) == []


def test_a_version_is_cloned(api, moto, moto_client, jp_root_dir):
    versions = moto.version_ids["versioned-examples/history.ipynb"]
    request = {
        "s3_bucket": "versioned-examples",
        "s3_key": "history.ipynb",
        "s3_version_id": versions[0],
    }
    response = api("api", "bookshelf", "clone", method="POST", body=request)
    assert response.code == 201
    old = moto_client.get_object(
        Bucket="versioned-examples", Key="history.ipynb", VersionId=versions[0]
    )["Body"].read()
    latest = moto_client.get_object(Bucket="versioned-examples", Key="history.ipynb")["Body"].read()
    assert old != latest
    assert (jp_root_dir / "history.ipynb").read_bytes() == old


def test_nbformat_3_is_kept_as_it_came_and_a_bom_is_dropped(api, put_object, unique, jp_root_dir):
    v3 = notebook_bytes(nbformat=3)
    put_object("examples", unique + "old.ipynb", v3)
    put_object("examples", unique + "bom.ipynb", b"\xef\xbb\xbf" + notebook_bytes())
    for key in ("old.ipynb", "bom.ipynb"):
        response = api(
            "api", "bookshelf", "clone", method="POST",
            body={"s3_bucket": "examples", "s3_key": unique + key},
        )  # fmt: skip
        assert response.code == 201, response.body
    assert (jp_root_dir / "old.ipynb").read_bytes() == v3
    assert (jp_root_dir / "bom.ipynb").read_bytes() == notebook_bytes()


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"not json", "it is not valid JSON (error at line 1, column 1)."),
        (b"{\xff\xfe}", "it is not UTF-8 text."),
        (
            "\ufeff{}".encode("utf-16-le"),
            "it is UTF-16 text (it starts with a UTF-16 byte order mark), which Jupyter cannot "
            "read: save it as UTF-8.",
        ),
        (b"[1]", "it is JSON, but not an object."),
        (json.dumps(notebook(nbformat=5)).encode(), "'nbformat' is 5; only version 3 and 4"),
        (json.dumps({"nbformat": 4, "metadata": {}}).encode(), "'nbformat_minor' is missing."),
        (b"[" * 300 + b"]" * 300, "nested more than 200 levels deep"),
    ],
)
def test_not_a_notebook_is_400_and_nothing_is_written(
    api, put_object, unique, jp_root_dir, content, reason
):
    put_object("examples", unique + "bad.ipynb", content)
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "bad.ipynb"},
    )  # fmt: skip
    body = assert_error(response, 400, "NotANotebook")
    assert body["message"].startswith("The object is not a Jupyter notebook: ")
    assert reason in body["message"]
    assert tree(jp_root_dir) == []


def test_other_objects_are_saved_as_their_bytes(api, put_object, unique, jp_root_dir):
    data = bytes(range(256)) * 100
    put_object("examples", unique + "blob.bin", data)
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "blob.bin"},
    )  # fmt: skip
    assert response.code == 201
    assert (jp_root_dir / "blob.bin").read_bytes() == data


def test_over_the_size_limit_is_413_before_downloading(
    api, write_settings, put_object, unique, jp_root_dir
):
    write_settings(maxObjectSizeMB=0.01)  # 10485 bytes
    put_object("examples", unique + "big.bin", b"x" * 10486)
    put_object("examples", unique + "fits.bin", b"x" * 10485)
    big = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "big.bin"},
    )  # fmt: skip
    body = assert_error(big, 413, "TooLarge")
    assert body["message"] == (
        "The object is 0.0 MB (10486 bytes), more than the limit of 0.01 MB; ask an "
        "administrator to raise the maxObjectSizeMB setting."
    )
    fits = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "fits.bin"},
    )  # fmt: skip
    assert fits.code == 201
    assert tree(jp_root_dir) == ["fits.bin"]


# The shared rule cases, through the API


@pytest.mark.parametrize("case", SHARED["requests"], ids=[c["name"] for c in SHARED["requests"]])
def test_the_shared_request_cases_through_the_api(api, case, jp_root_dir):
    response = api("api", "bookshelf", "clone", method="POST", body=json.dumps(case["request"]))
    if case["problems"]:
        body = assert_error(response, 400, "InvalidRequest", case["problems"][0][0])
        assert [[e["field"], e["message"]] for e in body["errors"]] == case["problems"]
    else:
        # Valid: S3 is asked (these objects are not in moto, or the target folder is not).
        assert response.code != 400 or reply(response)["field"] == "target_path", response.body
    assert no_partials(jp_root_dir)


@pytest.mark.parametrize(
    "case", SHARED["allowed_buckets"], ids=[c["name"] for c in SHARED["allowed_buckets"]]
)
def test_the_shared_allowed_bucket_cases_through_the_api(api, write_settings, case):
    write_settings(allowedBuckets=case["patterns"])
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": case["bucket"], "s3_key": "intro.ipynb"},
    )  # fmt: skip
    if validate_clone_request({"s3_bucket": case["bucket"], "s3_key": "intro.ipynb"}):
        # Not a bucket name S3 allows: refused before the allowed buckets are looked at.
        assert_error(response, 400, "InvalidRequest", "s3_bucket")
    elif case["allowed"]:
        assert response.code != 403, response.body
    else:
        assert_error(response, 403, "BucketNotAllowed", "s3_bucket")


# Errors


@pytest.mark.parametrize(
    "request_, status, code",
    [
        ({"s3_bucket": "no-such-bucket", "s3_key": "a.ipynb"}, 404, "NoSuchBucket"),
        ({"s3_bucket": "examples", "s3_key": "missing.ipynb"}, 404, "NoSuchKey"),
        (
            {"s3_bucket": "versioned-examples", "s3_key": "history.ipynb", "s3_version_id": "x1"},
            404,
            "NoSuchVersion",
        ),
        ({"s3_bucket": "denied", "s3_key": "intro.ipynb"}, 403, "AccessDenied"),
    ],
)
def test_s3_errors_have_their_status(api, request_, status, code, jp_root_dir):
    response = api("api", "bookshelf", "clone", method="POST", body=request_)
    body = assert_error(response, status, code)
    assert "demo-secret" not in json.dumps(body)
    assert tree(jp_root_dir) == []


def test_an_unreachable_s3_service_is_502(api, write_settings, jp_root_dir):
    with __import__("socket").socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    write_settings(endpointUrl=f"http://127.0.0.1:{port}")
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": "intro.ipynb"},
    )  # fmt: skip
    body = assert_error(response, 502, "Unreachable")
    assert f"127.0.0.1:{port}" in body["message"]
    assert tree(jp_root_dir) == []


@pytest.fixture
def faults(fault_proxy, write_settings):
    """Route S3 through the fault proxy; ``add(rule)`` breaks requests."""
    import urllib.request

    def control(method, path, body=None):
        request = urllib.request.Request(
            fault_proxy.url + "/__fault_proxy__/" + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            return json.loads(answer.read() or b"null")

    control("DELETE", "rules")
    write_settings(endpointUrl=fault_proxy.url)

    class Faults:
        @staticmethod
        def add(rule):
            return control("POST", "rules", rule)

        @staticmethod
        def rules():
            return control("GET", "rules")["rules"]

    yield Faults
    control("DELETE", "rules")


def test_slow_down_after_retries_is_503(api, faults, jp_root_dir, unique):
    faults.add({"method": "GET", "path": "/examples/intro.ipynb", "times": 0,
                "fault": {"type": "status", "status": 503, "code": "SlowDown"}})  # fmt: skip
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": "intro.ipynb"},
    )  # fmt: skip
    assert_error(response, 503, "SlowDown")
    assert faults.rules()[0]["applied"] >= 3  # retried before giving up
    assert tree(jp_root_dir) == []


def test_a_server_failure_is_502(api, faults, jp_root_dir):
    faults.add({"method": "GET", "path": "/examples/intro.ipynb", "times": 0,
                "fault": {"type": "status", "status": 500}})  # fmt: skip
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": "intro.ipynb"},
    )  # fmt: skip
    assert_error(response, 502, "ServerError")
    assert tree(jp_root_dir) == []


def test_a_damaged_download_is_read_again(api, faults, moto_client, jp_root_dir):
    faults.add({"method": "GET", "path": "/examples/intro.ipynb", "times": 1,
                "fault": {"type": "corrupt", "offset": 10}})  # fmt: skip
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": "intro.ipynb"},
    )  # fmt: skip
    assert response.code == 201, response.body
    expected = moto_client.get_object(Bucket="examples", Key="intro.ipynb")["Body"].read()
    assert (jp_root_dir / "intro.ipynb").read_bytes() == expected
    assert faults.rules()[0]["applied"] == 1


def test_a_download_damaged_every_time_is_502_corrupted(api, faults, jp_root_dir):
    faults.add({"method": "GET", "path": "/examples/intro.ipynb", "times": 0,
                "fault": {"type": "truncate", "keep": 100}})  # fmt: skip
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": "intro.ipynb"},
    )  # fmt: skip
    assert_error(response, 502, "Corrupted")
    assert faults.rules()[0]["applied"] == 3
    assert tree(jp_root_dir) == []


def clone_cut_off(api, faults, put_object, key, times):
    """Clone a notebook of 3 MiB whose download the connection's close cuts after its first
    MiB, ``times`` times (0: every time); the response and the notebook's bytes."""
    data = notebook_bytes(text="x" * (3 * 1024 * 1024))
    put_object("examples", key, data)
    faults.add({"method": "GET", "path": f"/examples/{key}", "times": times,
                "fault": {"type": "drop", "after": 1024 * 1024}})  # fmt: skip
    response = api(
        "api", "bookshelf", "clone", method="POST", body={"s3_bucket": "examples", "s3_key": key}
    )  # fmt: skip
    return response, data


def test_a_download_cut_off_once_is_read_again_whole(api, faults, put_object, unique, jp_root_dir):
    response, data = clone_cut_off(api, faults, put_object, unique + "cut.ipynb", times=1)
    assert response.code == 201, response.body
    assert faults.rules()[0]["applied"] == 1
    assert tree(jp_root_dir) == ["cut.ipynb"]
    assert (jp_root_dir / "cut.ipynb").read_bytes() == data


def test_a_download_cut_off_every_time_is_502_and_nothing_is_written(
    api, faults, put_object, unique, jp_root_dir
):
    response, _ = clone_cut_off(api, faults, put_object, unique + "cut.ipynb", times=0)
    body = assert_error(response, 502, "Interrupted")
    assert body["message"].endswith("was interrupted; it still was after retries.")
    assert faults.rules()[0]["applied"] == 3  # DOWNLOAD_ATTEMPTS
    assert tree(jp_root_dir) == []


def test_a_download_whose_answer_never_comes_is_502_interrupted(
    api, faults, put_object, unique, jp_root_dir
):
    # The connection closes before the answer's head, every time.
    put_object("examples", unique + "silent.ipynb", notebook_bytes())
    faults.add({"method": "GET", "path": f"/examples/{unique}silent.ipynb", "times": 0,
                "fault": {"type": "drop", "head": False}})  # fmt: skip
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "silent.ipynb"},
    )  # fmt: skip
    body = assert_error(response, 502, "Interrupted")
    assert "was lost during the transfer of s3://examples/" in body["message"]
    assert tree(jp_root_dir) == []


def test_no_free_name_is_409(api, put_object, unique, jp_root_dir):
    # Taken, and every increment would be longer than a file name may be.
    name = "n" * 249 + ".ipynb"
    (jp_root_dir / name).write_text("mine")
    put_object("examples", unique + name, notebook_bytes())
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + name},
    )  # fmt: skip
    assert_error(response, 409, "Conflict")
    assert tree(jp_root_dir) == [name]


def test_errors_never_show_a_traceback_or_a_secret(api, jp_root_dir):
    response = api("api", "bookshelf", "clone", method="POST", body="{not json")
    assert_error(response, 400, "InvalidRequest", "request")


# Racing


def test_twenty_parallel_clones_give_twenty_files(jp_fetch, jp_asyncio_loop, api, jp_root_dir):
    api("api", "bookshelf")  # the settings are read
    request = json.dumps({"s3_bucket": "examples", "s3_key": "reports/2026/q3.ipynb"})

    async def race():
        return await asyncio.gather(
            *[jp_fetch("api", "bookshelf", "clone", method="POST", body=request) for _ in range(20)]
        )

    responses = jp_asyncio_loop.run_until_complete(race())
    assert [r.code for r in responses] == [201] * 20
    paths = sorted(reply(r)["path"] for r in responses)
    expected = sorted(["q3.ipynb"] + [f"q3-{n}.ipynb" for n in range(1, 20)])
    assert paths == expected
    assert tree(jp_root_dir) == expected  # 0 lost, nothing else
    contents = {(jp_root_dir / path).read_bytes() for path in paths}
    assert len(contents) == 1 and len(next(iter(contents))) > 100


def test_the_server_answers_other_requests_during_a_clone(
    api, faults, jp_fetch, jp_asyncio_loop, put_object, unique, jp_root_dir
):
    """A slow transfer runs in a thread: the event loop answers meanwhile.

    The transfer takes about 4 s. A transfer on the event loop would hold every other request
    for most of it; here each is answered in a fraction of it. The figure users care about (the
    slowest answer during a 1 GB clone, 11 ms when last measured, 200 ms the target) is measured
    by bench/server_side.py on a quiet machine: this test shares the 2 cores with other workers,
    and one answer took 0.38 s in a CI run with nothing wrong in the server.
    """
    data = os.urandom(1024 * 1024)
    put_object("examples", unique + "slow.bin", data)
    faults.add({"method": "GET", "path": f"/examples/{unique}slow.bin", "times": 1,
                "fault": {"type": "throttle", "bytes_per_second": 256 * 1024}})  # fmt: skip
    api("api", "bookshelf")

    async def during():
        loop = asyncio.get_running_loop()
        clone = asyncio.ensure_future(
            jp_fetch(
                "api", "bookshelf", "clone", method="POST",
                body=json.dumps({"s3_bucket": "examples", "s3_key": unique + "slow.bin"}),
            )
        )  # fmt: skip
        await asyncio.sleep(0.3)
        slowest = 0.0
        answered = 0
        while not clone.done():
            start = loop.time()
            await jp_fetch("api", "contents")
            slowest = max(slowest, loop.time() - start)
            answered += 1
            await asyncio.sleep(0.05)
        return await clone, slowest, answered

    response, slowest, answered = jp_asyncio_loop.run_until_complete(during())
    assert response.code == 201
    assert answered >= 10  # every 50 ms plus its answer, through about 4 s
    assert slowest < 1.0  # a quarter of the transfer
    assert (jp_root_dir / "slow.bin").read_bytes() == data


NAMING = json.loads((Path(__file__).parent / "naming_cases.json").read_text())["cases"]
# The cases a clone can meet: names that are not hidden, with few enough taken names.
CLONABLE_NAMING = [case for case in NAMING if not case["name"].startswith(".") and case["n"] <= 12]


@pytest.mark.parametrize(
    "case", CLONABLE_NAMING, ids=[f"{c['name']}-{c['n']}" for c in CLONABLE_NAMING]
)
def test_the_shared_naming_cases_through_the_api(api, put_object, unique, jp_root_dir, case):
    from jupyterlab_bookshelf.commit import increment_name

    folder = jp_root_dir / "f"
    folder.mkdir()
    for n in range(case["n"]):
        (folder / increment_name(case["name"], n)).write_text("taken")
    put_object("examples", unique + case["name"], notebook_bytes())
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + case["name"], "target_path": "f/"},
    )  # fmt: skip
    assert response.code == 201, response.body
    assert reply(response)["path"] == "f/" + case["expected"]
    assert (folder / case["expected"]).read_bytes() == notebook_bytes()
    assert len(list(folder.iterdir())) == case["n"] + 1


@pytest.mark.parametrize(
    "failure, status, code",
    [
        (RuntimeError("secret internals /srv/path"), 500, "Unknown"),
        (OSError(28, "No space left on device", "/srv/path/secret internals"), 500, "SaveFailed"),
    ],
)
def test_an_unexpected_failure_has_no_traceback(
    api, monkeypatch, jp_root_dir, failure, status, code
):
    from jupyterlab_bookshelf import routes

    async def broken(*args, **kwargs):
        raise failure

    monkeypatch.setattr(routes, "server_clone", broken)
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": "intro.ipynb"},
    )  # fmt: skip
    body = assert_error(response, status, code)
    assert "secret internals" not in response.body.decode()
    assert "Traceback" not in response.body.decode()
    if code == "SaveFailed":
        assert "No space left on device" in body["message"]

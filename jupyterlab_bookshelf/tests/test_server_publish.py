"""Server-side publish through the HTTP API of a real Jupyter server, to a real S3 server
(moto, which honours conditional writes; the published bucket is versioned). Every test reads
S3 back afterwards."""

from __future__ import annotations

import base64
import json
import threading
import zlib
from urllib.parse import parse_qsl, urlsplit

import pytest

from .s3_servers import (  # noqa: F401  (fixtures)
    admin_settings,
    api,
    aws_env,
    fault_proxy,
    jp_server_config,
    lab_dirs,
    moto,
    moto_client,
    publish_puts,
    reply,
    server_access,
    unique,
    write_settings,
)
from .test_server_clone import assert_error, faults, notebook, notebook_bytes  # noqa: F401

PUBLISH_PATHS = [("api", "bookshelf", "published"), ("api", "bookshelf", "publish")]


def objects(client, bucket, prefix):
    listing = client.list_object_versions(Bucket=bucket, Prefix=prefix)
    return [(v["Key"], v["VersionId"]) for v in listing.get("Versions", [])]


def read(client, key, bucket="published"):
    return client.get_object(Bucket=bucket, Key=key)["Body"].read()


@pytest.fixture
def saved(jp_root_dir):
    """Save a notebook file in the tree; returns its bytes."""

    def save(path, data=None):
        data = notebook_bytes() if data is None else data
        target = jp_root_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return data

    return save


@pytest.mark.parametrize("server_access", [False])
def test_without_server_access_publish_is_501(api, moto_client, unique, saved):
    saved(unique + "a.ipynb")
    for path in PUBLISH_PATHS:
        response = api(*path, unique + "a.ipynb", method="PUT", body="")
        body = assert_error(response, 501, "NotConfigured")
        assert body["path"] == unique + "a.ipynb"
    assert objects(moto_client, "published", "notebooks/" + unique) == []


@pytest.mark.parametrize("path", PUBLISH_PATHS)
def test_publishes_the_saved_file_as_it_is(api, path, moto_client, unique, saved):
    data = saved(unique + "report.ipynb", notebook_bytes(text="the saved one"))
    response = api(*path, unique + "report.ipynb", method="PUT", body="")
    assert response.code == 201, response.body
    result = reply(response)
    key = f"notebooks/{unique}report.ipynb"
    assert result["s3_path"] == f"s3://published/{key}"
    head = moto_client.head_object(Bucket="published", Key=key)
    assert result["version_id"] == head["VersionId"]
    assert result["etag"] == head["ETag"]
    assert head["ContentType"] == "application/x-ipynb+json"
    assert read(moto_client, key) == data
    assert result["clone_url"].startswith("http://")
    assert result["clone_url"].endswith(
        "/bookshelf/clone?s3_bucket=published&s3_key="
        + f"notebooks%2F{unique.replace('/', '%2F')}report.ipynb"
        + f"&s3_version_id={head['VersionId']}"
    )


def test_behind_a_proxy_that_ends_tls_the_clone_link_is_the_callers_https_one(
    api, moto_client, unique, saved
):
    # A proxy in front: TLS ends there, the request comes on in plain HTTP for the upstream's
    # host (this server refuses other Host names), and the proxy says what the caller used.
    data = saved(unique + "behind.ipynb")
    headers = {"X-Forwarded-Host": "lab.example.org", "X-Forwarded-Proto": "https"}
    response = api(
        "api", "bookshelf", "published", unique + "behind.ipynb", method="PUT", body="",
        headers=headers,
    )  # fmt: skip
    assert response.code == 201, response.body
    key = f"notebooks/{unique}behind.ipynb"
    link = urlsplit(reply(response)["clone_url"])
    assert (link.scheme, link.netloc) == ("https", "lab.example.org")
    assert link.path.endswith("/bookshelf/clone")
    assert dict(parse_qsl(link.query))["s3_key"] == key
    assert read(moto_client, key) == data


def test_publishes_the_notebook_of_the_body(api, moto_client, unique):
    content = notebook(text="from the body")
    response = api(
        "api", "bookshelf", "published", unique + "b.ipynb", method="PUT",
        body={"type": "notebook", "content": content},
    )  # fmt: skip
    assert response.code == 201, response.body
    published = read(moto_client, f"notebooks/{unique}b.ipynb")
    assert json.loads(published) == content
    assert published.endswith(b"\n")


def test_another_destination_from_the_query(api, moto_client, unique, saved):
    saved(unique + "c.ipynb")
    response = api(
        "api", "bookshelf", "published", unique + "c.ipynb", method="PUT", body="",
        params={"to": unique + "elsewhere/final.ipynb"},
    )  # fmt: skip
    assert response.code == 201, response.body
    assert reply(response)["s3_path"] == f"s3://published/notebooks/{unique}elsewhere/final.ipynb"
    assert objects(moto_client, "published", f"notebooks/{unique}c.ipynb") == []


@pytest.mark.parametrize(
    "data, reason",
    [
        (notebook_bytes(nbformat=3), "'nbformat' is 3; open the notebook in Jupyter and save it"),
        (b"{}", "'nbformat' is missing."),
        (b"nope", "it is not valid JSON"),
        # Jupyter's reader refuses a byte order mark: said as such, not as bad JSON.
        (
            b"\xef\xbb\xbf" + notebook_bytes(),
            "it starts with a byte order mark (U+FEFF), which Jupyter cannot read",
        ),
    ],
)
def test_only_version_4_notebooks_are_published(api, moto_client, unique, saved, data, reason):
    saved(unique + "d.ipynb", data)
    response = api("api", "bookshelf", "published", unique + "d.ipynb", method="PUT", body="")
    body = assert_error(response, 400, "NotANotebook")
    assert reason in body["message"]
    assert objects(moto_client, "published", "notebooks/" + unique) == []


def test_a_missing_file_is_404(api, unique):
    response = api("api", "bookshelf", "published", unique + "none.ipynb", method="PUT", body="")
    assert_error(response, 404, "ReadFailed", "path")


def test_not_a_notebook_path_is_refused(api, unique, saved):
    saved(unique + "e.txt", b"text")
    response = api("api", "bookshelf", "published", unique + "e.txt", method="PUT", body="")
    assert_error(response, 400, "NotANotebook", "path")


def test_publishing_not_set_up_is_400(api, write_settings, unique, saved):
    write_settings(publishBucket="")
    saved(unique + "f.ipynb")
    response = api("api", "bookshelf", "published", unique + "f.ipynb", method="PUT", body="")
    assert_error(response, 400, "PublishNotConfigured")


def test_a_bad_destination_is_400(api, unique, saved, moto_client):
    saved(unique + "g.ipynb")
    response = api(
        "api", "bookshelf", "published", unique + "g.ipynb", method="PUT",
        body={"to": unique + "../x.ipynb"},
    )  # fmt: skip
    body = assert_error(response, 400, "InvalidRequest", "to")
    assert "'..' segment" in body["message"]
    assert objects(moto_client, "published", "notebooks/") == [] or all(
        not key.endswith("x.ipynb") for key, _ in objects(moto_client, "published", "notebooks/")
    )


def test_a_denied_bucket_is_403(api, write_settings, unique, saved):
    write_settings(publishBucket="denied", overwritePolicy="always")
    saved(unique + "h.ipynb")
    response = api("api", "bookshelf", "published", unique + "h.ipynb", method="PUT", body="")
    assert_error(response, 403, "AccessDenied")


# Overwrite policies


def publish(api, path, **body):
    return api("api", "bookshelf", "published", path, method="PUT", body=body or "")


def test_confirm_refuses_until_confirmed_then_replaces_what_was_seen(
    api, moto_client, unique, saved
):
    key = f"notebooks/{unique}i.ipynb"
    saved(unique + "i.ipynb", notebook_bytes(text="one"))
    assert publish(api, unique + "i.ipynb").code == 201
    saved(unique + "i.ipynb", notebook_bytes(text="two"))
    assert_error(publish(api, unique + "i.ipynb"), 409, "Conflict")
    assert read(moto_client, key) == notebook_bytes(text="one")
    replaced = publish(api, unique + "i.ipynb", overwrite=True)
    assert replaced.code == 200, replaced.body
    assert read(moto_client, key) == notebook_bytes(text="two")
    assert len(objects(moto_client, "published", key)) == 2


def test_confirm_with_an_old_etag_is_412(api, moto_client, unique, saved):
    key = f"notebooks/{unique}j.ipynb"
    saved(unique + "j.ipynb", notebook_bytes(text="one"))
    seen = reply(publish(api, unique + "j.ipynb"))["etag"]
    # Someone else publishes meanwhile.
    moto_client.put_object(Bucket="published", Key=key, Body=notebook_bytes(text="theirs"))
    saved(unique + "j.ipynb", notebook_bytes(text="mine"))
    response = publish(api, unique + "j.ipynb", overwrite=True, if_match=seen)
    body = assert_error(response, 412, "PreconditionFailed")
    assert "changed by someone else" in body["message"]
    assert read(moto_client, key) == notebook_bytes(text="theirs")


def test_412_when_the_object_changed_and_409_when_the_name_is_taken_are_told_apart(
    api, moto_client, unique, saved
):
    """The two refusals of an overwrite, side by side on one key: 412 PreconditionFailed when
    the ETag the caller saw is no longer the object's (someone published meanwhile), 409
    Conflict when the caller did not ask to replace an existing object. Each is the body of its
    code in errors.json, with nothing else in it (no traceback, no key of the server's); the
    current ETag then replaces the object."""
    from s3_fixture import DEMO_ACCESS_KEY, DEMO_SECRET_KEY

    key = f"notebooks/{unique}contrast.ipynb"
    saved(unique + "contrast.ipynb", notebook_bytes(text="one"))
    seen = reply(publish(api, unique + "contrast.ipynb"))["etag"]
    theirs = moto_client.put_object(Bucket="published", Key=key, Body=notebook_bytes(text="theirs"))
    saved(unique + "contrast.ipynb", notebook_bytes(text="mine"))

    changed = publish(api, unique + "contrast.ipynb", overwrite=True, if_match=seen)
    taken = publish(api, unique + "contrast.ipynb")
    bodies = {
        412: assert_error(changed, 412, "PreconditionFailed"),
        409: assert_error(taken, 409, "Conflict"),
    }
    for response, body in ((changed, bodies[412]), (taken, bodies[409])):
        assert set(body) == {"code", "message"}, body
        text = response.body.decode()
        for leak in ("Traceback", 'File "', DEMO_SECRET_KEY, DEMO_ACCESS_KEY, "botocore"):
            assert leak not in text, (leak, text)
    assert "changed by someone else" in bodies[412]["message"]
    assert "changed by someone else" not in bodies[409]["message"]
    assert bodies[409]["message"] != bodies[412]["message"]
    # Neither touched S3.
    assert read(moto_client, key) == notebook_bytes(text="theirs")
    assert len(objects(moto_client, "published", key)) == 2

    # With the ETag the object has now, the same request replaces it.
    replaced = publish(api, unique + "contrast.ipynb", overwrite=True, if_match=theirs["ETag"])
    assert replaced.code == 200, replaced.body
    assert reply(replaced)["etag"] != theirs["ETag"]
    assert read(moto_client, key) == notebook_bytes(text="mine")
    assert len(objects(moto_client, "published", key)) == 3


def test_never_refuses_an_existing_object(api, write_settings, moto_client, unique, saved):
    write_settings(overwritePolicy="never")
    key = f"notebooks/{unique}k.ipynb"
    saved(unique + "k.ipynb", notebook_bytes(text="one"))
    assert publish(api, unique + "k.ipynb").code == 201
    saved(unique + "k.ipynb", notebook_bytes(text="two"))
    body = assert_error(publish(api, unique + "k.ipynb", overwrite=True), 409, "Conflict")
    assert "'never'" in body["message"]
    assert read(moto_client, key) == notebook_bytes(text="one")
    assert len(objects(moto_client, "published", key)) == 1


def test_always_replaces(api, write_settings, moto_client, unique, saved):
    write_settings(overwritePolicy="always")
    key = f"notebooks/{unique}l.ipynb"
    saved(unique + "l.ipynb", notebook_bytes(text="one"))
    assert publish(api, unique + "l.ipynb").code == 201
    saved(unique + "l.ipynb", notebook_bytes(text="two"))
    assert publish(api, unique + "l.ipynb").code == 200
    assert read(moto_client, key) == notebook_bytes(text="two")


@pytest.mark.parametrize("policy", ["confirm", "never", "always"])
def test_a_racing_writer_is_never_silently_overwritten(
    api, write_settings, moto_client, unique, saved, policy, monkeypatch
):
    """Another writer creates the object between the server's HEAD and its PUT: the
    create-only PUT (If-None-Match: *) is refused; under 'always' the publish then replaces
    their object, as the browser's does, and the versioned bucket keeps both."""
    from jupyterlab_bookshelf.server_access import publish as publish_module

    write_settings(overwritePolicy=policy)
    key = f"notebooks/{unique}race.ipynb"
    saved(unique + "race.ipynb", notebook_bytes(text="mine"))
    real_head = publish_module._head_etag
    raced = threading.Event()

    def head_then_race(client, bucket, key_):
        answer = real_head(client, bucket, key_)
        moto_client.put_object(Bucket=bucket, Key=key_, Body=notebook_bytes(text="theirs"))
        raced.set()
        return answer

    monkeypatch.setattr(publish_module, "_head_etag", head_then_race)
    response = publish(api, unique + "race.ipynb")
    assert raced.is_set()
    if policy == "always":
        assert_published(response, 200, moto_client, key, notebook_bytes(text="mine"), 2)
        return
    body = assert_error(response, 409, "Conflict")
    assert "created by someone else" in body["message"]
    assert read(moto_client, key) == notebook_bytes(text="theirs")
    assert len(objects(moto_client, "published", key)) == 1


def test_a_racing_writer_after_a_confirmed_head_is_412(
    api, moto_client, unique, saved, monkeypatch
):
    """confirm + overwrite: the PUT replaces only the ETag the HEAD found."""
    from jupyterlab_bookshelf.server_access import publish as publish_module

    key = f"notebooks/{unique}race2.ipynb"
    saved(unique + "race2.ipynb", notebook_bytes(text="one"))
    assert publish(api, unique + "race2.ipynb").code == 201
    real_head = publish_module._head_etag

    def head_then_race(client, bucket, key_):
        answer = real_head(client, bucket, key_)
        moto_client.put_object(Bucket=bucket, Key=key_, Body=notebook_bytes(text="theirs"))
        return answer

    monkeypatch.setattr(publish_module, "_head_etag", head_then_race)
    saved(unique + "race2.ipynb", notebook_bytes(text="mine"))
    assert_error(publish(api, unique + "race2.ipynb", overwrite=True), 412, "PreconditionFailed")
    assert read(moto_client, key) == notebook_bytes(text="theirs")


def test_the_clone_url_clones_what_was_published(api, unique, saved, jp_root_dir):
    data = saved(unique + "m.ipynb", notebook_bytes(text="round trip"))
    result = reply(publish(api, unique + "m.ipynb"))

    query = dict(parse_qsl(urlsplit(result["clone_url"]).query))
    response = api("api", "bookshelf", "clone", method="POST", body=query)
    assert response.code == 201, response.body
    assert (jp_root_dir / "m.ipynb").read_bytes() == data


@pytest.mark.parametrize(
    "name", ["a+b.ipynb", "what?.ipynb", "#1 report.ipynb", "100% done.ipynb", "Отчёт ✓.ipynb"]
)
def test_names_with_url_characters_publish_and_clone_back_byte_for_byte(
    api, moto_client, unique, saved, jp_root_dir, name
):
    # The path is escaped in the request's URL; the key is the name as it is; the clone link
    # carries it escaped, and cloning from it gives the same file under the same name.
    data = saved(f"{unique}in/{name}", notebook_bytes(text=name))
    response = publish(api, f"{unique}in/{name}")
    assert response.code == 201, response.body
    key = f"notebooks/{unique}in/{name}"
    assert reply(response)["s3_path"] == f"s3://published/{key}"
    assert read(moto_client, key) == data
    query = dict(parse_qsl(urlsplit(reply(response)["clone_url"]).query))
    assert query["s3_key"] == key
    (jp_root_dir / "out").mkdir()
    clone = api(
        "api", "bookshelf", "clone", method="POST", body={**query, "target_path": "out/"}
    )  # fmt: skip
    assert clone.code == 201, clone.body
    assert reply(clone)["path"] == f"out/{name}"
    assert (jp_root_dir / "out" / name).read_bytes() == data


def test_a_path_with_spaces_and_options_in_the_query(api, moto_client, unique, saved):
    key = f"notebooks/{unique}My Report.ipynb"
    saved(unique + "My Report.ipynb", notebook_bytes(text="one"))
    assert publish(api, unique + "My Report.ipynb").code == 201
    saved(unique + "My Report.ipynb", notebook_bytes(text="two"))
    response = api(
        "api", "bookshelf", "publish", unique + "My Report.ipynb", method="PUT", body="",
        params={"overwrite": "true"},
    )  # fmt: skip
    assert response.code == 200, response.body
    assert reply(response)["s3_path"] == f"s3://published/{key}"
    assert "s3_key=notebooks%2F" in reply(response)["clone_url"]
    assert "My%20Report.ipynb" in reply(response)["clone_url"]
    assert read(moto_client, key) == notebook_bytes(text="two")
    bad = api(
        "api", "bookshelf", "publish", unique + "My Report.ipynb", method="PUT", body="",
        params={"overwrite": "perhaps"},
    )  # fmt: skip
    assert_error(bad, 400, "InvalidRequest", "overwrite")


def big_notebook() -> bytes:
    return notebook_bytes(text="x" * (4 * 1024 * 1024))


@pytest.fixture
def save_during_upload(monkeypatch, jp_root_dir):
    """Once the upload has read its first bytes, the file is saved again (in place, or by an
    atomic replace as Jupyter saves); records how far the upload had read then."""
    from jupyterlab_bookshelf.server_access import publish as publish_module

    seen = {"path": None, "atomic": False, "read_when_saved": None}
    real_read = publish_module.UnchangedBody.read

    def read(self, size=-1):
        chunk = real_read(self, size)
        if seen["read_when_saved"] is None and chunk:
            seen["read_when_saved"] = self.tell()
            target = jp_root_dir / seen["path"]
            changed = notebook_bytes(text="changed")
            if seen["atomic"]:
                other = target.with_suffix(".tmp")
                other.write_bytes(changed)
                other.replace(target)
            else:
                with open(target, "r+b") as file:
                    file.write(changed)
        return chunk

    monkeypatch.setattr(publish_module.UnchangedBody, "read", read)
    return seen


@pytest.mark.parametrize("atomic", [False, True])
def test_a_notebook_saved_again_during_the_upload_stores_nothing(
    api, moto_client, unique, saved, save_during_upload, atomic
):
    data = saved(unique + "moving.ipynb", big_notebook())
    save_during_upload.update(path=unique + "moving.ipynb", atomic=atomic)
    body = assert_error(publish(api, unique + "moving.ipynb"), 409, "Conflict", "path")
    assert "was saved again while it was being published" in body["message"]
    # The upload had started: it was its end that was held back.
    assert 0 < save_during_upload["read_when_saved"] <= len(data) - 64 * 1024
    assert objects(moto_client, "published", f"notebooks/{unique}moving.ipynb") == []


@pytest.fixture
def slow_check(monkeypatch):
    """The notebook check takes 1 s (then passes, or fails with ``fail``); records how far the
    upload had read its body when the check ended."""
    from jupyterlab_bookshelf.errors import BookshelfError
    from jupyterlab_bookshelf.server_access import publish as publish_module

    seen = {"read_before_verdict": 0, "read_in_all": 0, "fail": False}
    real_read = publish_module.UnchangedBody.read

    def read(self, size=-1):
        chunk = real_read(self, size)
        seen["read_in_all"] += len(chunk)
        if not self._check.done():
            seen["read_before_verdict"] = self.tell()
        return chunk

    def check(file, purpose):
        import time

        time.sleep(1)
        if seen["fail"]:
            raise BookshelfError("NotANotebook", "The object is not a Jupyter notebook: late.")

    monkeypatch.setattr(publish_module.UnchangedBody, "read", read)
    monkeypatch.setattr(publish_module, "check_notebook_stream", check)
    return seen


def test_the_upload_runs_during_the_check_and_completes_after_it(
    api, moto_client, unique, saved, slow_check
):
    data = saved(unique + "slow.ipynb", big_notebook())
    response = publish(api, unique + "slow.ipynb")
    assert response.code == 201, response.body
    # Everything but the held-back end was sent while the check ran.
    assert slow_check["read_before_verdict"] == len(data) - 64 * 1024
    assert read(moto_client, f"notebooks/{unique}slow.ipynb") == data


def test_the_body_is_read_once_and_its_payload_is_not_signed(
    api, moto_client, unique, saved, slow_check, publish_puts
):
    # botocore's signer would read the whole body to hash it before sending a byte, waiting
    # there for the check's verdict: the upload is signed with UNSIGNED-PAYLOAD, and its
    # CRC32 (a signed header, which this service verifies) guards the bytes.
    data = saved(unique + "once.ipynb", big_notebook())
    response = publish(api, unique + "once.ipynb")
    assert response.code == 201, response.body
    assert slow_check["read_in_all"] == len(data)
    assert [put["X-Amz-Content-SHA256"] for put in publish_puts] == ["UNSIGNED-PAYLOAD"]
    crc = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
    assert [put.get("x-amz-checksum-crc32") for put in publish_puts] == [crc]
    assert not any("Content-MD5" in put for put in publish_puts)
    assert read(moto_client, f"notebooks/{unique}once.ipynb") == data


@pytest.fixture(params=["CRC32", "Content-MD5"])
def checksum(request, monkeypatch):
    """The checksum the publish sends: CRC32 where the service is found to verify it (moto
    here, like S3), Content-MD5 where it is not (the probe's answer said no)."""
    from jupyterlab_bookshelf.server_access import publish as publish_module

    if request.param == "Content-MD5":
        monkeypatch.setattr(publish_module._verified_checksums, "answer", lambda *_: False)
    return request.param


def test_bytes_damaged_on_the_way_are_refused_by_their_checksum(
    api, faults, moto_client, unique, saved, checksum, publish_puts
):
    # The payload is not signed (UNSIGNED-PAYLOAD): its checksum is what makes S3 refuse it.
    saved(unique + "damaged.ipynb", big_notebook())
    faults.add({"method": "PUT", "path": f"/published/notebooks/{unique}damaged.ipynb",
                "times": 0, "fault": {"type": "corrupt", "where": "request"}})  # fmt: skip
    body = assert_error(publish(api, unique + "damaged.ipynb"), 502, "Corrupted")
    assert "damaged on the way" in body["message"]
    assert faults.rules()[0]["applied"] == 1
    header = "x-amz-checksum-crc32" if checksum == "CRC32" else "Content-MD5"
    assert publish_puts and all(header in put for put in publish_puts)
    assert objects(moto_client, "published", f"notebooks/{unique}damaged.ipynb") == []


def test_the_checksum_probe_runs_once_and_leaves_nothing(
    api, moto_client, unique, saved, monkeypatch
):
    from jupyterlab_bookshelf.server_access import publish as publish_module

    probes = []
    real_probe = publish_module.probe_checksum_verification

    def counted(*args):
        probes.append(args[1:])
        return real_probe(*args)

    monkeypatch.setattr(publish_module._verified_checksums, "_probe", counted)
    publish_module._verified_checksums.forget()
    for name in ("one.ipynb", "two.ipynb"):
        saved(unique + name)
        assert publish(api, unique + name).code == 201
    assert probes == [("published", "notebooks/")]
    assert objects(moto_client, "published", "notebooks/.bookshelf-checksum-check-") == []


class _RefusingClient:
    """A client whose PutObject answers as a service that refuses the probe does."""

    def __init__(self, status, code):
        self.response = {"Error": {"Code": code}, "ResponseMetadata": {"HTTPStatusCode": status}}

    def put_object(self, **_):
        from botocore.exceptions import ClientError

        raise ClientError(self.response, "PutObject")


@pytest.mark.parametrize(
    ("status", "code", "verified"),
    [
        (400, "BadDigest", True),  # S3: "The CRC32 you specified did not match ..."
        (400, "XAmzContentChecksumMismatch", True),
        (400, "InvalidArgument", False),  # a service that does not take the header
        (501, "NotImplemented", False),
    ],
)
def test_the_checksum_probe_reads_the_refusal(status, code, verified):
    from jupyterlab_bookshelf.server_access.publish import probe_checksum_verification

    client = _RefusingClient(status, code)
    assert probe_checksum_verification(client, "published", "notebooks/") is verified


def test_a_checksum_probe_denied_access_is_an_error_not_an_answer():
    from botocore.exceptions import ClientError

    from jupyterlab_bookshelf.server_access.publish import probe_checksum_verification

    with pytest.raises(ClientError):
        probe_checksum_verification(_RefusingClient(403, "AccessDenied"), "published", "")


def test_a_check_that_fails_during_the_upload_stores_nothing(
    api, moto_client, unique, saved, slow_check
):
    data = saved(unique + "late.ipynb", big_notebook())
    slow_check["fail"] = True
    body = assert_error(publish(api, unique + "late.ipynb"), 400, "NotANotebook")
    assert body["message"] == (
        f"'{unique}late.ipynb' is not a valid Jupyter notebook, so it was not published: late."
    )
    assert slow_check["read_before_verdict"] >= len(data) // 2
    assert objects(moto_client, "published", f"notebooks/{unique}late.ipynb") == []


def test_a_large_notebook_is_published_byte_for_byte(api, moto_client, unique, saved):
    data = saved(unique + "large.ipynb", big_notebook())
    response = publish(api, unique + "large.ipynb")
    assert response.code == 201, response.body
    assert read(moto_client, f"notebooks/{unique}large.ipynb") == data


def test_a_notebook_broken_at_its_end_is_not_stored(api, moto_client, unique, saved):
    saved(unique + "cut.ipynb", big_notebook()[:-10])
    body = assert_error(publish(api, unique + "cut.ipynb"), 400, "NotANotebook")
    assert "it is not valid JSON (error at line " in body["message"]
    assert objects(moto_client, "published", f"notebooks/{unique}cut.ipynb") == []


def test_under_a_hub_the_prefix_names_the_user_and_the_link_goes_through_the_hub(
    api, write_settings, moto_client, unique, saved, monkeypatch
):
    monkeypatch.setenv("JUPYTERHUB_USER", "ana")
    monkeypatch.setenv("JUPYTERHUB_BASE_URL", "/")
    monkeypatch.setenv("JUPYTERHUB_HOST", "https://hub.example.org")
    write_settings(publishPrefix="users/{username}/")
    data = saved(unique + "hub.ipynb")
    response = publish(api, unique + "hub.ipynb")
    assert response.code == 201, response.body
    result = reply(response)
    assert result["s3_path"] == f"s3://published/users/ana/{unique}hub.ipynb"
    assert result["clone_url"].startswith(
        "https://hub.example.org/hub/user-redirect/bookshelf/clone?s3_bucket=published&s3_key="
        "users%2Fana%2F"
    )
    assert read(moto_client, f"users/ana/{unique}hub.ipynb") == data


def test_the_unsigned_payload_client_shares_the_session_of_the_signed_one(aws_env, moto):
    from jupyterlab_bookshelf.server_access import s3 as s3_module
    from jupyterlab_bookshelf.server_access.config import S3Settings

    settings = S3Settings(
        moto.endpoint_url, "us-east-1", True, "published", "notebooks/", "confirm", (), 100
    )
    signed = s3_module.s3_client(settings)
    unsigned = s3_module.s3_client(settings, sign_payload=False)
    assert signed is not unsigned
    assert s3_module.s3_client(settings, sign_payload=False) is unsigned
    assert unsigned.meta.config.s3["payload_signing_enabled"] is False
    assert "payload_signing_enabled" not in signed.meta.config.s3
    # One session: the service model is loaded once (about 12 MB), the credentials looked up once.
    assert list(s3_module._sessions) == [(moto.endpoint_url, "us-east-1", True)]


def test_the_test_s3_server_verifies_a_crc32_as_s3_does(moto_client, unique):
    # moto 5.2 stores a body whatever its x-amz-checksum-crc32 says; the fixture's layer
    # refuses it as S3 does, which the damaged-upload tests above rely on.
    from botocore.exceptions import ClientError

    key = f"notebooks/{unique}crc.txt"
    right = base64.b64encode(zlib.crc32(b"body").to_bytes(4, "big")).decode()
    wrong = base64.b64encode(zlib.crc32(b"other").to_bytes(4, "big")).decode()
    with pytest.raises(ClientError) as refused:
        moto_client.put_object(Bucket="published", Key=key, Body=b"body", ChecksumCRC32=wrong)
    assert refused.value.response["Error"]["Code"] == "BadDigest"
    assert objects(moto_client, "published", key) == []
    moto_client.put_object(Bucket="published", Key=key, Body=b"body", ChecksumCRC32=right)
    assert read(moto_client, key) == b"body"


def test_a_notebook_as_jupyter_saves_it_gets_the_quick_check(
    api, moto_client, unique, saved, monkeypatch
):
    from jupyterlab_bookshelf.server_access import notebook as notebook_module

    def refuse(read):
        raise AssertionError("the exact check ran")

    monkeypatch.setattr(notebook_module, "_events", refuse)
    text = json.dumps(json.loads(big_notebook()), indent=1, sort_keys=True, ensure_ascii=False)
    data = saved(unique + "saved.ipynb", (text + "\n").encode())
    response = publish(api, unique + "saved.ipynb")
    assert response.code == 201, response.body
    assert read(moto_client, f"notebooks/{unique}saved.ipynb") == data
    saved(unique + "v5.ipynb", data.replace(b'"nbformat": 4', b'"nbformat": 5'))
    body = assert_error(publish(api, unique + "v5.ipynb"), 400, "NotANotebook")
    assert "'nbformat' is 5; only version 4 notebooks can be published." in body["message"]
    assert objects(moto_client, "published", f"notebooks/{unique}v5.ipynb") == []


def lose_put_answers(faults, key, times):
    """S3 carries out the PUT of ``key``, and the connection closes before its answer
    (``times`` PUTs, 0: every one)."""
    faults.add({"method": "PUT", "path": f"/published/{key}", "times": times,
                "fault": {"type": "drop", "head": False}})  # fmt: skip


def assert_published(response, status, moto_client, key, data, versions):
    """The publish answered ``status`` with the object S3 holds: ``data``, in ``versions``."""
    assert response.code == status, response.body
    head = moto_client.head_object(Bucket="published", Key=key)
    assert reply(response)["etag"] == head["ETag"]
    assert reply(response)["version_id"] == head["VersionId"]
    assert read(moto_client, key) == data
    assert len(objects(moto_client, "published", key)) == versions


@pytest.mark.parametrize("policy", ["confirm", "never", "always"])
def test_a_new_object_whose_put_answer_was_lost_is_this_publish_s_own(
    api, fault_proxy, faults, write_settings, moto_client, unique, saved, policy
):
    # S3 stores the object, then the connection closes before its answer; botocore sends the
    # PUT again, whose condition (If-None-Match: *, as every policy creates) now fails on the
    # object this publish stored itself. That is a success, not someone else's publish.
    write_settings(endpointUrl=fault_proxy.url, overwritePolicy=policy)
    key = f"notebooks/{unique}lost.ipynb"
    data = saved(unique + "lost.ipynb", notebook_bytes(text="mine"))
    lose_put_answers(faults, key, times=1)
    response = publish(api, unique + "lost.ipynb")
    assert faults.rules()[0]["seen"] == 2  # the PUT, and botocore's second try
    assert_published(response, 201, moto_client, key, data, versions=1)


def test_a_put_whose_every_answer_was_lost_is_found_stored(
    api, fault_proxy, faults, write_settings, moto_client, unique, saved
):
    # No answer to any try (botocore gives up): the object there is this publish's.
    write_settings(endpointUrl=fault_proxy.url)
    key = f"notebooks/{unique}silent.ipynb"
    data = saved(unique + "silent.ipynb", notebook_bytes(text="mine"))
    lose_put_answers(faults, key, times=0)
    response = publish(api, unique + "silent.ipynb")
    assert faults.rules()[0]["applied"] >= 2
    assert_published(response, 201, moto_client, key, data, versions=1)


def test_a_confirmed_replace_whose_put_answer_was_lost_is_this_publish_s_own(
    api, fault_proxy, faults, write_settings, moto_client, unique, saved
):
    # The second try's If-Match names the version this publish replaced.
    write_settings(endpointUrl=fault_proxy.url)
    key = f"notebooks/{unique}again.ipynb"
    saved(unique + "again.ipynb", notebook_bytes(text="first"))
    assert publish(api, unique + "again.ipynb").code == 201
    data = saved(unique + "again.ipynb", notebook_bytes(text="second"))
    lose_put_answers(faults, key, times=1)
    response = publish(api, unique + "again.ipynb", overwrite=True)
    assert faults.rules()[0]["seen"] == 2
    assert_published(response, 200, moto_client, key, data, versions=2)


def test_someone_else_s_object_after_a_lost_answer_is_still_a_conflict(
    api, fault_proxy, faults, write_settings, moto_client, unique, saved, monkeypatch
):
    # The first try's answer is lost, the second is refused, and before the publish looks
    # at what is there, someone else publishes other bytes: theirs is not taken for its own.
    from jupyterlab_bookshelf.server_access import publish as publish_module

    write_settings(endpointUrl=fault_proxy.url)
    key = f"notebooks/{unique}theirs.ipynb"
    saved(unique + "theirs.ipynb", notebook_bytes(text="mine"))
    lose_put_answers(faults, key, times=1)
    real_own_object = publish_module.own_object

    def theirs_first(client, bucket, key_, sent):
        moto_client.put_object(Bucket=bucket, Key=key_, Body=notebook_bytes(text="theirs"))
        return real_own_object(client, bucket, key_, sent)

    monkeypatch.setattr(publish_module, "own_object", theirs_first)
    assert_error(publish(api, unique + "theirs.ipynb"), 409, "Conflict")
    assert read(moto_client, key) == notebook_bytes(text="theirs")


class _HeadClient:
    """A client whose HeadObject answers ``head`` (or raises it)."""

    def __init__(self, head):
        self.head = head

    def head_object(self, **_):
        if isinstance(self.head, Exception):
            raise self.head
        return self.head


def _sent(data: bytes, crc32: bool):
    import io
    from concurrent.futures import Future

    from jupyterlab_bookshelf.server_access import publish as publish_module

    file = io.BytesIO(data)
    check: Future[None] = Future()
    check.set_result(None)
    digested = publish_module.digest_file(file, crc32)
    return publish_module.UnchangedBody(file, digested, check, "a.ipynb")


@pytest.mark.parametrize(
    "crc32, head, mine",
    [
        # The service kept the put's CRC32: it decides.
        (True, {"ContentLength": 5, "ChecksumCRC32": "NhCmhg==", "ETag": '"x"'}, True),
        (True, {"ContentLength": 5, "ChecksumCRC32": "AAAAAA==", "ETag": '"x"'}, False),
        # It did not (moto): the ETag, a single put's MD5, does.
        (True, {"ContentLength": 5, "ETag": '"5d41402abc4b2a76b9719d911017c592"'}, True),
        (True, {"ContentLength": 5, "ETag": '"00000000000000000000000000000000"'}, False),
        (False, {"ContentLength": 5, "ETag": '"5d41402abc4b2a76b9719d911017c592"'}, True),
        (False, {"ContentLength": 5, "ETag": '"00000000000000000000000000000000"'}, False),
        # Another length, an ETag that is no MD5 (KMS, parts), no object: not ours.
        (False, {"ContentLength": 6, "ETag": '"5d41402abc4b2a76b9719d911017c592"'}, False),
        (
            False,
            {
                "ContentLength": 5,
                "ETag": '"5d41402abc4b2a76b9719d911017c592"',
                "ServerSideEncryption": "aws:kms",
            },
            False,
        ),  # fmt: skip
        (False, {"ContentLength": 5, "ETag": '"5d41402abc4b2a76b9719d911017c592-1"'}, False),
        (False, RuntimeError("404"), False),
    ],
)
def test_own_object_compares_the_put_s_checksum(crc32, head, mine):
    from jupyterlab_bookshelf.server_access.publish import own_object

    found = own_object(_HeadClient(head), "published", "k", _sent(b"hello", crc32))
    assert (found is head) is mine


@pytest.mark.parametrize(
    "fault, status, code, words",
    [
        ({"type": "status", "status": 503, "code": "SlowDown"}, 503, "SlowDown", "slow down"),
        ({"type": "status", "status": 500}, 502, "ServerError", "HTTP 500"),
        # The S3 service stops reading the body and closes the connection.
        ({"type": "drop", "where": "request", "after": 1000}, 502, "Interrupted",
         "was lost during the transfer of s3://published/"),
    ],
)  # fmt: skip
def test_s3_failures_of_the_put_have_their_status_and_store_nothing(
    api, faults, moto_client, unique, saved, fault, status, code, words
):
    # Every try of the PUT fails (botocore retries each of these first).
    key = f"notebooks/{unique}failing.ipynb"
    saved(unique + "failing.ipynb", big_notebook())
    faults.add({"method": "PUT", "path": f"/published/{key}", "times": 0, "fault": fault})
    body = assert_error(publish(api, unique + "failing.ipynb"), status, code)
    assert words in body["message"]
    assert faults.rules()[0]["applied"] >= 3
    assert "Traceback" not in body["message"] and "testing" not in body["message"]
    assert objects(moto_client, "published", key) == []


def test_an_unreachable_s3_service_is_502_for_a_publish(api, write_settings, unique, saved):
    with __import__("socket").socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    write_settings(endpointUrl=f"http://127.0.0.1:{port}")
    saved(unique + "nowhere.ipynb")
    body = assert_error(publish(api, unique + "nowhere.ipynb"), 502, "Unreachable")
    assert f"127.0.0.1:{port}" in body["message"]


@pytest.mark.parametrize("in_body", [False, True])
def test_a_notebook_larger_than_one_put_takes_is_413_before_anything_is_sent(
    api, moto_client, unique, saved, publish_puts, monkeypatch, in_body
):
    from jupyterlab_bookshelf.server_access import publish as publish_module

    # S3's 5 GiB, made small: the saved file, or the notebook of the body, is above it.
    monkeypatch.setattr(publish_module, "MAX_SINGLE_PUT_BYTES", 100)
    data = saved(unique + "huge.ipynb")
    body = {"type": "notebook", "content": json.loads(data)} if in_body else {}
    error = assert_error(publish(api, unique + "huge.ipynb", **body), 413, "TooLarge")
    assert "from JupyterLab, which uploads a large notebook in parts" in error["message"]
    assert publish_puts == []
    assert objects(moto_client, "published", f"notebooks/{unique}huge.ipynb") == []

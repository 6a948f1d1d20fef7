"""Server-side mode against the signature-verifying S3 server (s3rver, which also ignores
conditional writes): the server's signed requests are accepted with the right keys and refused
with wrong ones, a policy that relies on conditional writes is refused there, with nothing
written, and a publish whose answers were lost is recognised by its MD5."""

from __future__ import annotations

import pytest

from .s3_servers import (  # noqa: F401  (fixtures)
    api,
    free_port,
    jp_server_config,
    keys_in_environment,
    lab_dirs,
    publish_puts,
    reply,
    server_access,
    unique,
    write_settings,
)
from .test_server_clone import assert_error, notebook_bytes


@pytest.fixture(scope="module")
def s3rver():
    from s3rver_fixture import start_s3rver

    server = start_s3rver(free_port(), ["http://127.0.0.1:8888"])
    yield server
    server.stop()


@pytest.fixture(scope="module")
def s3rver_client(s3rver):
    import boto3
    from botocore.config import Config

    info = s3rver.info()
    return boto3.client(
        "s3",
        endpoint_url=info["endpoint_url"],
        region_name="us-east-1",
        aws_access_key_id=info["access_key_id"],
        aws_secret_access_key=info["secret_access_key"],
        config=Config(s3={"addressing_style": "path"}, proxies={}),
    )


@pytest.fixture
def secret(s3rver):
    """The secret the Jupyter server's environment gives (parametrize to change)."""
    return s3rver.info()["secret_access_key"]


@pytest.fixture
def aws_env(monkeypatch, tmp_path, s3rver, secret):
    yield from keys_in_environment(monkeypatch, tmp_path, s3rver.info()["access_key_id"], secret)


@pytest.fixture
def admin_settings(s3rver):
    return {
        "endpointUrl": s3rver.endpoint_url,
        "region": "us-east-1",
        "forcePathStyle": True,
        "publishBucket": "published",
        "publishPrefix": "s3rver/",
        "overwritePolicy": "confirm",
    }


def keys(client, bucket, prefix):
    listing = client.list_objects_v2(Bucket=bucket, Prefix=prefix)
    return sorted(item["Key"] for item in listing.get("Contents", []))


def test_signed_clone_is_accepted(api, s3rver_client, unique, jp_root_dir):
    data = notebook_bytes(text="signed")
    s3rver_client.put_object(Bucket="examples", Key=unique + "nb.ipynb", Body=data)
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "nb.ipynb"},
    )  # fmt: skip
    assert response.code == 201, response.body
    assert (jp_root_dir / "nb.ipynb").read_bytes() == data


@pytest.mark.parametrize("secret", ["not-the-secret"])
def test_a_wrong_secret_is_403_invalid_credentials(api, s3rver_client, unique, jp_root_dir):
    s3rver_client.put_object(Bucket="examples", Key=unique + "nb.ipynb", Body=notebook_bytes())
    response = api(
        "api", "bookshelf", "clone", method="POST",
        body={"s3_bucket": "examples", "s3_key": unique + "nb.ipynb"},
    )  # fmt: skip
    body = assert_error(response, 403, "InvalidCredentials")
    assert "not-the-secret" not in body["message"]
    assert list(jp_root_dir.iterdir()) == []


def test_never_is_refused_where_conditions_are_ignored(
    api, write_settings, s3rver_client, unique, jp_root_dir
):
    write_settings(overwritePolicy="never")
    (jp_root_dir / "p.ipynb").write_bytes(notebook_bytes())
    response = api(
        "api", "bookshelf", "published", "p.ipynb", method="PUT", body={"to": unique + "p.ipynb"}
    )
    body = assert_error(response, 400, "NotConfigured")
    assert "ignores that condition" in body["message"]
    # Nothing published, and the check's own object is gone again.
    assert keys(s3rver_client, "published", "s3rver/") == []


def test_always_publishes_there(
    api, write_settings, s3rver_client, unique, jp_root_dir, publish_puts
):
    write_settings(overwritePolicy="always")
    data = notebook_bytes(text="always")
    (jp_root_dir / "p.ipynb").write_bytes(data)
    for expected_status in (201, 200):
        response = api(
            "api", "bookshelf", "published", "p.ipynb", method="PUT",
            body={"to": unique + "p.ipynb"},
        )  # fmt: skip
        assert response.code == expected_status, response.body
    assert reply(response)["s3_path"] == f"s3://published/s3rver/{unique}p.ipynb"
    got = s3rver_client.get_object(Bucket="published", Key=f"s3rver/{unique}p.ipynb")
    assert got["Body"].read() == data
    # Signed (s3rver verifies the signature) with an unsigned payload, over http://.
    assert [put["X-Amz-Content-SHA256"] for put in publish_puts] == ["UNSIGNED-PAYLOAD"] * 2
    # s3rver stores a body whatever its CRC32 says (the probe found out, and its object is
    # gone): the publish sends Content-MD5, which S3-compatible services check.
    assert all("Content-MD5" in put for put in publish_puts)
    assert not any("x-amz-checksum-crc32" in put for put in publish_puts)
    assert keys(s3rver_client, "published", "s3rver/") == [f"s3rver/{unique}p.ipynb"]


def test_a_put_none_of_whose_answers_came_is_found_stored_by_its_md5(
    api, write_settings, s3rver, s3rver_client, unique, jp_root_dir
):
    # Through the fault proxy, every PUT is carried out and its answer lost. s3rver keeps no
    # CRC32 and ignores conditions, so the object is recognised by its ETag, the MD5 of the
    # bytes sent (their Content-MD5).
    import json
    import urllib.request

    from fault_proxy import start_fault_proxy

    with start_fault_proxy(free_port(), s3rver.endpoint_url) as proxy:
        rule = {"method": "PUT", "path": f"/published/s3rver/{unique}lost.ipynb", "times": 0,
                "fault": {"type": "drop", "head": False}}  # fmt: skip
        request = urllib.request.Request(
            proxy.url + "/__fault_proxy__/rules", data=json.dumps(rule).encode(), method="POST",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        urllib.request.urlopen(request, timeout=5).close()
        write_settings(endpointUrl=proxy.url, overwritePolicy="always")
        data = notebook_bytes(text="lost on s3rver")
        (jp_root_dir / "lost.ipynb").write_bytes(data)
        response = api(
            "api", "bookshelf", "published", "lost.ipynb", method="PUT",
            body={"to": unique + "lost.ipynb"},
        )  # fmt: skip
    assert response.code == 201, response.body
    key = f"s3rver/{unique}lost.ipynb"
    got = s3rver_client.get_object(Bucket="published", Key=key)
    assert got["Body"].read() == data
    assert reply(response)["etag"] == got["ETag"]

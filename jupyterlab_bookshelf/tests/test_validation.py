"""Unit tests of the clone request rules."""

import pytest

from jupyterlab_bookshelf.validation import (
    bucket_allowed,
    clone_request_from_json,
    clone_request_from_query,
    validate_bucket,
    validate_clone_request,
    validate_key,
    validate_target_path,
    validate_version_id,
)


def fields(problems):
    return [field for field, _ in problems]


@pytest.mark.parametrize("bucket", ["abc", "my-bucket", "a.b.c", "team-2026", "a" * 63])
def test_valid_buckets(bucket):
    assert validate_bucket(bucket) == []


@pytest.mark.parametrize(
    "bucket",
    [
        "",
        None,
        5,
        "ab",
        "a" * 64,
        "My-Bucket",
        "my_bucket",
        "my bucket",
        "-bucket",
        "bucket-",
        "a..b",
        "192.168.5.4",
        "xn--bucket",
        "sthree-bucket",
        "bucket-s3alias",
        "bucket--ol-s3",
        "b\u00e9cket",
    ],
)
def test_invalid_buckets(bucket):
    problems = validate_bucket(bucket)
    assert problems, bucket
    assert set(fields(problems)) == {"s3_bucket"}


@pytest.mark.parametrize(
    "key",
    ["a", "folder/My Notebook.ipynb", "<script>alert(1)</script>", "\u00e9" * 512, "a/../b.ipynb"],
)
def test_valid_keys(key):
    assert validate_key(key) == []


@pytest.mark.parametrize(
    "key, words",
    [
        ("", "required"),
        (None, "required"),
        (["a"], "string"),
        ("\u00e9" * 513, "1024 bytes"),
        ("a\x00b", "control"),
        ("a\nb", "control"),
        ("a\x7fb", "control"),
        ("a\u0085b", "control"),
        ("folder/", "file name"),
        ("folder/..", "file name"),
        ("\ud800.ipynb", "UTF-8"),
    ],
)
def test_invalid_keys(key, words):
    problems = validate_key(key)
    assert fields(problems) == ["s3_key"]
    assert words in problems[0][1]


@pytest.mark.parametrize(
    "path", [None, "", "copy.ipynb", "work/", "work/q3.ipynb", "./q3.ipynb", "a/../b.ipynb"]
)
def test_valid_target_paths(path):
    assert validate_target_path(path) == []


@pytest.mark.parametrize(
    "path, words",
    [
        ("/etc/passwd", "relative"),
        ("..", "leave"),
        ("../up.ipynb", "leave"),
        ("a/../../b.ipynb", "leave"),
        ("a\\b.ipynb", "'/'"),
        ("a\tb.ipynb", "control"),
        (7, "string"),
    ],
)
def test_invalid_target_paths(path, words):
    problems = validate_target_path(path)
    assert fields(problems) == ["target_path"]
    assert words in problems[0][1]


def test_version_ids():
    assert validate_version_id("null") == []
    assert validate_version_id("3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY") == []
    assert fields(validate_version_id("v\n1")) == ["s3_version_id"]
    assert fields(validate_version_id("v" * 1025)) == ["s3_version_id"]


def test_every_message_starts_with_its_field():
    problems = validate_clone_request(
        {"s3_bucket": "Bad_Bucket", "s3_key": "x/", "target_path": "/abs", "s3_version_id": "\x01"}
    )
    assert set(fields(problems)) == {"s3_bucket", "s3_key", "target_path", "s3_version_id"}
    for field, message in problems:
        assert message.startswith(field + " "), message


def test_messages_never_repeat_the_value():
    value = "<img src=x onerror=alert(1)>"
    problems = validate_clone_request({"s3_bucket": value, "target_path": "/" + value})
    assert problems
    assert all("<" not in message for _, message in problems)


def test_query_repeated_and_blank_parameters():
    request, problems = clone_request_from_query(
        {
            "s3_bucket": [b"bucket"],
            "s3_key": [b"a.ipynb", b"b.ipynb"],
            "target_path": [b""],
            "unknown": [b"ignored", b"twice"],
        }
    )
    assert problems == [("s3_key", "s3_key is given more than once")]
    assert request == {"s3_bucket": "bucket"}


def test_query_not_utf8():
    _, problems = clone_request_from_query({"s3_bucket": [b"bucket"], "s3_key": [b"\xff.ipynb"]})
    assert problems == [("s3_key", "s3_key must be valid UTF-8 text")]


def test_json_bodies():
    request, problems = clone_request_from_json(
        {"s3_bucket": "bucket", "s3_key": "a.ipynb", "target_path": None, "extra": 1}
    )
    assert (request, problems) == ({"s3_bucket": "bucket", "s3_key": "a.ipynb"}, [])
    assert fields(clone_request_from_json(["bucket", "a.ipynb"])[1]) == ["body"]
    assert fields(clone_request_from_json({"s3_bucket": "bucket", "s3_key": 3})[1]) == ["s3_key"]


def test_bucket_allowed():
    assert bucket_allowed("anything", [])
    assert bucket_allowed("team-a", ["other", "team-*"])
    assert not bucket_allowed("teamx", ["team-*"])
    assert not bucket_allowed("my-team-a", ["team-*"])
    # Only * is special: dots and other characters match themselves.
    assert bucket_allowed("a.b", ["a.b"])
    assert not bucket_allowed("axb", ["a.b"])
    assert not bucket_allowed("a", ["[a]"])

"""Unit tests of the clone request rules (docs/clone-request-rules.md)."""

import pytest

from jupyterlab_bookshelf.validation import (
    bucket_allowed,
    check_bucket,
    clone_link_query,
    normalize_clone_request,
    read_clone_query,
    utf8_length,
    validate_clone_request,
)

ONLY_BUCKET_CHARACTERS = "a bucket name has only lowercase letters a-z, digits, dots and hyphens"
NOT_AN_IP_ADDRESS = "a bucket name must not be formatted like an IP address (e.g. 192.168.5.4)"


def problems_of(**fields):
    return validate_clone_request({"s3_bucket": "abc", "s3_key": "a.ipynb", **fields})


def only_message(**fields):
    problems = problems_of(**fields)
    assert len(problems) == 1, problems
    return problems[0]


def test_a_valid_request_has_no_problems():
    assert problems_of() == []
    assert problems_of(target_path="work/", s3_version_id="3HL4kqtJlcpX+rmS/pXd3=_.-") == []
    assert problems_of(target_path="", s3_version_id="", extra=[1, 2]) == []


@pytest.mark.parametrize("bucket", ["abc", "my-bucket", "a.b.c", "team-2026", "a" * 63])
def test_valid_buckets(bucket):
    assert check_bucket(bucket) is None


@pytest.mark.parametrize(
    "bucket, message",
    [
        ("ab", "a bucket name has 3 to 63 characters (got 2)"),
        ("a" * 64, "a bucket name has 3 to 63 characters (got 64)"),
        ("My-Bucket", f"{ONLY_BUCKET_CHARACTERS} (found 'M')"),
        ("my bucket", f"{ONLY_BUCKET_CHARACTERS} (found U+0020)"),
        ("my_bucket", f"{ONLY_BUCKET_CHARACTERS} (found '_')"),
        ("-bucket", "a bucket name starts and ends with a letter or digit"),
        ("bucket.", "a bucket name starts and ends with a letter or digit"),
        ("a..b", "a bucket name has no two adjacent dots"),
        ("192.168.5.4", NOT_AN_IP_ADDRESS),
        ("xn--bucket", "a bucket name must not start with 'xn--'"),
        ("bucket-s3alias", "a bucket name must not end with '-s3alias'"),
        ("bucket--table-s3", "a bucket name must not end with '--table-s3'"),
    ],
)
def test_invalid_buckets(bucket, message):
    assert check_bucket(bucket) == message
    assert only_message(s3_bucket=bucket) == ("s3_bucket", f"s3_bucket: {message}")


@pytest.mark.parametrize(
    "key, message",
    [
        ("", "an object key is required"),
        ("\u00e9" * 513, "a key has 1 to 1024 bytes of UTF-8 (got 1026)"),
        ("a\x00b.ipynb", "a key has no control characters (found U+0000)"),
        ("a\nb.ipynb", "a key has no control characters (found U+000A)"),
        ("a\x85b.ipynb", "a key has no control characters (found U+0085)"),
        (
            "report\u202egpj.ipynb",
            "a key has no bidirectional formatting characters, which can disguise a file's type "
            "(found U+202E)",
        ),
        ("folder/", "the key ends with '/', which names a folder, not an object"),
        ("folder/..", "the key's last segment must not be '..'"),
        (
            "../a.ipynb",
            "a key has no '.' or '..' segment: a browser would resolve it and read another object",
        ),
        (
            "a/./b.ipynb",
            "a key has no '.' or '..' segment: a browser would resolve it and read another object",
        ),
        (
            "config/.env",
            "the object's name '.env' starts with a dot, which Jupyter hides; give a target_path",
        ),
        (
            "x" * 256,
            "the object's name has 256 bytes of UTF-8, more than the 255 a file name may have; "
            "give a target_path",
        ),
    ],
)
def test_invalid_keys(key, message):
    assert only_message(s3_key=key) == ("s3_key", f"s3_key: {message}")


@pytest.mark.parametrize(
    "key", ["a", "folder/My Notebook.ipynb", "a..b/c.ipynb", "<script>x</script>", "\u00e9" * 120]
)
def test_valid_keys(key):
    assert problems_of(s3_key=key) == []


def test_a_hidden_key_name_is_fine_with_a_target_file_name():
    assert problems_of(s3_key="config/.env", target_path="env.txt") == []
    assert only_message(s3_key="config/.env", target_path="work/")[0] == "s3_key"


@pytest.mark.parametrize("path", ["copy.ipynb", "work/", "work/q3.ipynb", "a b/c.ipynb"])
def test_valid_target_paths(path):
    assert problems_of(target_path=path) == []


@pytest.mark.parametrize(
    "path, message",
    [
        ("/etc/passwd", "a path is relative to the Jupyter root: remove the leading '/'"),
        ("a\\b.ipynb", "a path separates folders with '/', not '\\'"),
        ("a\tb.ipynb", "a path has no control characters (found U+0009)"),
        ("a//b.ipynb", "a path has no empty segment ('//')"),
        ("work//", "a path has no empty segment ('//')"),
        ("..", "a path must not contain '..'"),
        ("a/../b.ipynb", "a path must not contain '..'"),
        ("./b.ipynb", "a path has no segment made only of dots (found '.')"),
        ("a/.../b", "a path has no segment made only of dots (found '...')"),
        (".hidden/b", "'.hidden' starts with a dot, which Jupyter hides; choose another name"),
        ("x" * 256, "each name in a path has at most 255 bytes of UTF-8 (got 256)"),
        ("a/" * 513, "a path has at most 1024 bytes of UTF-8 (got 1026)"),
    ],
)
def test_invalid_target_paths(path, message):
    assert only_message(target_path=path) == ("target_path", f"target_path: {message}")


@pytest.mark.parametrize(
    "version_id, message",
    [
        ("v 1", "a version id has only letters, digits and . _ - + / = (found U+0020)"),
        ("v<1", "a version id has only letters, digits and . _ - + / = (found '<')"),
        ("v" * 1025, "a version id has 1 to 1024 characters (got 1025)"),
    ],
)
def test_invalid_version_ids(version_id, message):
    assert only_message(s3_version_id=version_id) == (
        "s3_version_id",
        f"s3_version_id: {message}",
    )


def test_types_and_missing_fields():
    assert validate_clone_request(["abc", "a.ipynb"]) == [
        ("request", "request: a clone request is an object with s3_bucket and s3_key")
    ]
    assert validate_clone_request({"s3_bucket": None, "s3_key": 3, "target_path": True}) == [
        ("s3_bucket", "s3_bucket: a bucket name is required"),
        ("s3_key", "s3_key: must be text (got number)"),
        ("target_path", "target_path: must be text (got boolean)"),
    ]
    assert only_message(s3_version_id={"id": "v"})[1] == "s3_version_id: must be text (got object)"


def test_every_field_at_most_one_problem_starting_with_its_name():
    problems = validate_clone_request(
        {"s3_bucket": "Bad..", "s3_key": "x/\n/", "target_path": "/a\\b", "s3_version_id": " "}
    )
    assert [field for field, _ in problems] == list(
        ("s3_bucket", "s3_key", "target_path", "s3_version_id")
    )
    for field, message in problems:
        assert message.startswith(f"{field}: ")


def test_read_clone_query():
    request = read_clone_query(
        {
            "s3_bucket": [b"abc"],
            "s3_key": [b"a.ipynb", b"b.ipynb"],
            "target_path": [b""],
            "s3_version_id": [b"\xff"],
            "unknown": [b"ignored"],
        }
    )
    assert request == {
        "s3_bucket": "abc",
        "s3_key": ["a.ipynb", "b.ipynb"],
        "target_path": "",
        "s3_version_id": "\ufffd",
    }
    assert validate_clone_request(request)[0] == ("s3_key", "s3_key: given more than once")


def test_normalize_keeps_set_clone_fields_only():
    assert normalize_clone_request(
        {"s3_bucket": "abc", "s3_key": " a.ipynb ", "target_path": "", "other": "x"}
    ) == {"s3_bucket": "abc", "s3_key": " a.ipynb "}


def test_utf8_length_counts_like_the_browser():
    assert utf8_length("a\u00e9\u20ac\U0001f600") == 1 + 2 + 3 + 4
    assert utf8_length("\ud800") == 3  # a lone surrogate, as U+FFFD


def test_bucket_allowed():
    assert bucket_allowed("anything", [])
    assert bucket_allowed("team-a", ["other", "team-*"])
    assert not bucket_allowed("teamx", ["team-*"])
    assert not bucket_allowed("my-team-a", ["team-*"])
    assert not bucket_allowed("Team-a", ["team-*"])
    # Only * is special: dots and brackets match themselves.
    assert bucket_allowed("a.b", ["a.b"])
    assert not bucket_allowed("axb", ["a.b"])
    assert not bucket_allowed("a", ["[a]"])


def test_clone_link_query_encodes_like_encode_uri_component():
    query = clone_link_query(
        {"s3_version_id": "v+1", "s3_key": "a b/c!*'()~\u00e9.ipynb", "s3_bucket": "abc"}
    )
    assert query == "s3_bucket=abc&s3_key=a%20b%2Fc!*'()~%C3%A9.ipynb&s3_version_id=v%2B1"

"""Validation of clone requests and clone links.

The rules are those of ``docs/clone-request-rules.md``; the browser side
(``src/clone/request.ts``) implements the same ones with the same messages,
so keep both in step. A check returns a list of ``(field, message)``
problems, at most one per field (the first rule broken); each message starts
with the field name. An empty list means valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

#: The fields of a clone request, in the order links list them.
CLONE_FIELDS = ("s3_bucket", "s3_key", "target_path", "s3_version_id")

#: The most bytes a key, a target path and a version id may have.
MAX_PATH_BYTES = 1024
#: The most bytes of one file or folder name (the usual file system limit).
MAX_NAME_BYTES = 255

_CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_BIDI_CHARACTER = re.compile(r"[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BUCKET_CHARACTER = re.compile(r"[a-z0-9.-]")
_IPV4_LIKE = re.compile(r"\d{1,3}(\.\d{1,3}){3}")
_VERSION_ID_CHARACTER = re.compile(r"[A-Za-z0-9._\-+/=]")
#: What encodeURIComponent leaves as is, besides letters, digits and _.-~
_URI_COMPONENT_SAFE = "!*'()"
_BUCKET_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
_BUCKET_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")

Problem = tuple[str, str]


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8; a lone surrogate counts as the three
    bytes of U+FFFD (as in the browser)."""
    return sum(
        1 if char < "\x80" else 2 if char < "\u0800" else 3 if char < "\U00010000" else 4
        for char in text
    )


def _describe(character: str) -> str:
    """A character as a message may show it: quoted when printable, else its
    code point, so that the message itself cannot be garbled."""
    if (
        _CONTROL_CHARACTER.match(character)
        or _BIDI_CHARACTER.match(character)
        or not character.strip()
        or character == "\ufeff"
    ):
        return f"U+{ord(character):04X}"
    return f"'{character}'"


def _check_characters(text: str, what: str) -> str | None:
    control = _CONTROL_CHARACTER.search(text)
    if control:
        return f"{what} has no control characters (found {_describe(control[0])})"
    bidi = _BIDI_CHARACTER.search(text)
    if bidi:
        return (
            f"{what} has no bidirectional formatting characters, which can disguise "
            f"a file's type (found {_describe(bidi[0])})"
        )
    return None


def check_bucket(bucket: str) -> str | None:
    """The S3 bucket naming rule ``bucket`` breaks (without a field name),
    or None. Also used for the publishBucket setting."""
    if not 3 <= len(bucket) <= 63:
        return f"a bucket name has 3 to 63 characters (got {len(bucket)})"
    for character in bucket:
        if not _BUCKET_CHARACTER.fullmatch(character):
            return (
                "a bucket name has only lowercase letters a-z, digits, dots and hyphens "
                f"(found {_describe(character)})"
            )
    if bucket[0] in ".-" or bucket[-1] in ".-":
        return "a bucket name starts and ends with a letter or digit"
    if ".." in bucket:
        return "a bucket name has no two adjacent dots"
    if _IPV4_LIKE.fullmatch(bucket):
        return "a bucket name must not be formatted like an IP address (e.g. 192.168.5.4)"
    for prefix in _BUCKET_PREFIXES:
        if bucket.startswith(prefix):
            return f"a bucket name must not start with '{prefix}'"
    for suffix in _BUCKET_SUFFIXES:
        if bucket.endswith(suffix):
            return f"a bucket name must not end with '{suffix}'"
    return None


def key_base_name(key: str) -> str:
    """The last segment of a key: the name its clone gets by default."""
    return key.rsplit("/", 1)[-1]


def _check_key(key: str) -> str | None:
    size = utf8_length(key)
    if size > MAX_PATH_BYTES:
        return f"a key has 1 to {MAX_PATH_BYTES} bytes of UTF-8 (got {size})"
    characters = _check_characters(key, "a key")
    if characters:
        return characters
    if key.endswith("/"):
        return "the key ends with '/', which names a folder, not an object"
    base_name = key_base_name(key)
    if base_name in (".", ".."):
        return f"the key's last segment must not be '{base_name}'"
    # A browser resolves '.' and '..' in a request's path (also written as
    # %2E), so the request would read another object, even of another bucket.
    if any(segment in (".", "..") for segment in key.split("/")):
        return (
            "a key has no '.' or '..' segment: a browser would resolve it and read another object"
        )
    return None


def check_target_path(
    path: str, allow_hidden: bool = False, allow_backslash: bool = False
) -> str | None:
    """The rule a path relative to the Jupyter root breaks, or None; hidden
    names are refused unless ``allow_hidden`` (``ContentsManager.allow_hidden``),
    a backslash unless ``allow_backslash``."""
    if path.startswith("/"):
        return "a path is relative to the Jupyter root: remove the leading '/'"
    if "\\" in path and not allow_backslash:
        return "a path separates folders with '/', not '\\'"
    characters = _check_characters(path, "a path")
    if characters:
        return characters
    size = utf8_length(path)
    if size > MAX_PATH_BYTES:
        return f"a path has at most {MAX_PATH_BYTES} bytes of UTF-8 (got {size})"
    # A single trailing '/' means "this folder".
    for segment in (path[:-1] if path.endswith("/") else path).split("/"):
        if segment == "":
            return "a path has no empty segment ('//')"
        if segment == "..":
            return "a path must not contain '..'"
        if set(segment) == {"."}:
            return f"a path has no segment made only of dots (found '{segment}')"
        if segment.startswith(".") and not allow_hidden:
            return f"'{segment}' starts with a dot, which Jupyter hides; choose another name"
        segment_size = utf8_length(segment)
        if segment_size > MAX_NAME_BYTES:
            return (
                f"each name in a path has at most {MAX_NAME_BYTES} bytes of UTF-8 "
                f"(got {segment_size})"
            )
    return None


def _check_version_id(version_id: str) -> str | None:
    if len(version_id) > MAX_PATH_BYTES:
        return f"a version id has 1 to {MAX_PATH_BYTES} characters (got {len(version_id)})"
    for character in version_id:
        if not _VERSION_ID_CHARACTER.fullmatch(character):
            return (
                "a version id has only letters, digits and . _ - + / = "
                f"(found {_describe(character)})"
            )
    return None


def check_file_name(name: str, source: str) -> str | None:
    """The rule the clone's file name breaks (not hidden, not too long), or
    None; ``source`` ('s3_key' or 'target_path') says where it came from."""
    if name.startswith("."):
        if source == "s3_key":
            return (
                f"the object's name '{name}' starts with a dot, which Jupyter hides; "
                "give a target_path"
            )
        return f"the file name '{name}' starts with a dot, which Jupyter hides; choose another name"
    size = utf8_length(name)
    if size > MAX_NAME_BYTES:
        if source == "s3_key":
            return (
                f"the object's name has {size} bytes of UTF-8, more than the "
                f"{MAX_NAME_BYTES} a file name may have; give a target_path"
            )
        return f"a file name has at most {MAX_NAME_BYTES} bytes of UTF-8 (got {size})"
    return None


def _read_field(fields: Mapping[str, Any], field: str) -> tuple[str | None, str | None]:
    """A field's value (a string, or None when absent) and its problem."""
    value = fields.get(field)
    if value is None:
        return None, None
    if isinstance(value, list) and len(value) > 1:
        return None, "given more than once"
    if not isinstance(value, str):
        kind = (
            "a list"
            if isinstance(value, list)
            else "boolean"
            if isinstance(value, bool)
            else "number"
            if isinstance(value, (int, float))
            else "object"
        )
        return None, f"must be text (got {kind})"
    return value, None


def validate_clone_request(request: Any) -> list[Problem]:
    """Check a clone request (a parsed POST body, or a link's parameters as
    read by ``read_clone_query``). Unknown fields are ignored."""
    if not isinstance(request, Mapping):
        return [("request", "request: a clone request is an object with s3_bucket and s3_key")]
    problems: list[Problem] = []

    def report(field: str, message: str | None) -> None:
        if message is not None:
            problems.append((field, f"{field}: {message}"))

    bucket, bucket_problem = _read_field(request, "s3_bucket")
    key, key_problem = _read_field(request, "s3_key")
    target_path, target_problem = _read_field(request, "target_path")
    version_id, version_problem = _read_field(request, "s3_version_id")

    if bucket_problem is None:
        bucket_problem = check_bucket(bucket) if bucket else "a bucket name is required"
    report("s3_bucket", bucket_problem)
    if key_problem is None:
        key_problem = _check_key(key) if key else "an object key is required"
    report("s3_key", key_problem)
    if target_problem is None and target_path:
        target_problem = check_target_path(target_path)
    report("target_path", target_problem)
    if version_problem is None and version_id:
        version_problem = _check_version_id(version_id)
    report("s3_version_id", version_problem)

    # The file name comes from the key unless target_path names a file; the
    # target_path segment rules already cover a name taken from there.
    name_from_key = not target_path or target_path.endswith("/")
    if name_from_key and key_problem is None and target_problem is None:
        report("s3_key", check_file_name(key_base_name(key), "s3_key"))
    return problems


def read_clone_query(query_arguments: Mapping[str, list[bytes]]) -> dict[str, str | list[str]]:
    """The clone parameters of a link (Tornado's ``request.query_arguments``).
    A parameter given more than once is kept as a list, which
    ``validate_clone_request`` reports; other parameters are ignored. Bytes
    that are not UTF-8 become U+FFFD, as in the browser."""
    request: dict[str, str | list[str]] = {}
    for field in CLONE_FIELDS:
        values = [value.decode("utf-8", "replace") for value in query_arguments.get(field, [])]
        if len(values) == 1:
            request[field] = values[0]
        elif len(values) > 1:
            request[field] = values
    return request


def normalize_clone_request(request: Mapping[str, Any]) -> dict[str, str]:
    """Only the clone fields, without optional ones given as empty strings.
    Trims nothing: a space is part of a key. For a valid request."""
    return {field: request[field] for field in CLONE_FIELDS if request.get(field)}


def clone_link_query(request: Mapping[str, str]) -> str:
    """The query string of a clone link (without '?'): the fields in a fixed
    order, optional ones only when set, each encoded as encodeURIComponent
    does (a space is %20, never +)."""
    return "&".join(
        f"{field}={quote(request[field], safe=_URI_COMPONENT_SAFE)}"
        for field in CLONE_FIELDS
        if request.get(field)
    )


def bucket_allowed(bucket: str, patterns: list[str]) -> bool:
    """Whether a link may clone from ``bucket``: the name must match one of
    the patterns as a whole, where ``*`` stands for any characters; matching
    is case-sensitive. An empty list allows every bucket."""
    if not patterns:
        return True
    return any(
        re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), bucket, re.DOTALL)
        for pattern in patterns
    )

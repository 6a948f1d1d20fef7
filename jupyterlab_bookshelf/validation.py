"""Validation of clone requests and bucket names.

The TypeScript side (the clone dialog and ``IBookshelf.clone``) applies the
same rules. Every check returns a list of ``(field, message)`` problems; an
empty list means valid. Each message starts with the field name and never
repeats the value it judges, so it is safe to show and to log.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

#: The fields of a clone request, in the order links and messages use.
CLONE_FIELDS = ("s3_bucket", "s3_key", "target_path", "s3_version_id")

MAX_KEY_BYTES = 1024
MAX_VERSION_ID_BYTES = 1024

_BUCKET_CHARS = re.compile(r"[a-z0-9.-]+")
_IPV4_LIKE = re.compile(r"\d{1,3}(\.\d{1,3}){3}")
_RESERVED_BUCKET_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
_RESERVED_BUCKET_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")

Problem = tuple[str, str]


def _has_control_characters(value: str) -> bool:
    """Whether ``value`` holds a C0 or C1 control character or DEL."""
    return any(unicodedata.category(char) == "Cc" for char in value)


def _utf8_length(value: str) -> int | None:
    """The length of ``value`` in UTF-8 bytes, or None if it cannot be encoded."""
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError:  # lone surrogates, e.g. "\ud800" in JSON
        return None


def validate_bucket(bucket: Any, field: str = "s3_bucket") -> list[Problem]:
    """Check a bucket name against S3's rules for general purpose buckets."""
    if bucket is None or bucket == "":
        return [(field, f"{field} is required")]
    if not isinstance(bucket, str):
        return [(field, f"{field} must be a string")]
    problems = []
    if not 3 <= len(bucket) <= 63:
        problems.append((field, f"{field} must be 3 to 63 characters long"))
    if not _BUCKET_CHARS.fullmatch(bucket):
        problems.append(
            (
                field,
                f"{field} may only contain lowercase letters (a-z), digits, "
                "dots (.) and hyphens (-)",
            )
        )
    if not (bucket[0].isascii() and bucket[0].isalnum()) or not (
        bucket[-1].isascii() and bucket[-1].isalnum()
    ):
        problems.append((field, f"{field} must begin and end with a letter or a digit"))
    if ".." in bucket:
        problems.append((field, f"{field} must not contain two dots in a row"))
    if _IPV4_LIKE.fullmatch(bucket):
        problems.append((field, f"{field} must not be formatted as an IP address"))
    if bucket.startswith(_RESERVED_BUCKET_PREFIXES):
        problems.append(
            (field, f"{field} must not begin with {', '.join(_RESERVED_BUCKET_PREFIXES)}")
        )
    if bucket.endswith(_RESERVED_BUCKET_SUFFIXES):
        problems.append(
            (field, f"{field} must not end with {', '.join(_RESERVED_BUCKET_SUFFIXES)}")
        )
    return problems


def validate_key(key: Any, field: str = "s3_key") -> list[Problem]:
    """Check an object key: 1 to 1024 bytes of UTF-8, no control
    characters, and naming an object rather than a folder."""
    if key is None or key == "":
        return [(field, f"{field} is required")]
    if not isinstance(key, str):
        return [(field, f"{field} must be a string")]
    size = _utf8_length(key)
    if size is None:
        return [(field, f"{field} must be valid UTF-8 text")]
    problems = []
    if size > MAX_KEY_BYTES:
        problems.append(
            (field, f"{field} must be at most {MAX_KEY_BYTES} bytes of UTF-8 (it has {size})")
        )
    if _has_control_characters(key):
        problems.append((field, f"{field} must not contain control characters"))
    if key.rsplit("/", 1)[-1] in ("", ".", ".."):
        problems.append(
            (field, f"{field} must end with a file name, not with '/', '.' or '..'")
        )
    return problems


def validate_target_path(path: Any, field: str = "target_path") -> list[Problem]:
    """Check an optional target path: relative, POSIX, without control
    characters and without '..' that leaves the root. Empty means omitted."""
    if path is None or path == "":
        return []
    if not isinstance(path, str):
        return [(field, f"{field} must be a string")]
    if _utf8_length(path) is None:
        return [(field, f"{field} must be valid UTF-8 text")]
    problems = []
    if _has_control_characters(path):
        problems.append((field, f"{field} must not contain control characters"))
    if "\\" in path:
        problems.append((field, f"{field} must separate folders with '/', not '\\'"))
    if path.startswith("/"):
        problems.append(
            (field, f"{field} must be relative to the Jupyter root folder (no leading '/')")
        )
    depth = 0
    for segment in path.split("/"):
        if segment == "..":
            depth -= 1
            if depth < 0:
                problems.append(
                    (field, f"{field} must not use '..' to leave the Jupyter root folder")
                )
                break
        elif segment not in ("", "."):
            depth += 1
    return problems


def validate_version_id(version_id: Any, field: str = "s3_version_id") -> list[Problem]:
    """Check an optional version id. Empty means omitted."""
    if version_id is None or version_id == "":
        return []
    if not isinstance(version_id, str):
        return [(field, f"{field} must be a string")]
    size = _utf8_length(version_id)
    if size is None:
        return [(field, f"{field} must be valid UTF-8 text")]
    problems = []
    if size > MAX_VERSION_ID_BYTES:
        problems.append((field, f"{field} must be at most {MAX_VERSION_ID_BYTES} bytes"))
    if _has_control_characters(version_id):
        problems.append((field, f"{field} must not contain control characters"))
    return problems


def validate_clone_request(request: Mapping[str, Any]) -> list[Problem]:
    """All problems of a clone request (the payload of the clone POST, or
    the parameters of a clone link). Unknown fields are ignored."""
    return [
        *validate_bucket(request.get("s3_bucket")),
        *validate_key(request.get("s3_key")),
        *validate_target_path(request.get("target_path")),
        *validate_version_id(request.get("s3_version_id")),
    ]


def clone_request_from_query(
    query_arguments: Mapping[str, list[bytes]],
) -> tuple[dict[str, str], list[Problem]]:
    """Read a clone request from a link's query (Tornado's
    ``request.query_arguments``) and validate it.

    Returns the request (known fields only; empty values left out) and its
    problems. A known parameter given more than once is a problem, since
    the link would be ambiguous.
    """
    request: dict[str, str] = {}
    problems: list[Problem] = []
    for field in CLONE_FIELDS:
        values = query_arguments.get(field, [])
        if len(values) > 1:
            problems.append((field, f"{field} is given more than once"))
            continue
        if not values:
            continue
        try:
            value = values[0].decode("utf-8")
        except UnicodeDecodeError:
            problems.append((field, f"{field} must be valid UTF-8 text"))
            continue
        if value:
            request[field] = value
    repeated_or_undecodable = {field for field, _ in problems}
    problems.extend(
        problem
        for problem in validate_clone_request(request)
        if problem[0] not in repeated_or_undecodable
    )
    return request, problems


def clone_request_from_json(body: Any) -> tuple[dict[str, str], list[Problem]]:
    """Read a clone request from a parsed JSON body and validate it.

    ``null`` and empty strings count as omitted. Returns the request (known
    fields only) and its problems.
    """
    if not isinstance(body, dict):
        return {}, [
            (
                "body",
                "body must be a JSON object like "
                '{"s3_bucket": "...", "s3_key": "...", "target_path": "..."}',
            )
        ]
    request = {
        field: body[field] for field in CLONE_FIELDS if body.get(field) not in (None, "")
    }
    return request, validate_clone_request(request)


def bucket_allowed(bucket: str, patterns: list[str]) -> bool:
    """Whether the ``allowedBuckets`` setting lets a link clone from ``bucket``.

    A pattern is a bucket name in which ``*`` stands for any run of
    characters. An empty list allows every bucket.
    """
    if not patterns:
        return True
    for pattern in patterns:
        regex = ".*".join(re.escape(part) for part in pattern.split("*"))
        if re.fullmatch(regex, bucket):
            return True
    return False

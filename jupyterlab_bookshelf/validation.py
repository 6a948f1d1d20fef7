"""Validation of clone requests and clone links.

The rules are those of ``docs/clone-request-rules.md``, as data shared with the browser
(``src/rules/names.json`` for the naming rules, ``src/rules/link.json`` for the fields and the
links, ``src/rules/clone.json`` for the request's messages), which ``src/s3/names.ts`` and
``src/clone/request.ts`` apply there: both sides give the same answers and messages
(``tests/clone_request_cases.json``, ``tests/link_cases.json``). A check returns a list of
``(field, message)`` problems, at most one per field (the first rule broken); each message starts
with the field name. An empty list means valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from .rules import format_message, load_rule

_NAMES = load_rule("names")
_CLONE = load_rule("clone")
_LINK = load_rule("link")
_NAME_MESSAGES: dict[str, str] = _NAMES["messages"]
_CLONE_MESSAGES: dict[str, str] = _CLONE["messages"]

#: The fields of a clone request, in the order links list them.
CLONE_FIELDS: tuple[str, ...] = tuple(_LINK["fields"])
#: The server's page a clone link opens, below the base URL.
LANDING_PATH: str = _LINK["landingPath"]
#: The query parameter that marks the in-app clone link ({base_url}lab?bookshelf-clone&…).
DEEP_LINK_PARAMETER: str = _LINK["deepLinkParameter"]

#: The most bytes a key, a target path and a version id may have.
MAX_PATH_BYTES: int = _NAMES["limits"]["maxPathBytes"]
#: The most bytes of one file or folder name (the usual file system limit).
MAX_NAME_BYTES: int = _NAMES["limits"]["maxNameBytes"]
_BUCKET_MIN_LENGTH: int = _NAMES["limits"]["bucketMinLength"]
_BUCKET_MAX_LENGTH: int = _NAMES["limits"]["bucketMaxLength"]

_CHARACTERS: dict[str, str] = _NAMES["characters"]
_CONTROL_CHARACTER = re.compile(_CHARACTERS["control"])
_BIDI_CHARACTER = re.compile(_CHARACTERS["bidi"])
_BLANK_CHARACTER = re.compile(_CHARACTERS["blank"])
_BUCKET_CHARACTER = re.compile(_CHARACTERS["bucket"])
_BUCKET_END = re.compile(_CHARACTERS["bucketEnd"])
_VERSION_ID_CHARACTER = re.compile(_CHARACTERS["versionId"])
_IPV4_LIKE = re.compile(_NAMES["ipv4Like"])
_BUCKET_PREFIXES: tuple[str, ...] = tuple(_NAMES["bucketPrefixes"])
_BUCKET_SUFFIXES: tuple[str, ...] = tuple(_NAMES["bucketSuffixes"])
#: What encodeURIComponent leaves as is, besides letters, digits and _.-~
_URI_COMPONENT_SAFE = "!*'()"

Problem = tuple[str, str]


def _name_message(name: str, *args: object) -> str:
    return format_message(_NAME_MESSAGES[name], *args)


def _clone_message(name: str, *args: object) -> str:
    return format_message(_CLONE_MESSAGES[name], *args)


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8; a lone surrogate counts as the three
    bytes of U+FFFD (as in the browser)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _describe(character: str) -> str:
    """A character as a message may show it: quoted when printable, else its
    code point, so that the message itself cannot be garbled."""
    if (
        _CONTROL_CHARACTER.fullmatch(character)
        or _BIDI_CHARACTER.fullmatch(character)
        or _BLANK_CHARACTER.fullmatch(character)
    ):
        return f"U+{ord(character):04X}"
    return f"'{character}'"


def _check_characters(text: str, what: str) -> str | None:
    """The control and bidirectional formatting characters rules; ``what`` is
    'key' or 'path'."""
    control = _CONTROL_CHARACTER.search(text)
    if control:
        return _name_message(f"{what}Control", _describe(control[0]))
    bidi = _BIDI_CHARACTER.search(text)
    if bidi:
        return _name_message(f"{what}Bidi", _describe(bidi[0]))
    return None


def check_bucket(bucket: str) -> str | None:
    """The S3 bucket naming rule ``bucket`` breaks (without a field name),
    or None. Also used for the publishBucket setting."""
    if not _BUCKET_MIN_LENGTH <= len(bucket) <= _BUCKET_MAX_LENGTH:
        return _name_message("bucketLength", _BUCKET_MIN_LENGTH, _BUCKET_MAX_LENGTH, len(bucket))
    for character in bucket:
        if not _BUCKET_CHARACTER.fullmatch(character):
            return _name_message("bucketCharacter", _describe(character))
    if not _BUCKET_END.fullmatch(bucket[0]) or not _BUCKET_END.fullmatch(bucket[-1]):
        return _name_message("bucketEnds")
    if ".." in bucket:
        return _name_message("bucketAdjacentDots")
    if _IPV4_LIKE.fullmatch(bucket):
        return _name_message("bucketIpAddress")
    for prefix in _BUCKET_PREFIXES:
        if bucket.startswith(prefix):
            return _name_message("bucketPrefix", prefix)
    for suffix in _BUCKET_SUFFIXES:
        if bucket.endswith(suffix):
            return _name_message("bucketSuffix", suffix)
    return None


def key_base_name(key: str) -> str:
    """The last segment of a key: the name its clone gets by default."""
    return key.rsplit("/", 1)[-1]


def check_key(key: str) -> str | None:
    """The rule a non-empty object key breaks (without a field name), or None."""
    size = utf8_length(key)
    if size > MAX_PATH_BYTES:
        return _name_message("keyBytes", MAX_PATH_BYTES, size)
    characters = _check_characters(key, "key")
    if characters:
        return characters
    if key.endswith("/"):
        return _name_message("keyFolder")
    base_name = key_base_name(key)
    if base_name in (".", ".."):
        return _name_message("keyLastSegment", base_name)
    # A browser resolves '.' and '..' in a request's path (also written as
    # %2E), so the request would read another object, even of another bucket.
    if any(segment in (".", "..") for segment in key.split("/")):
        return _name_message("keyDotSegment")
    return None


def check_target_path(
    path: str, allow_hidden: bool = False, allow_backslash: bool = False
) -> str | None:
    """The rule a path relative to the Jupyter root breaks, or None; hidden
    names are refused unless ``allow_hidden`` (``ContentsManager.allow_hidden``),
    a backslash unless ``allow_backslash``."""
    if path.startswith("/"):
        return _name_message("pathAbsolute")
    if "\\" in path and not allow_backslash:
        return _name_message("pathBackslash")
    characters = _check_characters(path, "path")
    if characters:
        return characters
    size = utf8_length(path)
    if size > MAX_PATH_BYTES:
        return _name_message("pathBytes", MAX_PATH_BYTES, size)
    # A single trailing '/' means "this folder".
    for segment in (path[:-1] if path.endswith("/") else path).split("/"):
        if segment == "":
            return _name_message("pathEmptySegment")
        if segment == "..":
            return _name_message("pathParent")
        if set(segment) == {"."}:
            return _name_message("pathDotsOnly", segment)
        if segment.startswith(".") and not allow_hidden:
            return _name_message("pathHidden", segment)
        segment_size = utf8_length(segment)
        if segment_size > MAX_NAME_BYTES:
            return _name_message("pathSegmentBytes", MAX_NAME_BYTES, segment_size)
    return None


def check_version_id(version_id: str) -> str | None:
    """The rule a non-empty version id breaks (without a field name), or None."""
    if len(version_id) > MAX_PATH_BYTES:
        return _name_message("versionIdLength", MAX_PATH_BYTES, len(version_id))
    for character in version_id:
        if not _VERSION_ID_CHARACTER.fullmatch(character):
            return _name_message("versionIdCharacter", _describe(character))
    return None


def check_file_name(name: str, source: str) -> str | None:
    """The rule the clone's file name breaks (not hidden, not too long), or
    None; ``source`` ('s3_key' or 'target_path') says where it came from."""
    from_key = source == "s3_key"
    if name.startswith("."):
        return _name_message("objectNameHidden" if from_key else "fileNameHidden", name)
    size = utf8_length(name)
    if size > MAX_NAME_BYTES:
        if from_key:
            return _name_message("objectNameBytes", size, MAX_NAME_BYTES)
        return _name_message("fileNameBytes", MAX_NAME_BYTES, size)
    return None


def _read_field(fields: Mapping[str, Any], field: str) -> tuple[str | None, str | None]:
    """A field's value (a string, or None when absent) and its problem."""
    value = fields.get(field)
    if value is None:
        return None, None
    if isinstance(value, list) and len(value) > 1:
        return None, _clone_message("givenTwice")
    if isinstance(value, list):
        return None, _clone_message("notTextList")
    if not isinstance(value, str):
        # JavaScript's name of the type, as an API caller would write it.
        kind = (
            "boolean"
            if isinstance(value, bool)
            else "number"
            if isinstance(value, (int, float))
            else "object"
        )
        return None, _clone_message("notText", kind)
    return value, None


def validate_clone_request(request: Any) -> list[Problem]:
    """Check a clone request (a parsed POST body, or a link's parameters as
    read by ``read_clone_query``). Unknown fields are ignored."""
    if not isinstance(request, Mapping):
        return [("request", _clone_message("notAnObject"))]
    problems: list[Problem] = []

    def report(field: str, message: str | None) -> None:
        if message is not None:
            problems.append((field, _clone_message("fieldProblem", field, message)))

    bucket, bucket_problem = _read_field(request, "s3_bucket")
    key, key_problem = _read_field(request, "s3_key")
    target_path, target_problem = _read_field(request, "target_path")
    version_id, version_problem = _read_field(request, "s3_version_id")

    if bucket_problem is None:
        bucket_problem = check_bucket(bucket) if bucket else _clone_message("bucketRequired")
    report("s3_bucket", bucket_problem)
    if key_problem is None:
        key_problem = check_key(key) if key else _clone_message("keyRequired")
    report("s3_key", key_problem)
    if target_problem is None and target_path:
        target_problem = check_target_path(target_path)
    report("target_path", target_problem)
    if version_problem is None and version_id:
        version_problem = check_version_id(version_id)
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

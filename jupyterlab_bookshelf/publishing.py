"""Where a notebook is published and whether it may replace what is there.

The browser's ``src/publish/destination.ts`` and ``src/publish/overwrite.ts`` apply the same
rules, from the same data (``src/rules/publish.json``, with the naming rules of
``src/rules/names.json``); ``tests/publish_destination_cases.json`` and
``tests/overwrite_cases.json`` hold the answers both must give. A server-side publish calls
``publish_key``, ``check_publish_destination`` and ``decide_overwrite`` as the browser does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .rules import format_message, load_rule
from .validation import LANDING_PATH, check_bucket, check_file_name, check_key, clone_link_query
from .validation import key_base_name as _key_base_name

_PUBLISH = load_rule("publish")
_MESSAGES: dict[str, str] = _PUBLISH["messages"]

#: The extension every published object key ends with.
NOTEBOOK_EXTENSION: str = _PUBLISH["notebookExtension"]
#: The Content-Type of a published notebook.
NOTEBOOK_CONTENT_TYPE: str = _PUBLISH["contentType"]


def _message(name: str, *args: object) -> str:
    return format_message(_MESSAGES[name], *args)


def publish_key(prefix: str, path: str) -> str:
    """The object key of a notebook published from ``path`` (relative to the Jupyter root, one
    leading '/' dropped): ``<prefix><path>``, the prefix used exactly as given."""
    return prefix + (path[1:] if path.startswith("/") else path)


def check_publish_bucket(bucket: str) -> str | None:
    """What is wrong with the publish bucket's name, or None; the fix is in the settings."""
    if not bucket:
        return _message("noBucket")
    rule = check_bucket(bucket)
    if rule:
        return _message("badBucket", rule)
    return None


def check_publish_destination(bucket: str, key: str) -> str | None:
    """What is wrong with a publish destination, or None when a notebook may be published
    there: the key follows the clone rules for ``s3_key`` (so that the result's clone link
    works), ends in ``.ipynb`` and has no '.' or '..' segment."""
    bucket_problem = check_publish_bucket(bucket)
    if bucket_problem:
        return bucket_problem
    if not key:
        return _message("emptyDestination")
    dot_segment = next((segment for segment in key.split("/") if segment in (".", "..")), None)
    if dot_segment is not None:
        return _message("dotSegment", dot_segment)
    key_problem = check_key(key)
    if key_problem:
        return _message("badKey", key_problem)
    if not key.endswith(NOTEBOOK_EXTENSION):
        return _message("notNotebook", NOTEBOOK_EXTENSION)
    # The name a clone of the published notebook gets.
    name_problem = check_file_name(_key_base_name(key), "target_path")
    if name_problem:
        return _message("badCloneName", name_problem)
    return None


class DestinationRefused(ValueError):
    """A publish destination refused before anything is sent: ``code`` is the error code
    (``src/rules/errors.json``), ``message`` says what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def resolve_destination(
    path: Any, bucket: str, prefix: str, destination: Any = None
) -> tuple[str, str]:
    """The bucket and key a notebook at ``path`` is published to, as the browser's
    ``readPublishTarget`` resolves them: ``<prefix><destination or path>`` in the publish
    bucket, after checking the request's types, the settings and the destination. ``bucket``
    and ``prefix`` are the settings' (text); ``path`` and ``destination`` come from the caller.
    Raises ``DestinationRefused`` (``InvalidRequest``, ``PublishNotConfigured``,
    ``NotANotebook``)."""
    if not isinstance(path, str) or not path:
        raise DestinationRefused("InvalidRequest", _message("pathNotText"))
    if destination is not None and not isinstance(destination, str):
        raise DestinationRefused("InvalidRequest", _message("destinationNotText"))
    bucket_problem = check_publish_bucket(bucket)
    if bucket_problem:
        raise DestinationRefused("PublishNotConfigured", bucket_problem)
    if not path.endswith(NOTEBOOK_EXTENSION):
        raise DestinationRefused(
            "NotANotebook", _message("pathNotNotebook", path, NOTEBOOK_EXTENSION)
        )
    key = publish_key(prefix, path if destination is None else destination)
    problem = check_publish_destination(bucket, key)
    if problem:
        raise DestinationRefused("InvalidRequest", problem)
    return bucket, key


def s3_path(bucket: str, key: str) -> str:
    """The ``s3://bucket/key`` address of an object, as S3 tools write it."""
    return f"s3://{bucket}/{key}"


def clone_url(
    server_origin: str, base_url: str, bucket: str, key: str, version_id: str = ""
) -> str:
    """The absolute link that opens the clone dialog for an object:
    ``<origin><base_url>bookshelf/clone?<query>``; the base URL (already URL-encoded) with or
    without its slashes."""
    trimmed = base_url.strip("/")
    base = f"/{trimmed}/" if trimmed else "/"
    query = clone_link_query({"s3_bucket": bucket, "s3_key": key, "s3_version_id": version_id})
    return f"{server_origin.rstrip('/')}{base}{LANDING_PATH}?{query}"


def _truthy(value: Any) -> bool:
    """JavaScript's truthiness, so that a JSON value decides as it does in the browser: an
    empty object or list is true there."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def decide_overwrite(
    policy: Any,
    existing: Any,
    overwrite: Any = False,
    if_match: Any = None,
    where: str | None = None,
) -> dict[str, Any]:
    """How to write a published object, as the browser's ``decideOverwrite`` decides (the same
    shape): ``{"action": "put", "condition": {...}}`` with ``{"ifNoneMatch": "*"}`` (create
    only), ``{"ifMatch": etag}`` (replace only that version) or ``{}``; or
    ``{"action": "refuse", "code": "Conflict", "reason": ..., "message": ...}``.

    ``existing`` is what a HEAD found (a mapping with an optional ``etag``) or None;
    ``overwrite`` is the user's confirmation and ``if_match`` the ETag the user saw; ``where``
    names the object in messages (its ``s3://`` path). A policy other than ``never`` and
    ``always`` counts as ``confirm``."""
    if not _truthy(existing):
        return {"action": "put", "condition": {"ifNoneMatch": "*"}}
    if policy == "never":
        message = (
            _message("policyNever", where) if _truthy(where) else _message("policyNeverNowhere")
        )
        return {
            "action": "refuse",
            "code": "Conflict",
            "reason": "policy-never",
            "message": message,
        }
    if policy == "always":
        return {"action": "put", "condition": {"ifMatch": if_match} if _truthy(if_match) else {}}
    if not _truthy(overwrite):
        message = (
            _message("needsConfirmation", where)
            if _truthy(where)
            else _message("needsConfirmationNowhere")
        )
        return {
            "action": "refuse",
            "code": "Conflict",
            "reason": "needs-confirmation",
            "message": message,
        }
    etag = (
        if_match
        if _truthy(if_match)
        else (existing.get("etag") if isinstance(existing, Mapping) else None)
    )
    return {"action": "put", "condition": {"ifMatch": etag} if _truthy(etag) else {}}

"""The administrator's switch and the S3 settings server-side mode uses."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from traitlets import Bool
from traitlets.config import Configurable

from ..deployment import resolve_publish_prefix
from ..rules import load_rule
from ..settings import OVERWRITE_POLICIES, allowed_buckets


class Bookshelf(Configurable):
    """Bookshelf's server extension options (``c.Bookshelf.…`` in the server's configuration,
    ``--Bookshelf.…`` on its command line). Administrators only: users cannot change these."""

    server_access = Bool(
        False,
        config=True,
        help=(
            "Let the Jupyter server clone from S3 and publish to it (POST /api/bookshelf/clone, "
            "PUT /api/bookshelf/published/{path}, the jupyter bookshelf command line) with the "
            "standard AWS credential chain of the server's process: environment, shared config "
            "and profile, web identity, instance role. Off: those paths answer 501 and S3 is "
            "reached from the browser only."
        ),
    )


@dataclass(frozen=True)
class S3Settings:
    """What the server needs of the Bookshelf settings in effect (the browser's too)."""

    endpoint_url: str
    region: str
    force_path_style: bool
    publish_bucket: str
    publish_prefix: str
    overwrite_policy: str
    allowed_buckets: tuple[str, ...]
    max_object_size_mb: float

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> S3Settings:
        """Read as the browser's settings parser reads them (``src/settings/parse.ts``; shared
        cases in tests/settings_cases.json): strings trimmed, the prefix without leading
        slashes, the endpoint without trailing slashes, a value of the wrong type (or an
        unknown policy, a negative size) the default."""

        def text(name: str, default: str = "") -> str:
            value = settings.get(name, default)
            return value.strip() if isinstance(value, str) else default

        rules = load_rule("settings")
        default_size = rules["defaults"]["maxObjectSizeMB"]
        size = settings.get("maxObjectSizeMB", default_size)
        if (
            isinstance(size, bool)
            or not isinstance(size, (int, float))
            or not math.isfinite(size)
            or size < 0
        ):
            size = default_size
        policy = text("overwritePolicy")
        if policy not in OVERWRITE_POLICIES:
            policy = rules["defaults"]["overwritePolicy"]
        return cls(
            endpoint_url=text("endpointUrl").rstrip("/"),
            region=text("region") or "us-east-1",
            force_path_style=settings.get("forcePathStyle") is True,
            publish_bucket=text("publishBucket"),
            # {username}: the hub user, as the browser fills it in.
            publish_prefix=resolve_publish_prefix(text("publishPrefix").lstrip("/")),
            overwrite_policy=policy,
            allowed_buckets=tuple(allowed_buckets(settings)),
            max_object_size_mb=float(size),
        )

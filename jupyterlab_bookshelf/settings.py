"""The effective settings of the ``jupyterlab-bookshelf:core`` plugin.

JupyterLab composes a plugin's settings from the schema defaults, the
administrator's overrides (``<app_settings_dir>/overrides.json``, applied to
the defaults) and the user's settings file. This module computes the same
composition on the server, from the directories of the running JupyterLab,
so that ``GET /api/bookshelf`` describes what the browser will use.

jupyterlab_server has no public API for the parts of this (its ``get_settings`` finds the schema
only where an installed extension has it, and drops whether an overrides file could be read), so
this module reads the files itself, as ``jupyterlab_server.settings_utils`` reads them: the
overrides files with ``json``/``json5`` in JupyterLab's order, then ``default_setting_overrides``
of the ``labconfig`` folders through jupyter_server's ``ConfigManager``, merged with
jupyter_server's ``recursive_update``; the user settings file with ``json5``, validated with
jsonschema's ``Draft7Validator`` as JupyterLab validates it.
"""

from __future__ import annotations

import copy
import difflib
import functools
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import json5
from jsonschema import Draft7Validator, ValidationError
from jupyter_core.paths import jupyter_config_dir, jupyter_path
from jupyter_server.config_manager import recursive_update
from jupyter_server.services.config.manager import ConfigManager
from jupyterlab_server.settings_utils import SETTINGS_EXTENSION

from .deployment import USERNAME_PLACEHOLDER, resolve_publish_prefix
from .rules import format_message, load_rule
from .validation import check_bucket

EXTENSION_NAME = "jupyterlab-bookshelf"
PLUGIN_NAME = "core"
SCHEMA_NAME = f"{EXTENSION_NAME}:{PLUGIN_NAME}"

#: The schema of a source checkout (next to the package and package.json);
#: None when installed.
_SOURCE_ROOT = Path(__file__).resolve().parent.parent
SOURCE_SCHEMA = (
    _SOURCE_ROOT / "schema" / f"{PLUGIN_NAME}.json"
    if (_SOURCE_ROOT / "package.json").is_file()
    else None
)

#: The choices of the settings that have them, shared with the browser (src/rules/settings.json).
_CHOICES = load_rule("settings")["choices"]
#: The problem texts the browser's features() gives too (src/rules/features.json).
_PROBLEMS: dict[str, str] = load_rule("features")["problems"]
CREDENTIALS_MODES: tuple[str, ...] = tuple(_CHOICES["credentials.mode"])
OVERWRITE_POLICIES: tuple[str, ...] = tuple(_CHOICES["overwritePolicy"])


@dataclass(frozen=True)
class SettingsPaths:
    """Where JupyterLab keeps the schemas, the overrides and the user settings."""

    app_settings_dir: str
    schemas_dir: str
    user_settings_dir: str
    labextensions_path: tuple[str, ...]


def _lab_app(server_app: Any) -> Any:
    """The running JupyterLab (or Notebook 7) extension app, if any.

    Looked up at request time: JupyterLab may be loaded after this extension.
    """
    manager = getattr(server_app, "extension_manager", None)
    if manager is None:
        return None
    points = manager.extension_points
    # Extension points are named by their app: JupyterLab's is "lab". With
    # Notebook 7 installed, both load in one server, each with its own
    # settings folders; JupyterLab's answer the settings API (it loads
    # first), so its folders are the ones the page sees.
    preferred = [points.get("lab"), points.get("notebook")]
    for point in [*preferred, *points.values()]:
        app = getattr(point, "app", None)
        if (
            app is not None
            and point.linked
            and all(
                hasattr(app, name)
                for name in ("app_settings_dir", "schemas_dir", "user_settings_dir")
            )
        ):
            return app
    return None


def _default_paths() -> SettingsPaths:
    """JupyterLab's default directories, for a server without JupyterLab."""
    try:
        from jupyterlab.commands import get_app_dir, get_user_settings_dir

        app_dir = get_app_dir()
        user_settings_dir = get_user_settings_dir()
    except ImportError:
        app_dir = os.environ.get("JUPYTERLAB_DIR") or os.path.join(
            sys.prefix, "share", "jupyter", "lab"
        )
        user_settings_dir = os.environ.get("JUPYTERLAB_SETTINGS_DIR") or os.path.join(
            jupyter_config_dir(), "lab", "user-settings"
        )
    return SettingsPaths(
        app_settings_dir=os.path.join(app_dir, "settings"),
        schemas_dir=os.path.join(app_dir, "schemas"),
        user_settings_dir=user_settings_dir,
        labextensions_path=tuple(jupyter_path("labextensions")),
    )


def settings_paths(server_app: Any) -> SettingsPaths:
    """The settings directories the running JupyterLab uses."""
    app = _lab_app(server_app)
    if app is None:
        return _default_paths()
    return SettingsPaths(
        app_settings_dir=app.app_settings_dir,
        schemas_dir=app.schemas_dir,
        user_settings_dir=app.user_settings_dir,
        labextensions_path=tuple(
            [*getattr(app, "extra_labextensions_path", []), *getattr(app, "labextensions_path", [])]
        ),
    )


def find_schema(paths: SettingsPaths) -> Path | None:
    """The plugin's schema: the built extension's, as JupyterLab finds it,
    else the source checkout's."""
    candidates = [
        Path(ext_dir, EXTENSION_NAME, "schemas", EXTENSION_NAME, f"{PLUGIN_NAME}.json")
        for ext_dir in paths.labextensions_path
    ]
    if paths.schemas_dir:
        candidates.append(Path(paths.schemas_dir, EXTENSION_NAME, f"{PLUGIN_NAME}.json"))
    if SOURCE_SCHEMA:
        candidates.append(SOURCE_SCHEMA)
    return next((path for path in candidates if path.is_file()), None)


def _file_signature(path: str | os.PathLike[str] | None) -> tuple[int, int, int] | None:
    try:
        stat = os.stat(path) if path else None
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino) if stat else None


@functools.lru_cache(maxsize=8)
def _overrides(app_settings_dir: str) -> tuple[dict[str, Any], bool]:
    """The administrator's overrides of every plugin, as JupyterLab merges them, and whether a
    file of them could not be used (JupyterLab skips it). JupyterLab reads them once, at start;
    so does this."""
    overrides: dict[str, Any] = {}
    error = False
    for path in _overrides_files(app_settings_dir):
        try:
            text = path.read_text(encoding="utf-8")
            data = json5.loads(text) if path.suffix == ".json5" else json.loads(text)
            for plugin_id, config in data.items():
                recursive_update(overrides.setdefault(plugin_id, {}), config)
        except (OSError, ValueError, AttributeError, TypeError):
            error = True
    # The defaults the labconfig folders set for every user (default_setting_overrides.json).
    labconfig = ConfigManager(config_dir_name="labconfig").get("default_setting_overrides")
    for plugin_id, config in labconfig.items():
        recursive_update(overrides.setdefault(plugin_id, {}), config)
    return overrides, error


def _apply_overrides(schema: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """The schema with the plugin's overrides as its defaults, as JupyterLab applies them: an
    object default is updated key by key, any other default replaced."""
    plugin_overrides = overrides.get(SCHEMA_NAME)
    if plugin_overrides is None:
        return schema
    properties = schema["properties"]
    for name in plugin_overrides:
        if name in properties:
            default = properties[name]["default"]
            if isinstance(default, dict):
                recursive_update(default, plugin_overrides[name])
            else:
                default = plugin_overrides[name]
            properties[name]["default"] = default
        else:
            properties[name] = {"default": plugin_overrides[name]}
    return schema


def _user_settings(user_settings_dir: str, schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The user's settings of the plugin, and whether they were dropped for not matching the
    schema (JupyterLab then uses none of them). Raises ``ValueError`` when the file is not
    JSON5, ``OSError`` when it cannot be read."""
    path = Path(user_settings_dir, EXTENSION_NAME, PLUGIN_NAME + SETTINGS_EXTENSION)
    if not path.exists():
        return {}, False
    settings = json5.loads(path.read_text(encoding="utf-8") or "{}")
    if isinstance(settings, dict) and not settings:
        return {}, False
    try:
        Draft7Validator(schema).validate(settings)
    except ValidationError:
        return {}, True
    return settings, False


#: The overrides files JupyterLab reads, in its order (jupyterlab_server's ``settings_utils``):
#: ``overrides.d/*.json`` and ``*.json5``, then ``overrides.json`` and ``overrides.json5``.
def _overrides_files(app_settings_dir: str) -> list[Path]:
    folder = Path(app_settings_dir)
    numbered = sorted(
        [*(folder / "overrides.d").glob("*.json"), *(folder / "overrides.d").glob("*.json5")]
    )
    return [
        path
        for path in [*numbered, folder / "overrides.json", folder / "overrides.json5"]
        if path.is_file()
    ]


def _syntax_error_place(error: Exception) -> str:
    """Where a JSON or JSON5 parser stopped, as "line L, column C"; never the text there,
    which may be part of a secret."""
    if isinstance(error, json.JSONDecodeError):
        return f"line {error.lineno}, column {error.colno}"
    found = re.search(r":(\d+) .* at column (\d+)", str(error))
    return f"line {found.group(1)}, column {found.group(2)}" if found else "somewhere"


def _unknown_names(given: dict[str, Any], schema: dict[str, Any], prefix: str = "") -> list[str]:
    """The names in ``given`` that the schema does not have, each with the setting it most
    likely meant; nested objects of the schema (``credentials``) are checked too."""
    known = schema.get("properties", {})
    by_lower = {name.lower(): name for name in known}
    problems = []
    for name, value in given.items():
        if name in known:
            if isinstance(value, dict) and "properties" in known[name]:
                problems += _unknown_names(value, known[name], f"{prefix}{name}.")
            continue
        guess = by_lower.get(name.lower()) or next(
            iter(difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)), None
        )
        hint = f" (did you mean '{prefix}{guess}'?)" if guess else ""
        problems.append(f"'{prefix}{name}' is not a Bookshelf setting{hint}")
    return problems


@functools.lru_cache(maxsize=8)
def overrides_file_problems(app_settings_dir: str, schema_path: str) -> tuple[str, ...]:
    """What is wrong in the administrator's overrides files, each with the file and, for a
    syntax error, the line: a file that does not parse is ignored whole by JupyterLab (every
    admin setting in it is lost), and a misspelt setting is ignored silently. Read once, as
    JupyterLab reads the overrides once, at start."""
    try:
        schema = _schema(schema_path, _file_signature(schema_path))
    except (OSError, ValueError):
        return ()
    problems: list[str] = []
    for path in _overrides_files(app_settings_dir):
        shown = path.relative_to(app_settings_dir).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
            data = json5.loads(text) if path.suffix == ".json5" else json.loads(text)
        except (OSError, UnicodeDecodeError):
            problems.append(f"the overrides file {shown} cannot be read; JupyterLab ignores it")
            continue
        except ValueError as error:
            problems.append(
                f"the overrides file {shown} is not valid {path.suffix[1:].upper()} at "
                f"{_syntax_error_place(error)}: JupyterLab ignores every setting in it "
                "until it is corrected and JupyterLab is restarted"
            )
            continue
        if not isinstance(data, dict):
            problems.append(
                f"the overrides file {shown} is not a JSON object; JupyterLab ignores it"
            )
            continue
        for plugin_id, section in data.items():
            if plugin_id == SCHEMA_NAME:
                if isinstance(section, dict):
                    problems += [
                        f"in {shown}, {problem}: JupyterLab ignores it"
                        for problem in _unknown_names(section, schema)
                    ]
            elif plugin_id.startswith(EXTENSION_NAME) and plugin_id not in _plugin_ids(schema_path):
                problems.append(
                    f"in {shown}, '{plugin_id}' is not a Bookshelf plugin "
                    f"(the settings are under '{SCHEMA_NAME}'): JupyterLab ignores it"
                )
    return tuple(problems)


def _plugin_ids(schema_path: str) -> set[str]:
    """The plugin ids of this extension that have settings: one schema file each, beside the
    core schema (the source checkout's ``schema/`` or the built extension's schemas folder)."""
    return {f"{EXTENSION_NAME}:{path.stem}" for path in Path(schema_path).parent.glob("*.json")}


@functools.lru_cache(maxsize=1)
def _schema(path: str, _signature: tuple[int, int, int] | None) -> dict[str, Any]:
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def compose(schema: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    """Fill in defaults the way JupyterLab's settings registry does (Ajv
    with ``useDefaults``): a property the user did not set takes its default
    from the schema, in which the overrides have replaced the defaults; an
    object the user did set is completed from its properties' defaults."""
    result = copy.deepcopy(user)
    for name, prop in schema.get("properties", {}).items():
        if name not in result and "default" in prop:
            result[name] = copy.deepcopy(prop["default"])
        if isinstance(result.get(name), dict) and "properties" in prop:
            result[name] = compose(prop, result[name])
    return result


@functools.lru_cache(maxsize=8)
def _load(
    paths: SettingsPaths,
    schema_path: str | None,
    _schema_signature: tuple[int, int, int] | None,
    _user_signature: tuple[int, int, int] | None,
) -> tuple[dict[str, Any], tuple[str, ...]]:
    problems: list[str] = []
    if schema_path is None:
        return {}, (f"the settings schema of {SCHEMA_NAME} was not found",)
    try:
        schema = copy.deepcopy(_schema(schema_path, _schema_signature))
    except (OSError, ValueError):
        return {}, (f"the settings schema of {SCHEMA_NAME} could not be read",)
    overrides, overrides_error = _overrides(paths.app_settings_dir)
    file_problems = overrides_file_problems(paths.app_settings_dir, schema_path)
    problems.extend(file_problems)
    if overrides_error and not file_problems:
        problems.append(
            "an overrides file in JupyterLab's app settings folder could not be read, "
            "so JupyterLab ignores it"
        )
    try:
        schema = _apply_overrides(schema, overrides)
    except (AttributeError, KeyError, TypeError):
        # e.g. an override that gives a string where the schema has an object
        problems.append(f"the overrides of {SCHEMA_NAME} do not fit its settings schema")
        schema = copy.deepcopy(_schema(schema_path, _schema_signature))
    try:
        user, mismatched = _user_settings(paths.user_settings_dir, schema)
    except (OSError, ValueError):
        # The message of the parse error may quote the file; never show it.
        user, mismatched = {}, False
        problems.append(
            "the user settings file of Bookshelf is not valid JSON5, "
            "so JupyterLab cannot use it (fix it in the Settings Editor)"
        )
    if mismatched:
        # The validation error quotes the offending value, which may be a secret.
        problems.append(
            "the user settings of Bookshelf do not match the settings schema, "
            "so JupyterLab ignores them (fix them in the Settings Editor)"
        )
    return compose(schema, user), tuple(problems)


def effective_settings(paths: SettingsPaths) -> tuple[dict[str, Any], list[str]]:
    """The settings the browser uses, and the problems met reading them.

    Cheap to call per request: the files are parsed again only when they
    change.
    """
    schema_path = find_schema(paths)
    user_path = os.path.join(
        paths.user_settings_dir, EXTENSION_NAME, PLUGIN_NAME + SETTINGS_EXTENSION
    )
    settings, problems = _load(
        paths,
        str(schema_path) if schema_path else None,
        _file_signature(schema_path),
        _file_signature(user_path),
    )
    return copy.deepcopy(settings), list(problems)


def _string(settings: dict[str, Any], name: str, problems: list[str], label: str = "") -> str:
    value = settings.get(name, "")
    if isinstance(value, str):
        return value.strip()
    problems.append(f"{label or name} must be a string")
    return ""


def _endpoint_url(value: str) -> tuple[str, list[str]]:
    """The endpoint URL as it may be shown (without user name, password,
    query or fragment, which may hold secrets), and its problems."""
    if not value:
        return "", []
    parts = urlsplit(value)
    try:
        port = parts.port
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        valid = False
    if not valid:
        return "", [_PROBLEMS["endpointNotHttp"]]
    problems = []
    if "@" in parts.netloc:
        problems.append(_PROBLEMS["endpointUserInfo"])
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = f"{host}:{port}" if port is not None else host
    # As the browser uses it: without trailing slashes.
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/"), problems


def _clone_problems(settings: dict[str, Any]) -> list[str]:
    """What keeps clone from working. Names settings, never their values."""
    problems: list[str] = []
    if not _string(settings, "region", problems):
        problems.append(_PROBLEMS["regionEmpty"])
    problems.extend(_endpoint_url(_string(settings, "endpointUrl", problems))[1])
    credentials = settings.get("credentials")
    if not isinstance(credentials, dict):
        return [*problems, "credentials must be an object"]
    mode = _string(credentials, "mode", problems, "credentials.mode")
    if mode not in CREDENTIALS_MODES:
        problems.append(f"credentials.mode must be one of {', '.join(CREDENTIALS_MODES)}")
    elif mode == "settings":
        for name in ("accessKeyId", "secretAccessKey"):
            value = credentials.get(name)
            if not isinstance(value, str) or not value.strip():
                problems.append(format_message(_PROBLEMS["settingsKeyEmpty"], name))
    elif mode == "endpoint":
        endpoint = _string(credentials, "endpoint", problems, "credentials.endpoint")
        if not endpoint:
            problems.append(_PROBLEMS["endpointEmpty"])
    return problems


def _publish_problems(settings: dict[str, Any]) -> list[str]:
    """What keeps publish from working, besides clone's problems. An empty
    publishBucket is not a problem: it means publishing is off."""
    problems: list[str] = []
    bucket = _string(settings, "publishBucket", problems)
    rule = check_bucket(bucket) if bucket else None
    if rule:
        problems.append(format_message(_PROBLEMS["publishBucket"], rule))
    prefix = resolve_publish_prefix(_string(settings, "publishPrefix", problems))
    if USERNAME_PLACEHOLDER in prefix:
        problems.append(format_message(_PROBLEMS["publishPrefixUser"], USERNAME_PLACEHOLDER))
    if settings.get("overwritePolicy") not in OVERWRITE_POLICIES:
        problems.append(f"overwritePolicy must be one of {', '.join(OVERWRITE_POLICIES)}")
    return problems


def allowed_buckets(settings: dict[str, Any]) -> list[str]:
    """The ``allowedBuckets`` patterns as the browser reads them (strings,
    trimmed, empty ones left out); an empty list allows every bucket."""
    value = settings.get("allowedBuckets")
    if not isinstance(value, list):
        return []
    return [item.strip() for item in value if isinstance(item, str) and item.strip()]


def features(settings: dict[str, Any], load_problems: list[str]) -> dict[str, bool | str]:
    """The ``features`` of ``GET /api/bookshelf``: what is configured and
    whether it can work. Never a secret, nor anything derived from one."""
    clone_problems = _clone_problems(settings)
    publish_problems = _publish_problems(settings)
    ignored: list[str] = []  # wrong types are reported by the checks above
    credentials = settings.get("credentials")
    mode = _string(credentials, "mode", ignored) if isinstance(credentials, dict) else ""
    publish_bucket = _string(settings, "publishBucket", ignored)
    return {
        "clone_valid": not clone_problems,
        "publish_valid": not clone_problems and not publish_problems and bool(publish_bucket),
        "credentials_mode": mode,
        "endpoint_url": _endpoint_url(_string(settings, "endpointUrl", ignored))[0],
        "region": _string(settings, "region", ignored),
        "force_path_style": settings.get("forcePathStyle") is True,
        "publish_bucket": publish_bucket,
        "publish_prefix": resolve_publish_prefix(
            _string(settings, "publishPrefix", ignored).lstrip("/")
        ),
        "overwrite_policy": _string(settings, "overwritePolicy", ignored),
        "links_restricted": bool(allowed_buckets(settings)),
        "settings_problem": "; ".join([*load_problems, *clone_problems, *publish_problems]),
    }

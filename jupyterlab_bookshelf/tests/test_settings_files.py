"""The settings files read as JupyterLab reads them: the overrides (files and labconfig's
default_setting_overrides) and the user settings, compared with jupyterlab_server's own public
``get_settings`` where it applies (an installed schema)."""

from __future__ import annotations

import json
import shutil

import pytest
from jupyterlab_server.settings_utils import get_settings

from jupyterlab_bookshelf.settings import (
    EXTENSION_NAME,
    PLUGIN_NAME,
    SCHEMA_NAME,
    SOURCE_SCHEMA,
    SettingsPaths,
    compose,
    effective_settings,
)


@pytest.fixture
def lab(tmp_path, monkeypatch):
    """A JupyterLab's settings folders with Bookshelf's schema installed, and an empty
    labconfig folder first on the Jupyter config path."""
    assert SOURCE_SCHEMA is not None, "the tests run from a source checkout"
    schemas = tmp_path / "schemas"
    (schemas / EXTENSION_NAME).mkdir(parents=True)
    shutil.copy(SOURCE_SCHEMA, schemas / EXTENSION_NAME / f"{PLUGIN_NAME}.json")
    (tmp_path / "app-settings").mkdir()
    (tmp_path / "user-settings" / EXTENSION_NAME).mkdir(parents=True)
    (tmp_path / "config" / "labconfig").mkdir(parents=True)
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path / "config"))
    paths = SettingsPaths(
        app_settings_dir=str(tmp_path / "app-settings"),
        schemas_dir=str(schemas),
        user_settings_dir=str(tmp_path / "user-settings"),
        labextensions_path=(),
    )
    return tmp_path, paths


def write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")


def jupyterlabs_view(paths: SettingsPaths) -> dict:
    """What jupyterlab_server's get_settings gives for the plugin, composed as the registry does."""
    result, _ = get_settings(
        paths.app_settings_dir,
        paths.schemas_dir,
        paths.user_settings_dir,
        schema_name=SCHEMA_NAME,
    )
    return compose(result["schema"], result["settings"])


def test_overrides_and_user_settings_compose_as_in_jupyterlab(lab):
    root, paths = lab
    write(
        root / "app-settings" / "overrides.json",
        {SCHEMA_NAME: {"region": "eu-west-1", "credentials": {"mode": "anonymous"}}},
    )
    (root / "app-settings" / "overrides.d").mkdir()
    write(
        root / "app-settings" / "overrides.d" / "10-team.json",
        {SCHEMA_NAME: {"publishBucket": "team", "region": "us-west-2"}},
    )
    write(
        root / "config" / "labconfig" / "default_setting_overrides.json",
        {SCHEMA_NAME: {"publishPrefix": "shared/"}},
    )
    write(
        root / "user-settings" / EXTENSION_NAME / f"{PLUGIN_NAME}.jupyterlab-settings",
        {"overwritePolicy": "never"},
    )
    settings, problems = effective_settings(paths)
    assert problems == []
    assert settings == jupyterlabs_view(paths)
    assert settings["region"] == "eu-west-1"  # overrides.json after overrides.d
    assert settings["credentials"]["mode"] == "anonymous"
    assert settings["credentials"]["accessKeyId"] == ""
    assert settings["publishBucket"] == "team"
    assert settings["publishPrefix"] == "shared/"
    assert settings["overwritePolicy"] == "never"


def test_user_settings_that_do_not_match_the_schema_are_ignored_as_in_jupyterlab(lab):
    root, paths = lab
    write(
        root / "user-settings" / EXTENSION_NAME / f"{PLUGIN_NAME}.jupyterlab-settings",
        {"region": 5, "publishBucket": "mine"},
    )
    settings, problems = effective_settings(paths)
    assert settings == jupyterlabs_view(paths)
    assert settings["publishBucket"] == ""
    assert problems == [
        "the user settings of Bookshelf do not match the settings schema, "
        "so JupyterLab ignores them (fix them in the Settings Editor)"
    ]


def test_an_overrides_file_that_is_not_an_object_is_skipped(lab):
    root, paths = lab
    write(root / "app-settings" / "overrides.json", ["not", "an", "object"])
    settings, problems = effective_settings(paths)
    assert settings == jupyterlabs_view(paths)
    assert problems == [
        "the overrides file overrides.json is not a JSON object; JupyterLab ignores it"
    ]

"""The settings' defaults and choices of the shared rules (src/rules/settings.json) are the
schema's (schema/core.json), which JupyterLab reads; the browser checks the same in
src/__tests__/settings.spec.ts."""

from __future__ import annotations

import json

from jupyterlab_bookshelf.rules import load_rule
from jupyterlab_bookshelf.settings import (
    CREDENTIALS_MODES,
    OVERWRITE_POLICIES,
    SOURCE_SCHEMA,
    compose,
)


def _schema() -> dict:
    assert SOURCE_SCHEMA is not None, "the tests run from a source checkout"
    return json.loads(SOURCE_SCHEMA.read_text("utf-8"))


def _choices(prop: dict) -> list[str]:
    return [choice["const"] for choice in prop["oneOf"]]


def test_the_defaults_are_the_schemas():
    schema = _schema()
    rules = load_rule("settings")
    assert rules["defaults"] == {
        name: prop["default"] for name, prop in schema["properties"].items()
    }
    assert compose(schema, {}) == rules["defaults"]


def test_the_choices_are_the_schemas():
    schema = _schema()
    assert load_rule("settings")["choices"] == {
        "credentials.mode": _choices(schema["properties"]["credentials"]["properties"]["mode"]),
        "overwritePolicy": _choices(schema["properties"]["overwritePolicy"]),
    }
    assert list(CREDENTIALS_MODES) == load_rule("settings")["choices"]["credentials.mode"]
    assert list(OVERWRITE_POLICIES) == load_rule("settings")["choices"]["overwritePolicy"]

"""The shared rule files as the server extension reads them: their messages fill as the
browser's ``trans.__`` fills them, and their character classes match the same characters
(rules_cases.json, run by src/__tests__/rules-cases.spec.ts too)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jupyterlab_bookshelf.rules import format_message, load_rule

CASES = json.loads((Path(__file__).parent / "rules_cases.json").read_text("utf-8"))


@pytest.mark.parametrize(
    "case", CASES["placeholders"], ids=[c["template"] for c in CASES["placeholders"]]
)
def test_placeholders_fill_as_in_the_browser(case):
    assert format_message(case["template"], *case["args"]) == case["expected"]


@pytest.mark.parametrize(
    "case",
    CASES["characters"],
    ids=[f"{c['class']} {c['character']!r}" for c in CASES["characters"]],
)
def test_a_character_class_matches_as_in_the_browser(case):
    source = load_rule("names")["characters"][case["class"]]
    assert bool(re.fullmatch(source, case["character"])) is case["matches"]


def _templates():
    for name in ("names", "clone", "publish", "features"):
        for key, template in load_rule(name)[
            "messages" if name != "features" else "problems"
        ].items():
            yield f"{name}.{key}", template


@pytest.mark.parametrize(("where", "template"), list(_templates()))
def test_a_message_numbers_its_placeholders_from_one(where, template):
    numbers = sorted({int(n) for n in re.findall(r"%(\d+)", template)})
    assert numbers == list(range(1, len(numbers) + 1)), where

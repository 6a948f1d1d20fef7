"""Overwrite decisions on the shared cases of overwrite_cases.json.

The browser runs the same cases in src/__tests__/overwrite-cases.spec.ts: the policy, what
exists and what the user saw decide alike on both sides, wrongly typed values included.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_bookshelf.publishing import decide_overwrite

CASES = json.loads((Path(__file__).parent / "overwrite_cases.json").read_text("utf-8"))["cases"]


def test_has_every_policy_existing_object_and_option():
    assert len(CASES) > 50


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_overwrite_decision_matches_the_shared_case(case):
    options = case["options"]
    decision = decide_overwrite(
        case["policy"],
        case["existing"],
        overwrite=options.get("overwrite", False),
        if_match=options.get("ifMatch"),
        where=case.get("where"),
    )
    assert decision == case["decision"]

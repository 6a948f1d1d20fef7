"""The features of GET /api/bookshelf for the shared cases of features_cases.json.

The browser's ``IBookshelf.info()`` computes its features from the same cases in
src/__tests__/features.spec.ts: both sides must give exactly the recorded features.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_bookshelf.settings import SOURCE_SCHEMA, compose, features

CASES = json.loads((Path(__file__).parent / "features_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_shim_features_match_the_shared_cases(case):
    assert SOURCE_SCHEMA is not None, "the tests run from a source checkout"
    schema = json.loads(SOURCE_SCHEMA.read_text())
    assert features(compose(schema, case["user"]), []) == case["features"]


def test_no_case_reports_a_secret():
    for case in CASES:
        assert "SECRET" not in json.dumps(case["features"]), case["name"]

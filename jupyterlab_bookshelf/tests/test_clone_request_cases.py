"""The clone request rules on the shared cases of clone_request_cases.json.

The browser runs the same cases in src/__tests__/clone-request-cases.spec.ts: both sides must
give exactly the recorded problems, links and allowedBuckets decisions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_bookshelf.validation import (
    bucket_allowed,
    clone_link_query,
    normalize_clone_request,
    validate_clone_request,
)

SHARED = json.loads((Path(__file__).parent / "clone_request_cases.json").read_text())


@pytest.mark.parametrize("case", SHARED["requests"], ids=[c["name"] for c in SHARED["requests"]])
def test_clone_request_matches_the_shared_case(case):
    problems = [list(problem) for problem in validate_clone_request(case["request"])]
    assert problems == case["problems"]
    if "link_query" in case:
        assert clone_link_query(normalize_clone_request(case["request"])) == case["link_query"]


@pytest.mark.parametrize(
    "case", SHARED["allowed_buckets"], ids=[c["name"] for c in SHARED["allowed_buckets"]]
)
def test_allowed_buckets_match_the_shared_case(case):
    assert bucket_allowed(case["bucket"], case["patterns"]) is case["allowed"]

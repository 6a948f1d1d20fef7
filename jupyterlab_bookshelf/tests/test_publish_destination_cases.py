"""Publish destinations on the shared cases of publish_destination_cases.json.

The browser runs the same cases in src/__tests__/publish-destination.spec.ts: both sides
must give the same object key, problem, s3:// path and clone link.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_bookshelf.publishing import (
    DestinationRefused,
    check_publish_bucket,
    check_publish_destination,
    clone_url,
    publish_key,
    resolve_destination,
    s3_path,
)

SHARED = json.loads((Path(__file__).parent / "publish_destination_cases.json").read_text("utf-8"))
SERVER = SHARED["servers"][0]


def test_has_the_cases():
    assert len(SHARED["cases"]) > 20
    assert len([case for case in SHARED["cases"] if case["problem"] is None]) > 5


@pytest.mark.parametrize("case", SHARED["cases"], ids=[c["name"] for c in SHARED["cases"]])
def test_publish_destination_matches_the_shared_case(case):
    key = publish_key(case["prefix"], case["path"])
    assert key == case["key"]
    assert check_publish_destination(case["bucket"], key) == case["problem"]
    if case["problem"] is None:
        assert s3_path(case["bucket"], key) == case["s3_path"]
        url = clone_url(
            SERVER["origin"], SERVER["base_url"], case["bucket"], key, case.get("version_id", "")
        )
        assert url == case["clone_url"]


@pytest.mark.parametrize("case", SHARED["buckets"], ids=[c["name"] for c in SHARED["buckets"]])
def test_publish_bucket_matches_the_shared_case(case):
    assert check_publish_bucket(case["bucket"]) == case["problem"]


@pytest.mark.parametrize("case", SHARED["resolve"], ids=[c["name"] for c in SHARED["resolve"]])
def test_publish_request_resolves_as_the_shared_case(case):
    try:
        bucket, key = resolve_destination(
            case["path"], case["publish_bucket"], case["publish_prefix"], case.get("destination")
        )
        outcome = {"bucket": bucket, "key": key}
    except DestinationRefused as refused:
        outcome = {"code": refused.code, "message": refused.message}
    assert outcome == case["outcome"]

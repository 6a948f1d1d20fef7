"""Clone links on the shared cases of link_cases.json.

The browser runs the same cases in src/__tests__/link-cases.spec.ts: both sides must write a
request's link query alike, and read a query (here as Tornado parses a request's query
arguments, from the UTF-8 bytes a browser sends) into the same request with the same problems.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tornado.escape import parse_qs_bytes

from jupyterlab_bookshelf.validation import (
    clone_link_query,
    normalize_clone_request,
    read_clone_query,
    validate_clone_request,
)

SHARED = json.loads((Path(__file__).parent / "link_cases.json").read_text("utf-8"))


def read_query(query: str) -> dict:
    """A link's query as the server's handler reads it (Tornado splits the '?' off the URL)."""
    query = query.removeprefix("?")
    return read_clone_query(parse_qs_bytes(query.encode("utf-8"), keep_blank_values=True))


def test_has_the_cases():
    assert len(SHARED["to_link"]) > 15
    assert len(SHARED["from_link"]) > 15


@pytest.mark.parametrize("case", SHARED["to_link"], ids=[c["name"] for c in SHARED["to_link"]])
def test_request_to_link(case):
    assert validate_clone_request(case["request"]) == []
    normalized = normalize_clone_request(case["request"])
    assert clone_link_query(normalized) == case["query"]
    assert read_query(case["query"]) == normalized


@pytest.mark.parametrize("case", SHARED["from_link"], ids=[c["name"] for c in SHARED["from_link"]])
def test_link_to_request(case):
    request = read_query(case["query"])
    assert request == case["request"]
    assert [list(problem) for problem in validate_clone_request(request)] == case["problems"]

"""Which ETags are an MD5 reads alike in both languages: the server's ``etag_md5`` answers
as the browser's ``etagMd5`` (etag_cases.json, run by src/__tests__/etag-cases.spec.ts too)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_bookshelf.server_access.s3 import etag_md5

CASES = json.loads((Path(__file__).parent / "etag_cases.json").read_text("utf-8"))["cases"]


def test_the_cases_are_there():
    assert len(CASES) > 10
    assert len({case["case"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_the_server_reads_an_etag_as_the_browser_does(case):
    md5 = etag_md5(case["etag"], case.get("encryption"), case.get("sse_customer"))
    assert md5 == case["expected"]

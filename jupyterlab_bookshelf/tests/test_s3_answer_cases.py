"""What S3's answers mean reads alike in both languages: the server's ``s3_answer_code``
gives the browser's ``s3AnswerCode`` code for each answer (s3_answer_cases.json, run by
src/__tests__/s3-answer-cases.spec.ts too)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyterlab_bookshelf.errors import error_codes
from jupyterlab_bookshelf.rules import load_rule
from jupyterlab_bookshelf.server_access.s3 import s3_answer_code

CASES = json.loads((Path(__file__).parent / "s3_answer_cases.json").read_text("utf-8"))["cases"]


def test_the_cases_are_there():
    assert len(CASES) > 30
    assert len({case["case"] for case in CASES}) == len(CASES)


def test_every_code_the_rule_gives_is_a_bookshelf_code():
    answers = load_rule("s3answers")
    given = {*answers["codes"].values(), *answers["statuses"].values(), "NoSuchVersion"}
    assert sorted(given - set(error_codes())) == []


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_the_server_reads_an_answer_as_the_browser_does(case):
    code = s3_answer_code(case["name"], case["status"], case["key"], case.get("version_id"))
    assert code == case["expected"]

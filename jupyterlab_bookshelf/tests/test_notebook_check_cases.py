"""The notebook check reads alike in both languages: the server's checks, whole and
streamed, say of each file what the browser's ``checkNotebook`` says
(notebook_check_cases.json, run by src/__tests__/notebook-check-cases.spec.ts too)."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest

from jupyterlab_bookshelf.errors import BookshelfError
from jupyterlab_bookshelf.server_access.notebook import (
    check_notebook_bytes,
    check_notebook_once,
    check_notebook_stream,
)

CASES = json.loads((Path(__file__).parent / "notebook_check_cases.json").read_text("utf-8"))[
    "cases"
]
PREFIX = "The object is not a Jupyter notebook: "


def data_of(case: dict) -> bytes:
    return case["text"].encode() if "text" in case else base64.b64decode(case["base64"])


#: Where a JSON error is, which the browser's engine says for some errors only.
_WHERE = re.compile(r" \(error at (line \d+, column \d+)\)")


def reason(check, *args, at: str | None = None) -> str | None:
    """The reason the check gives, without where the JSON breaks (compared with ``at``)."""
    try:
        check(*args)
    except BookshelfError as error:
        assert error.code == "NotANotebook"
        assert error.message.startswith(PREFIX)
        where = _WHERE.search(error.message)
        if at is not None:
            assert where is not None and where.group(1) == at
        return _WHERE.sub("", error.message[len(PREFIX) :])
    return None


def test_the_cases_are_there():
    assert len(CASES) > 50
    assert len({case["name"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("purpose", ["clone", "publish"])
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_server_says_what_the_browser_says(case, purpose):
    data, at = data_of(case), case.get("at")
    assert reason(check_notebook_bytes, data, purpose, at=at) == case[purpose]
    assert reason(check_notebook_stream, io.BytesIO(data), purpose, at=at) == case[purpose]


@pytest.mark.parametrize("purpose", ["clone", "publish"])
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_check_of_bytes_as_they_arrive_never_says_otherwise(case, purpose):
    """The clone's check while the body arrives passes a notebook, refuses with the same
    reason, or leaves the verdict to the saved copy's check (False): never another one."""
    answer: list[bool] = []
    said = reason(lambda: answer.append(check_notebook_once(io.BytesIO(data_of(case)), purpose)))
    if said is not None:
        assert said == case[purpose]
    elif answer == [True]:
        assert case[purpose] is None

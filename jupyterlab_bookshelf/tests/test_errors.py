"""The server's error codes are those of the shared errors.json, with its statuses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jupyterlab_bookshelf.errors import BookshelfError, error_codes, status_of
from jupyterlab_bookshelf.rules import load_rule

PACKAGE = Path(__file__).resolve().parents[1]

#: A code where an error is made: BookshelfError("Code", …), CommitError(status, "Code", …),
#: and the code tables of the modules that translate S3's and Jupyter's errors.
_MADE = re.compile(
    r"""(?:(?:BookshelfError|DestinationRefused)\(\s*|CommitError\(\s*\d+,\s*|"""
    r"""code\s*=\s*|"code":\s*)"([A-Z][A-Za-z]+)\"""",
)


def codes_used() -> set[str]:
    used = set()
    for path in PACKAGE.rglob("*.py"):
        if "tests" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        used.update(_MADE.findall(text))
        for table in re.findall(r"_STATUS_CODES = \{(.*?)\}", text, re.DOTALL):
            used.update(re.findall(r':\s*"([A-Za-z]+)"', table))
    # S3's answers map to Bookshelf codes by a shared rule: only the values are ours.
    answers = load_rule("s3answers")
    used.update(answers["codes"].values(), answers["statuses"].values())
    return used


def test_every_code_the_server_uses_is_in_errors_json():
    used = codes_used()
    # The scan finds the codes (it is not empty by accident).
    assert {"InvalidRequest", "NoSuchKey", "TooLarge", "Conflict", "SlowDown"} <= used
    assert sorted(code for code in used if code not in error_codes()) == []


def test_statuses_come_from_errors_json():
    assert BookshelfError("NoSuchKey", "gone").status == 404
    assert BookshelfError("TooLarge", "big").status == 413
    assert BookshelfError("SlowDown", "busy").status == status_of("SlowDown") == 503
    assert BookshelfError("Conflict", "taken", field="target").body() == {
        "code": "Conflict",
        "message": "taken",
        "field": "target",
    }


def test_an_unknown_code_is_a_programming_error():
    with pytest.raises(ValueError, match="NotACode"):
        BookshelfError("NotACode", "no")

"""The names the commit path tries, on the shared cases of naming_cases.json.

The browser's rule (src/clone/naming.ts) is tested on the same cases in
src/__tests__/clone-naming.spec.ts: both sides must number copies alike.
"""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

import pytest

from jupyterlab_bookshelf.commit import candidate_names, increment_name

CASES = json.loads((Path(__file__).parent / "naming_cases.json").read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{case['name']} {case['n']}" for case in CASES])
def test_increment_name_matches_the_shared_cases(case):
    assert increment_name(case["name"], case["n"]) == case["expected"]


def test_candidates_start_with_the_name_and_count_up():
    assert list(islice(candidate_names("q3.ipynb"), 3)) == ["q3.ipynb", "q3-1.ipynb", "q3-2.ipynb"]
    assert len(list(candidate_names("q3.ipynb", 5))) == 5

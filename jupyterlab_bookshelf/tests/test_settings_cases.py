"""The settings that say where S3 is read alike in both languages: the server's
``S3Settings.from_settings`` reads each as the browser's ``parseSettings`` does
(settings_cases.json, run by src/__tests__/settings-cases.spec.ts too)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from jupyterlab_bookshelf.server_access.config import S3Settings

CASES = json.loads((Path(__file__).parent / "settings_cases.json").read_text("utf-8"))["cases"]


def test_the_cases_are_there():
    assert len(CASES) > 20
    assert len({case["case"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_the_server_reads_settings_as_the_browser_does(case, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    read = asdict(S3Settings.from_settings(case["settings"]))
    read["allowed_buckets"] = list(read["allowed_buckets"])
    assert read == case["expected"]

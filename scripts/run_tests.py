"""Run every test suite of the project and print one summary line.

Stages: lint (one check), jest, pytest, and the Galata UI tests. Every stage
runs even when an earlier one fails; the last line is `N passed, N failed`
and the exit code is non-zero when anything failed or a stage did not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / ".test-results"
BIN = Path(sys.executable).parent
JLPM = str(BIN / "jlpm")


def run(command: list[str], cwd: Path = REPO) -> int:
    print(f"\n=== {' '.join(command)}", flush=True)
    return subprocess.call(command, cwd=str(cwd))


def lint() -> tuple[int, int]:
    code = run([JLPM, "lint:check"])
    return (1, 0) if code == 0 else (0, 1)


def jest() -> tuple[int, int]:
    report = RESULTS / "jest.json"
    report.unlink(missing_ok=True)
    code = run([JLPM, "jest", "--ci", "--json", f"--outputFile={report}"])
    if not report.exists():
        print("jest wrote no report", flush=True)
        return 0, 1
    data = json.loads(report.read_text())
    passed, failed = data["numPassedTests"], data["numFailedTests"]
    # A suite that fails to load has no failed test, but fails.
    failed += data.get("numRuntimeErrorTestSuites", 0)
    if code != 0 and failed == 0:
        failed = 1
    return passed, failed


def pytest() -> tuple[int, int]:
    report = RESULTS / "pytest.xml"
    report.unlink(missing_ok=True)
    code = run([sys.executable, "-m", "pytest", "-q", f"--junitxml={report}"])
    if not report.exists():
        return 0, 1
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    total = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    if code not in (0,) and failed == 0:
        failed = 1
    return total - failed - skipped, failed


def galata() -> tuple[int, int]:
    report = RESULTS / "galata.json"
    report.unlink(missing_ok=True)
    env = dict(os.environ)
    code = subprocess.call(
        [JLPM, "playwright", "test"], cwd=str(REPO / "ui-tests"), env=env
    )
    if not report.exists():
        print("Playwright wrote no report", flush=True)
        return 0, 1
    stats = json.loads(report.read_text()).get("stats", {})
    passed = stats.get("expected", 0)
    failed = stats.get("unexpected", 0) + stats.get("flaky", 0)
    if code != 0 and failed == 0:
        failed = 1
    return passed, failed


def main() -> int:
    RESULTS.mkdir(exist_ok=True)
    stages = [("lint", lint), ("jest", jest), ("pytest", pytest), ("galata", galata)]
    only = set(sys.argv[1:])
    totals = [0, 0]
    lines = []
    for name, stage in stages:
        if only and name not in only:
            continue
        passed, failed = stage()
        totals[0] += passed
        totals[1] += failed
        lines.append(f"{name}: {passed} passed, {failed} failed")
    print("\n" + "\n".join(lines))
    print(f"{totals[0]} passed, {totals[1]} failed")
    return 0 if totals[1] == 0 and totals[0] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Run every test suite of the project and print one summary line.

Stages: lint (one check), jest, pytest, and the Galata UI tests. Every stage
runs even when an earlier one fails; the last line is `N passed, N failed`
and the exit code is non-zero when anything failed or a stage did not run.
Lint runs beside pytest, whose tests wait on servers for much of their time;
its output is printed when it ends.
"""

from __future__ import annotations

import concurrent.futures
import io
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / ".test-results"
BIN = Path(sys.executable).parent
JLPM = str(BIN / "jlpm")


def run(command: list[str], cwd: Path = REPO, output: io.StringIO | None = None) -> int:
    """Run a command; its output goes to the terminal, or into ``output``."""
    header = f"\n=== {' '.join(command)}"
    if output is None:
        print(header, flush=True)
        return subprocess.call(command, cwd=str(cwd))
    done = subprocess.run(command, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output.write(f"{header}\n{done.stdout.decode(errors='replace')}")
    return done.returncode


def lint(output: io.StringIO | None = None) -> tuple[int, int]:
    """The TypeScript lint (eslint, prettier, stylelint), the type check of the tests (jest
    only transpiles them) and the Python lint (ruff's checks and its formatting), each one
    check."""
    codes = [
        run([JLPM, "lint:check"], output=output),
        run([JLPM, "typecheck"], output=output),
        run([sys.executable, "-m", "ruff", "check", "."], output=output),
        run([sys.executable, "-m", "ruff", "format", "--check", "."], output=output),
    ]
    passed = sum(code == 0 for code in codes)
    return passed, len(codes) - passed


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
    # Two workers (pytest-xdist): the tests wait on servers and threads as much as they compute.
    code = run([sys.executable, "-m", "pytest", "-q", "-n", "2", f"--junitxml={report}"])
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
    code = subprocess.call([JLPM, "playwright", "test"], cwd=str(REPO / "ui-tests"), env=env)
    if not report.exists():
        print("Playwright wrote no report", flush=True)
        return 0, 1
    stats = json.loads(report.read_text()).get("stats", {})
    passed = stats.get("expected", 0)
    failed = stats.get("unexpected", 0) + stats.get("flaky", 0)
    if code != 0 and failed == 0:
        failed = 1
    return passed, failed


def _playwright_durations(suites: list, titles: tuple[str, ...] = ()):
    for suite in suites:
        path = titles + ((suite.get("title"),) if suite.get("title") else ())
        for spec in suite.get("specs", []):
            for test in spec.get("tests", []):
                for result in test.get("results", []):
                    yield result.get("duration", 0) / 1000, " › ".join(path + (spec["title"],))
        yield from _playwright_durations(suite.get("suites", []), path)


def slowest(stages: set[str], count: int = 15) -> list[tuple[float, str, str]]:
    """The slowest tests of the reports these stages wrote: (seconds, stage, name)."""
    found: list[tuple[float, str, str]] = []
    jest_report = RESULTS / "jest.json"
    if "jest" in stages and jest_report.exists():
        for suite in json.loads(jest_report.read_text()).get("testResults", []):
            for test in suite.get("assertionResults", []):
                found.append(((test.get("duration") or 0) / 1000, "jest", test["fullName"]))
    pytest_report = RESULTS / "pytest.xml"
    if "pytest" in stages and pytest_report.exists():
        for case in ET.parse(pytest_report).getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            found.append((float(case.get("time", 0)), "pytest", name))
    galata_report = RESULTS / "galata.json"
    if "galata" in stages and galata_report.exists():
        suites = json.loads(galata_report.read_text()).get("suites", [])
        found += [(seconds, "galata", name) for seconds, name in _playwright_durations(suites)]
    return sorted(found, reverse=True)[:count]


def main() -> int:
    RESULTS.mkdir(exist_ok=True)
    order = ("lint", "jest", "pytest", "galata")
    only = set(sys.argv[1:]) or set(order)
    counts: dict[str, tuple[int, int, float]] = {}

    def timed(name: str, stage, *args) -> None:
        start = time.monotonic()
        passed, failed = stage(*args)
        counts[name] = (passed, failed, time.monotonic() - start)

    if "jest" in only:
        timed("jest", jest)
    # Lint beside pytest, in a second thread, its output printed when both end.
    lint_output = io.StringIO() if "pytest" in only else None
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        linting = pool.submit(timed, "lint", lint, lint_output) if "lint" in only else None
        if "pytest" in only:
            timed("pytest", pytest)
        if linting is not None:
            linting.result()
    if lint_output is not None:
        print(lint_output.getvalue(), flush=True)
    if "galata" in only:
        timed("galata", galata)

    lines = []
    for name in order:
        if name in counts:
            passed, failed, seconds = counts[name]
            minutes, rest = divmod(round(seconds), 60)
            lines.append(f"{name}: {passed} passed, {failed} failed ({minutes}m{rest:02d}s)")
    print("\nThe 15 slowest tests:")
    for seconds, stage, name in slowest(set(counts)):
        print(f"{seconds:8.1f} s  {stage:7} {name}")
    print("\n" + "\n".join(lines))
    passed = sum(count[0] for count in counts.values())
    failed = sum(count[1] for count in counts.values())
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""The lit suite (`lit_tests/`) as pytest tests: lit runs once per session, and every lit file is
one pytest test that fails with lit's output. Under pytest-xdist the workers share one lit run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).resolve().parent.parent / "lit_tests"
# As lit_tests/lit.cfg.py: config.name, config.suffixes, config.excludes.
SUITE = "aten-mlir"
SUFFIXES = {".mlir", ".py"}
EXCLUDES = {"lit.cfg.py", "Inputs", "Output"}


def discover_lit_tests() -> list[str]:
    """Paths (relative to lit_tests/) of the files lit runs as tests."""
    found = []
    for path in sorted(LIT_DIR.rglob("*")):
        parts = path.relative_to(LIT_DIR).parts
        if any(p in EXCLUDES or p.startswith(".") or p == "__pycache__" for p in parts):
            continue
        if path.is_file() and path.suffix in SUFFIXES:
            found.append("/".join(parts))
    return found


def _run_lit(report: Path) -> None:
    """Runs the whole suite, leaving lit's JSON report (or why there is none) in `report`."""
    cmd = [
        sys.executable,
        "-c",
        "import sys, lit.main; sys.argv[0] = 'lit'; lit.main.main()",
        "-sv",
        "-o",
        str(report),
        str(LIT_DIR),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if not report.exists():
        report.write_text(json.dumps({"error": f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"}))


def _shared_report(tmp_path_factory) -> Path:
    """The report of the one lit run of this pytest session."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        report = tmp_path_factory.mktemp("lit") / "report.json"
        _run_lit(report)
        return report
    # pytest-xdist: the workers' temporary directories share a parent unique to this run; the
    # first worker to take the lock runs lit, the others wait for its report.
    import fcntl

    root = tmp_path_factory.getbasetemp().parent
    report = root / "lit-report.json"
    with open(root / "lit-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not report.exists():
            _run_lit(report)
    return report


@pytest.fixture(scope="session")
def lit_report(tmp_path_factory) -> dict:
    data = json.loads(_shared_report(tmp_path_factory).read_text())
    if "error" in data:
        pytest.fail(f"lit did not run:\n{data['error']}", pytrace=False)
    prefix = f"{SUITE} :: "
    return {t["name"].removeprefix(prefix): t for t in data["tests"]}


@pytest.mark.parametrize("path", discover_lit_tests())
def test_lit(path: str, lit_report: dict) -> None:
    result = lit_report.get(path)
    if result is None:
        pytest.fail(f"lit did not run {path} (does lit.cfg.py discover it?)", pytrace=False)
    if result["code"] == "UNSUPPORTED":
        pytest.skip(f"lit: {path} is unsupported here")
    if result["code"] not in ("PASS", "XFAIL"):
        pytest.fail(f"lit: {result['code']}: {path}\n{result['output']}", pytrace=False)


def test_lit_runs_exactly_the_discovered_files(lit_report: dict) -> None:
    """Every file lit ran is a pytest test above, and the other way round."""
    assert sorted(lit_report) == discover_lit_tests()

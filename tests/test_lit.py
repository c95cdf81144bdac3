"""The lit suite (`lit_tests/`) as pytest tests: lit runs once per session, and every lit file is
one pytest test that fails with lit's output. Under pytest-xdist the workers share one lit run.
Selecting tests (`pytest tests/test_lit.py -k aten-opt`) runs lit on those files only."""

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


def _lit(*args: str) -> subprocess.CompletedProcess:
    """Runs lit (from this interpreter's environment, so no `lit` on PATH is needed)."""
    cmd = [sys.executable, "-c", "import sys, lit.main; sys.argv[0] = 'lit'; lit.main.main()"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True)


def _run_lit(report: Path, paths: list[str]) -> None:
    """Runs lit on `paths` (all: the whole suite), leaving its JSON report (or why there is
    none) in `report`."""
    targets = [str(LIT_DIR)] if paths == discover_lit_tests() else [str(LIT_DIR / p) for p in paths]
    cmd = ["-sv", "-o", str(report), *targets]
    proc = _lit(*cmd)
    if not report.exists():
        report.write_text(
            json.dumps({"error": f"lit {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"})
        )


def _shared_report(tmp_path_factory, paths: list[str]) -> Path:
    """The report of the one lit run of this pytest session."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        report = tmp_path_factory.mktemp("lit") / "report.json"
        _run_lit(report, paths)
        return report
    # pytest-xdist: the workers' temporary directories share a parent unique to this run; the
    # first worker to take the lock runs lit, the others wait for its report.
    import fcntl

    root = tmp_path_factory.getbasetemp().parent
    report = root / "lit-report.json"
    with open(root / "lit-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not report.exists():
            _run_lit(report, paths)
    return report


@pytest.fixture(scope="session")
def lit_report(request, tmp_path_factory) -> dict:
    # Every xdist worker collects (and deselects) the same items, so all agree on `selected`.
    selected = sorted(
        item.callspec.params["path"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_lit"
    )
    data = json.loads(_shared_report(tmp_path_factory, selected).read_text())
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


def test_lit_discovers_the_same_files() -> None:
    """The files lit's own discovery finds are exactly the pytest tests above."""
    proc = _lit("--show-tests", str(LIT_DIR))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    prefix = f"  {SUITE} :: "
    found = [line[len(prefix) :] for line in proc.stdout.splitlines() if line.startswith(prefix)]
    assert sorted(found) == discover_lit_tests()

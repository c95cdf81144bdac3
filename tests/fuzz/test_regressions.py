"""Shrunk fuzz failures (tests/fuzz/regressions/*.json, written by `python -m tests.fuzz`),
each rebuilt and run in a forked child: it must compile (or be refused with one of our own
errors) and match eager. A record's `xfail` names a bug not yet fixed: strict, so the test
fails once the bug is fixed and the marker can go."""

import json
from pathlib import Path

import pytest

from .program import FuzzProgram
from .runner import run

RECORDS = sorted((Path(__file__).parent / "regressions").glob("*.json"))


def _case(path: Path):
    record = json.loads(path.read_text())
    marks = []
    if record.get("xfail"):
        marks.append(pytest.mark.xfail(strict=True, reason=record["xfail"]))
    return pytest.param(record, id=path.stem, marks=marks)


@pytest.mark.parametrize("record", [_case(p) for p in RECORDS])
def test_regression(record, fuzz_parent):
    program = FuzzProgram.from_json(json.dumps(record["program"]))
    outcome = run(program, record["target"], timeout=120)
    assert outcome.cls in ("pass", "fallback", "clean-error"), (
        f"{outcome.cls}: {outcome.detail}\n{program.describe()}"
    )

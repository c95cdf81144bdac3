"""A fixed-seed slice of the fuzzer in the default suite: a count of programs (not a time
budget, so every run checks the same programs), each compiled for its target and compared with
eager in a forked child. Fails on any crash, hang, mismatch, internal error or generator bug.

KNOWN maps programs that fail today to their bug (as the regression records name it): they must
still fail that way (so a fix is noticed and the entry removed), every other program must not."""

import pytest

from .generate import generate
from .runner import BUG_CLASSES, run

SEED = 20
# the default suite's slice; `-m slow` runs the programs after it too (all of it took 85 s of the
# default suite's 2-core CI budget)
COUNTS = {"cpu": 60, "triton": 20}
SLOW_COUNTS = {"cpu": 120, "triton": 40}
KNOWN: dict[tuple[str, int], str] = {}


def _failures(target: str, indices: range):
    found, fixed = [], []
    for index in indices:
        program = generate(SEED, index)
        outcome = run(program, target, timeout=120)
        bad = outcome.cls in BUG_CLASSES or outcome.cls == "gen-error"
        known = KNOWN.get((target, index))
        if bad and known is None:
            found.append(
                f"program {SEED}:{index} {outcome.cls}: {outcome.detail}\n{program.describe()}"
            )
        elif known is not None and not bad:
            fixed.append(f"program {SEED}:{index} passes now: remove KNOWN entry ({known})")
    return found, fixed


@pytest.mark.parametrize("target", ["cpu", "triton"])
def test_fuzz_slice(target, fuzz_parent):
    _check(*_failures(target, range(COUNTS[target])))


@pytest.mark.slow
@pytest.mark.parametrize("target", ["cpu", "triton"])
def test_fuzz_slice_rest(target, fuzz_parent):
    _check(*_failures(target, range(COUNTS[target], SLOW_COUNTS[target])))


def _check(found, fixed):
    assert not found, f"{len(found)} fuzz failure(s):\n\n" + "\n\n".join(found)
    assert not fixed, "\n".join(fixed)

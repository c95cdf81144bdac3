"""`backends/isolate.py`: the forked child hands back results and errors, and its death is an
exception in the caller, not the caller's death."""

from __future__ import annotations

import os

import pytest

from aten_mlir.backends import isolate
from aten_mlir.backends.compiler import CompileError
from aten_mlir.backends.isolate import ChildCrashed, run_isolated


def _steps_then(report, outcome):
    report("first")
    report("second")
    if outcome == "abort":
        os.abort()
    if outcome == "segfault":
        import ctypes

        ctypes.string_at(0)
    if outcome == "exit":
        os._exit(0)
    if outcome == "compile-error":
        raise CompileError("fusion", "x.mlir:1:2: bad", "aten-opt --stage fusion x.mlir")
    if outcome == "bug":
        raise KeyError("a bug")
    return {"pid": os.getpid(), "payload": b"\x00" * 300_000}


def test_result_comes_back_from_another_process():
    result = run_isolated(_steps_then, "result")
    assert result["pid"] != os.getpid() and len(result["payload"]) == 300_000


@pytest.mark.parametrize(
    "outcome, signal", [("abort", "SIGABRT"), ("segfault", "SIGSEGV"), ("exit", "exit status 0")]
)
def test_a_dying_child_names_its_last_step(outcome, signal):
    with pytest.raises(ChildCrashed) as info:
        run_isolated(_steps_then, outcome)
    assert (info.value.step, info.value.signal) == ("second", signal)


def test_errors_cross_with_their_fields():
    with pytest.raises(CompileError) as info:
        run_isolated(_steps_then, "compile-error")
    assert (info.value.stage, info.value.repro) == ("fusion", "aten-opt --stage fusion x.mlir")
    with pytest.raises(KeyError, match="a bug") as bug:
        run_isolated(_steps_then, "bug")
    assert "raised in the isolated compile process" in "".join(bug.value.__notes__)


def test_the_assertion_line_is_the_reason():
    crash = ChildCrashed(
        "llvm", "SIGABRT", "noise\npython3: X.cpp:287: f(): Assertion `a' failed.\n"
    )
    assert crash.reason == "python3: X.cpp:287: f(): Assertion `a' failed."


def test_disabled_by_the_environment(monkeypatch):
    monkeypatch.setenv(isolate.ENV, "0")
    assert run_isolated(_steps_then, "result")["pid"] == os.getpid()


def _deadlocks(report):
    """A lock the child can never get, as one another thread of the parent held at fork."""
    import threading

    lock = threading.Lock()
    lock.acquire()
    report("waiting")
    lock.acquire()


def test_a_child_that_stops_making_progress_is_killed(monkeypatch):
    monkeypatch.setenv(isolate.TIMEOUT_ENV, "0.5")
    with pytest.raises(ChildCrashed) as info:
        run_isolated(_deadlocks)
    assert info.value.hung and info.value.step == "waiting"
    assert "no progress for 0.5 s" in str(info.value)

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


def _sleep_then_pid(report, seconds, size):
    import time

    report("sleeping")
    time.sleep(seconds)
    return os.getpid(), b"\x01" * size


def test_children_started_together_run_at_once_and_each_hands_back_its_result():
    import time

    start = time.perf_counter()
    # results past the pipe's 64 KiB: the reader threads drain them before result() is asked
    first = isolate.start_isolated(_sleep_then_pid, 0.6, 1 << 20)
    second = isolate.start_isolated(_sleep_then_pid, 0.6, 1 << 20)
    (pid2, data2), (pid1, data1) = second.result(), first.result()
    assert time.perf_counter() - start < 1.1  # not one after the other (1.2 s)
    assert len({pid1, pid2, os.getpid()}) == 3 and data1 == data2 == b"\x01" * (1 << 20)


def test_a_started_child_s_crash_and_errors_come_out_of_result():
    crashing = isolate.start_isolated(_steps_then, "abort")
    failing = isolate.start_isolated(_steps_then, "compile-error")
    with pytest.raises(CompileError):
        failing.result()
    with pytest.raises(ChildCrashed) as info:
        crashing.result()
    assert (info.value.step, info.value.signal) == ("second", "SIGABRT")


def test_a_child_nobody_asks_is_reaped_all_the_same():
    child = isolate.start_isolated(_sleep_then_pid, 0.0, 1 << 20)
    child._thread.join(timeout=60)  # drained its 1 MiB and waited for its exit
    assert not child._thread.is_alive() and child._status is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)

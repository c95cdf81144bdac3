"""The harness tells the outcome classes apart: a child killed by a signal is a crash, one that
never answers a hang, wrong values a mismatch, Python's own exceptions from the compiler an
internal error."""

import os
import signal
import time

import torch

from . import runner
from .compare import mismatch
from .program import FuzzProgram, Step, TensorSpec


def _program():
    return FuzzProgram(inputs=[TensorSpec([2, 3])], steps=[Step("u_neg", [0])], outputs=[1])


def test_crash_and_hang_are_classified(monkeypatch):
    monkeypatch.setattr(runner, "evaluate", lambda *a: os.kill(os.getpid(), signal.SIGSEGV))
    assert runner.run(_program(), "cpu").cls == "crash"
    monkeypatch.setattr(runner, "evaluate", lambda *a: time.sleep(60))
    start = time.monotonic()
    assert runner.run(_program(), "cpu", timeout=1).cls == "hang"
    assert time.monotonic() - start < 10


def test_exceptions_are_classified():
    from aten_mlir import CompileError

    assert runner.classify_exception(IndexError("list index"), "compile").cls == "internal-error"
    clean = CompileError("decompose", "aten.foo: unsupported dtype i4")
    assert runner.classify_exception(clean, "compile").cls == "clean-error"
    crashed = CompileError("llvm", "MLIR crashed (SIGSEGV) in this stage: no message")
    assert runner.classify_exception(crashed, "compile").cls == "crash"


def test_mismatch_is_dtype_aware():
    nan = float("nan")
    assert mismatch(torch.tensor([1.0, nan]), torch.tensor([1.0, nan])) is None
    assert mismatch(torch.tensor([1.0, nan]), torch.tensor([1.0, 0.0])) is not None
    assert mismatch(torch.tensor([1.0]), torch.tensor([1.00001])) is None
    assert mismatch(torch.tensor([1], dtype=torch.int8), torch.tensor([2], dtype=torch.int8))
    bf = torch.tensor([1.0], dtype=torch.bfloat16)
    assert mismatch(bf, bf + 0.0078125) is None
    assert mismatch(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64)) is not None


def test_program_round_trips_and_runs_in_eager():
    from .generate import generate

    for index in range(20):
        p = generate(3, index)
        q = FuzzProgram.from_json(p.to_json())
        outputs = q.module()(*q.example_inputs())
        again = p.module()(*p.example_inputs())
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        again = again if isinstance(again, tuple) else (again,)
        assert all(torch.equal(a.nan_to_num(), b.nan_to_num()) for a, b in zip(outputs, again))


def test_eager_overflow_is_told_apart_by_float64_eager(monkeypatch):
    # gelu(inf) is NaN in eager's float32 kernel; inf (its limit) here: float64 eager agrees
    gelu = [Step("u_gelu", [0])]
    p = FuzzProgram(inputs=[TensorSpec([3], special=True)], steps=gelu, outputs=[1])
    x = torch.tensor([float("inf"), 1.0, -2.0])
    monkeypatch.setattr(FuzzProgram, "example_inputs", lambda self, variant=0: (x.clone(),))
    eager = p.module()(x)
    assert eager[0].isnan()
    ours = torch.nn.functional.gelu(x.double()).float()
    assert runner._float64_agrees(p, 0, eager, ours, None)
    assert not runner._float64_agrees(p, 0, eager, ours + 1, None)


def test_a_late_stage_failure_is_a_bug():
    from aten_mlir import CompileError

    llc = CompileError("native", "llc failed (-6): APInt.h:127 assertion")
    assert runner.classify_exception(llc, "compile").cls == "internal-error"
    feature = CompileError("aten-to-linalg", "aten.foo: complex dtype is not supported")
    assert runner.classify_exception(feature, "compile").cls == "clean-error"

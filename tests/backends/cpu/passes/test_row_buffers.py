"""`cpu-contract-row-buffers` (`backends/cpu/passes/row_buffers.py`): a buffer one row nest uses
only at its own rows becomes a row on the stack per iteration, given back each iteration."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.modules import Fn


def _softmax(x):
    # bf16 in and out: the exponentials are an f32 tensor the sum and the normalisation share
    return torch.softmax(x, -1)


def _compile(fn, args, tmp_path, dynamic=None):
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "06-loops.mlir").read_text()


@pytest.mark.parametrize("rows, width", [(64, 256), (7, 100), (33, 1000)])
def test_exponentials_live_in_one_row(tmp_path, rows, width):
    x = torch.randn(rows, width, dtype=torch.bfloat16)
    program, text = _compile(_softmax, (x,), tmp_path)
    assert f"memref.alloca() {{alignment = 64 : i64}} : memref<{width}xf32>" in text
    assert f"memref<{rows}x{width}xf32>" not in text
    assert "llvm.intr.stacksave" in text and "llvm.intr.stackrestore" in text
    torch.testing.assert_close(program(x), _softmax(x))


def test_rows_of_a_dynamic_batch(tmp_path):
    x = torch.randn(20, 300, dtype=torch.bfloat16)
    program, text = _compile(_softmax, (x,), tmp_path, (({0: Dim("b", max=10000)},),))
    assert "memref<300xf32>" in text
    for rows in (1, 17, 257):
        x = torch.randn(rows, 300, dtype=torch.bfloat16)
        torch.testing.assert_close(program(x), _softmax(x))


def test_long_rows_stay_on_the_heap(tmp_path):
    """A row over 64 KiB is not put on a thread's stack."""
    x = torch.randn(3, 20000, dtype=torch.bfloat16)
    program, text = _compile(_softmax, (x,), tmp_path)
    assert "memref.alloca() {alignment = 64 : i64} : memref<20000xf32>" not in text
    torch.testing.assert_close(program(x), _softmax(x))


def test_the_stack_is_given_back_every_row():
    """40000 rows of 4 KiB would take 160 MiB of stack without the restore (a crash: run in a
    child process)."""
    code = (
        "import torch, aten_mlir\n"
        "from tests.modules import Fn\n"
        "from tests.backends.cpu.passes.test_row_buffers import _softmax\n"
        "x = torch.randn(40000, 1024, dtype=torch.bfloat16)\n"
        "ep = torch.export.export(Fn(_softmax), (x,))\n"
        "p = aten_mlir.compile(ep, target='cpu', cache=False)\n"
        "torch.testing.assert_close(p(x), _softmax(x))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


# `cpu-reuse-dead-rows` (`row_reuse.py`): the probabilities written over the dead scores


def _probabilities(a, b):
    return torch.softmax(a @ b, -1)


def _probabilities_and_scores(a, b):
    s = a @ b
    return torch.softmax(s, -1), s  # the scores are a result too: no reuse


@pytest.mark.parametrize("fn, buffers", [(_probabilities, 1), (_probabilities_and_scores, 2)])
@pytest.mark.parametrize("m", [64, 77])
def test_softmax_written_over_its_dead_input(tmp_path, fn, buffers, m):
    a = torch.randn(m, 64, dtype=torch.bfloat16)
    b = torch.randn(64, 96, dtype=torch.bfloat16)
    program, text = _compile(fn, (a, b), tmp_path)
    assert text.count(f"memref.alloc() {{alignment = 64 : i64}} : memref<{m}x96xbf16>") == buffers
    torch.testing.assert_close(program(a, b), fn(a, b))


def _sorted_rows(x):
    # the sort's result rows copied out of its scratch into the returned buffers: written
    # over the dead scratch, the returned buffer must not be freed with it
    return torch.topk(x, x.shape[-1], largest=False)


def test_a_returned_output_written_over_a_dead_buffer(tmp_path):
    x = torch.randperm(30, dtype=torch.int32).reshape(3, 10)
    program, text = _compile(_sorted_rows, (x,), tmp_path)
    for _ in range(3):  # a freed result would be overwritten by the next call's buffers
        for got, want in zip(program(x), _sorted_rows(x)):
            torch.testing.assert_close(got, want)
    returned = text[text.rindex("return ") :].split(":")[0].split()[1:]
    freed = {line.split()[1] for line in text.splitlines() if "memref.dealloc" in line}
    assert not freed & {r.rstrip(",") for r in returned}

"""`cpu-vectorize-generics` on rows of a run-time length (lane_tail.py): the main loop of whole
steps, then halving unmasked steps and one masked one-register step, all decided outside the
row loops. One compile per program, every row length from empty to several main steps,
against eager."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu import compile_llvm_module
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from tests.modules import Fn

# 0 (no elements), 1, below a register, a register and one, the bench's 33 / 77, whole
# 64-lane steps plus every halving bit (127 = 64 + 32 + 16 + 15), and long rows.
LENGTHS = (0, 1, 7, 15, 16, 17, 33, 48, 63, 64, 65, 77, 127, 129, 200)


def _compile(fn, example, tmp_path):
    n = Dim("n", max=4096)
    ep = torch.export.export(Fn(fn), (example,), dynamic_shapes=(({1: n},),))
    return aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)


def _rows(x):
    """Several reductions and elementwise passes over the `?` row: max, exp (a polynomial
    body), sum, scale, an integer sum and a product of two reductions in one expression."""
    soft = torch.softmax(x, -1)
    keys = (x * 4).to(torch.int32)
    spread = x.amax(-1) - x.amin(-1)
    return soft * 2 + 1, keys.sum(-1), spread, torch.nn.functional.gelu(x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dynamic_rows_at_every_tail(dtype, tmp_path):
    torch.manual_seed(0)
    compiled = _compile(_rows, torch.randn(5, 40).to(dtype), tmp_path)
    text = (tmp_path / "06-loops.mlir").read_text()
    if dtype == torch.float32:
        # the last partial step is one register wide; its mask is built once per nest, not
        # inside a row's branch
        assert re.search(r"vector\.create_mask %\w+ : vector<16xi1>", text), text
        assert not re.search(r"scf\.if[^\n]*\{\s+%\w+ = vector\.create_mask", text), text
    tol = {"atol": 2e-2, "rtol": 2e-2} if dtype == torch.bfloat16 else {}
    for n in LENGTHS:
        x = (torch.randn(5, n) * 3).to(dtype)
        if n == 0:  # eager's amax rejects an empty row: the other outputs are checked
            soft, keys, _, gelu = compiled(x)
            assert soft.shape == gelu.shape == (5, 0)
            torch.testing.assert_close(keys, torch.zeros(5, dtype=torch.int64))
            continue
        for got, want in zip(compiled(x), _rows(x)):
            torch.testing.assert_close(got, want, **tol)


def test_nan_and_infinities_survive_the_folds(tmp_path):
    """A NaN or an infinity in any part of the row (main steps, a halving step, the masked
    step) reaches the row's max and sum."""
    compiled = _compile(lambda x: (x.amax(-1), x.sum(-1)), torch.randn(3, 40), tmp_path)
    for n in (1, 33, 77, 127):
        for at in sorted({0, n // 2, n - 1}):
            for value in (float("nan"), float("inf"), float("-inf")):
                x = torch.randn(3, n)
                x[1, at] = value
                got = compiled(x)
                for g, w in zip(got, (x.amax(-1), x.sum(-1))):
                    torch.testing.assert_close(g, w, equal_nan=True)


# A generic on memrefs run natively with the output passed in: the output is the caller's
# memory, so a store past a row shows (in a padding column kept at a sentinel, or as a fault on
# a guard page right after the last row). `y[:, :n] = x + x` (exact in every element type).
_DOUBLE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @double(%x: memref<?x?xELT>, %y: memref<?x?xELT>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xELT>
  %n = memref.dim %x, %c1 : memref<?x?xELT>
  %v = memref.subview %y[0, 0] [%r, %n] [1, 1] : memref<?x?xELT> to memref<?x?xELT, strided<[?, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xELT>) outs(%v : memref<?x?xELT, strided<[?, 1]>>) {
  ^bb0(%a: ELT, %o: ELT):
    %s = ADD %a, %a : ELT
    linalg.yield %s : ELT
  }
  return
}
"""
_ELEMENTS = {torch.float32: "f32", torch.bfloat16: "bf16", torch.int8: "i8"}


def native_double(dtype, cache_dir):
    """`double` built with the CPU target's `cpu-vectorize-generics` and `llvm` stage; the
    masked tail's loads and stores are unmasked pieces (i8 and bf16 too), so the row needs no
    mask at all."""
    element = _ELEMENTS[dtype]
    add = "arith.addi" if element == "i8" else "arith.addf"
    source = _DOUBLE.replace("ADD", add).replace("ELT", element)
    llvm = next(s for s in CPU_STAGES if s.name == "llvm")
    with make_context():
        module = ir.Module.parse(source)
        run_pipeline(module, "cpu-vectorize-generics,canonicalize")
        loops = str(module)
        run_pipeline(module, llvm.pipeline)
        text = str(module)
    assert "vector.masked" not in loops and "vector.load" in loops, loops
    lib = compile_llvm_module(text, cache_dir=cache_dir)
    return lib.function("double", [f"memref<?x?x{element}>"] * 2, [])


def _input(dtype, rows, n):
    if dtype == torch.int8:
        return torch.randint(-60, 60, (rows, n), dtype=dtype)
    return torch.randn(rows, n).to(dtype)


@pytest.mark.parametrize("dtype", list(_ELEMENTS))
def test_tail_stores_stay_in_the_row(dtype, tmp_path):
    """Every length 0-200: the row's elements are written and nothing in the 64 columns after
    each row (a sentinel), so no piece lands past the row or misses an element. A NaN at
    every position of the tail lands where it was."""
    double = native_double(dtype, tmp_path)
    sentinel = torch.tensor(-7).to(dtype)
    for n in range(201):
        x = _input(dtype, 3, n)
        if dtype != torch.int8 and n:
            x[1, n - 1 - (n - 1) % 17 :] = float("nan")  # the last piece(s) of row 1
            x[2, (n * 5) // 7] = float("nan")
        y = torch.full((3, n + 64), -7).to(dtype)
        double(x, y)
        torch.testing.assert_close(y[:, :n], x + x, equal_nan=True, atol=0, rtol=0)
        assert bool((y[:, n:] == sentinel).all()), (n, y[:, n:])


_GUARDED_WRITES = """
import sys, torch
from aten_mlir.tests.backends.cpu.passes.test_lane_tail import _ELEMENTS, _input, native_double
from aten_mlir.tests.support.guarded import guarded_copy
for dtype in _ELEMENTS:
    double = native_double(dtype, sys.argv[1])
    for n in (1, 7, 15, 16, 17, 31, 33, 47, 63, 64, 65, 77, 127, 129, 200):
        x, keep_x = guarded_copy(_input(dtype, 2, n))
        y, keep = guarded_copy(torch.zeros(2, n, dtype=dtype))
        double(x, y)
        assert torch.equal(y, x + x), (dtype, n)
print("ok")
"""


def test_no_write_past_the_output(tmp_path):
    """The last row of the input and of the output ends right before a PROT_NONE page: a tail
    piece load or store of more elements than the row has faults (in a child process)."""
    run = subprocess.run(
        [sys.executable, "-c", _GUARDED_WRITES, str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]


_GUARDED_SOFTMAX = """
import sys, torch
from torch.export import Dim
import aten_mlir
from aten_mlir.tests.modules import Fn
from aten_mlir.tests.support.guarded import guarded_copy
fn = lambda x: (torch.softmax(x, -1), x.amax(-1), x.sum(-1))
for dtype in (torch.float32, torch.bfloat16):
    ep = torch.export.export(
        Fn(fn), (torch.randn(4, 40).to(dtype),), dynamic_shapes=(({1: Dim("n", max=4096)},),)
    )
    compiled = aten_mlir.compile(ep, target="cpu", cache=False)
    tol = {"atol": 2e-2, "rtol": 2e-2} if dtype == torch.bfloat16 else {}
    for n in (1, 7, 15, 16, 17, 33, 63, 64, 65, 200):
        x = torch.randn(4, n) * 3
        x[1, :] = float("-inf")  # eager: a row of NaN
        x[2, n // 2] = float("nan")
        x[3, n - 1] = float("-inf")
        x = x.to(dtype)
        guarded, keep = guarded_copy(x)
        for got, want in zip(compiled(guarded), fn(x)):
            torch.testing.assert_close(got, want, equal_nan=True, **tol)
print("ok")
"""


def test_softmax_rows_read_inside_the_input(tmp_path):
    """Softmax, max and sum of `?` rows (f32, bf16) whose input ends at a PROT_NONE page: the
    reductions' piece loads stay in the row at every tail length, and a row of -inf, a NaN in
    the middle and a -inf in the last piece come out as eager's (in a child process)."""
    run = subprocess.run(
        [sys.executable, "-c", _GUARDED_SOFTMAX], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]

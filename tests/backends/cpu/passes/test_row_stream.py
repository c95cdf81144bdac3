"""`cpu-vectorize-contractions` row-streaming kernel (`backends/cpu/passes/row_stream.py`):
`x @ W` with W [k, n] along n and a few static rows of x (decode), W read row after row.
Values against eager at odd M, n and k; the kernel chosen only where it fits."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from tests.modules import Fn

MM = """
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (k, n)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @mm(%x: memref<{m}x{k}xf32>, %w: memref<{k}x{n}xf32>, %y: memref<{m}x{n}xf32>) {{
  linalg.generic {{indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x, %w : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%y : memref<{m}x{n}xf32>) {{
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }}
  return
}}
"""


def _vectorized(m, k, n) -> str:
    with make_context():
        module = ir.Module.parse(MM.format(m=m, k=k, n=n))
        run_pipeline(module, "cpu-vectorize-contractions{cpu=skylake-avx512},canonicalize,cse")
        return str(module)


def _c_in_registers(text: str) -> bool:
    """A loop carries vectors: C's block lives in registers across k (the outer kernel); the
    row stream loads and stores C's rows in the loop over W's rows instead."""
    return any("scf.for" in line and "-> (vector<" in line for line in text.split("\n"))


@pytest.mark.parametrize("m,rows_of_w", [(1, 4), (3, 4), (5, 3), (8, 2)])
def test_few_rows_stream_w_rows(m, rows_of_w):
    """Few rows: C's rows are read and written in the loop over W's rows (rows_of_w a step),
    one masked vector for the 2001 % 16 columns; 9 rows, or a small W, keep the outer kernel."""
    text = _vectorized(m, 37, 2001)
    assert "vector.maskedload" in text and "vector.fma" in text
    assert f"step %c{rows_of_w}" in text and not _c_in_registers(text)
    assert _c_in_registers(_vectorized(9, 37, 2001))
    assert _c_in_registers(_vectorized(m, 37, 17))  # W in cache: the outer kernel


def _mm(x, w):
    return x @ w


@pytest.mark.parametrize("m", [1, 3, 5, 8])
@pytest.mark.parametrize("k,n", [(37, 17), (5, 3), (300, 257), (768, 1000), (31, 2113)])
def test_few_rows_values(m, k, n):
    x, w = torch.randn(1, m, k), torch.randn(k, n)
    program = aten_mlir.compile(torch.export.export(Fn(_mm), (x, w)), target="cpu", cache=False)
    torch.testing.assert_close(program(x, w), x @ w, atol=1e-4, rtol=1e-4)


def test_dynamic_batch_of_tokens():
    """A `?` batch of one-token rows: not a static few rows, so another kernel; same values."""
    ep = torch.export.export(
        Fn(_mm),
        (torch.randn(2, 1, 37), torch.randn(37, 17)),
        dynamic_shapes=(({0: Dim("b", min=1, max=64)}, None),),
    )
    program = aten_mlir.compile(ep, target="cpu", cache=False)
    w = torch.randn(37, 17)
    for batch in (1, 3, 7):
        x = torch.randn(batch, 1, 37)
        torch.testing.assert_close(program(x, w), x @ w, atol=1e-4, rtol=1e-4)


def test_batched_weights_stream_per_batch():
    """A batch dim in x and W (bmm with 2 rows each): the kernel runs per batch."""
    x, w = torch.randn(3, 2, 19), torch.randn(3, 19, 33)
    program = aten_mlir.compile(torch.export.export(Fn(torch.bmm), (x, w)), cache=False)
    torch.testing.assert_close(program(x, w), torch.bmm(x, w), atol=1e-4, rtol=1e-4)


def test_weight_first_operand():
    """x @ W with W a contiguous copy of a transposed weight, the result returned transposed:
    same values whichever operand the match takes as A."""
    x, w = torch.randn(3, 300), torch.randn(257, 300)

    def fn(x, w):
        return (x @ w.t().contiguous()).t()

    program = aten_mlir.compile(torch.export.export(Fn(fn), (x, w)), cache=False)
    torch.testing.assert_close(program(x, w), fn(x, w), atol=1e-4, rtol=1e-4)

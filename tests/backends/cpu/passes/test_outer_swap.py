"""`cpu-vectorize-contractions` swapped f32 outer kernel (`backends/cpu/passes/outer_swap.py`):
`x @ W.T` with a few whole 32-row blocks of x and a wide W runs as C^T = W @ x^T (W read in
place, x copied as panels), C stored through register transposes (`transposed_store`)."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

from aten_mlir.backends.cpu.passes.outer_swap import MAX_COPY, MAX_ROWS, MIN_ROWS, ROWS, WIDER
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from tests.support.narrow_products import ZERO_FILL, compile_vectorized

_PRODUCT = """
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @product(%x: memref<{m}x{k}xf32>, %w: memref<{n}x{k}xf32>, %y: memref<{m}x{n}xf32>) {{{z}
  linalg.generic {{indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x, %w : memref<{m}x{k}xf32>, memref<{n}x{k}xf32>) outs(%y : memref<{m}x{n}xf32>) {{
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }}
  return
}}
"""


def vectorized(cpu: str, m: str, k: str, n: str, zero_fill: bool = True) -> str:
    """C (= 0 first) += x[m, k] @ W[n, k].T in f32 after `cpu-vectorize-contractions{cpu}`."""
    fill = ZERO_FILL.format(m=m, n=n) if zero_fill else ""
    with make_context():
        module = ir.Module.parse(_PRODUCT.format(m=m, k=k, n=n, z=fill))
        run_pipeline(module, f"cpu-vectorize-contractions{{cpu={cpu}}},canonicalize,cse")
        return str(module)


def _swapped(text: str) -> bool:
    """The swapped kernel's mark: C written by masked stores of ROWS columns (the dot kernel
    stores one element or a vector of them)."""
    return f"vector.constant_mask [{ROWS}] : vector<16xi1>" in text


def test_taken_for_whole_blocks_of_rows_and_wide_weights_only():
    """Static rows MIN_ROWS..MAX_ROWS in whole register blocks (32 rows), W at least WIDER times
    as many rows, x's copy at most MAX_COPY, C's zero fill there; `?` rows under a run-time
    choice; not without the fill, nor on AVX2."""
    assert _swapped(vectorized("znver4", "64", "1024", "1024"))
    assert _swapped(vectorized("znver4", str(MIN_ROWS), "100", str(WIDER * MIN_ROWS)))
    assert not _swapped(vectorized("znver4", str(MIN_ROWS), "100", str(WIDER * MIN_ROWS - 1)))
    assert not _swapped(vectorized("znver4", "16", "1024", "1024"))
    assert not _swapped(vectorized("znver4", "33", "1024", "1024"))
    assert not _swapped(vectorized("znver4", "48", "1024", "1024"))
    assert not _swapped(vectorized("znver4", str(MAX_ROWS + 16), "64", "4096"))
    k = MAX_COPY // (4 * 64) + 1
    assert not _swapped(vectorized("znver4", "64", str(k), "1024"))
    assert not _swapped(vectorized("znver4", "64", "1024", "1024", zero_fill=False))
    assert not _swapped(vectorized("haswell", "64", "1024", "1024"))
    dynamic = vectorized("znver4", "?", "768", "768")
    assert _swapped(dynamic) and "scf.if" in dynamic
    assert not _swapped(vectorized("znver4", "?", "768", str(WIDER * MIN_ROWS - 1)))


def _linear(x, w):
    return x @ w.t()


def _check(program, x, w):
    expected = x.double() @ w.double().t()
    got = program(x, w)
    torch.testing.assert_close(got.double(), expected, rtol=1e-4, atol=1e-4 * x.shape[1] ** 0.5)


# (m, k, n): k 1, odd, past a 256 block; n with a rest of 1..11 columns of C past 12-column
# tiles; rows in whole 32-row tiles
SHAPES = [
    (32, 100, 128),
    (64, 7, 1000),
    (64, 1, 4096),
    (64, 1024, 1025),
    (128, 768, 777),
    (96, 33, 1031),
    (256, 1000, 1033),
    (160, 300, 641),
]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_static_matches_float64(shape, tmp_path):
    m, k, n = shape
    torch.manual_seed(m * k + n)
    x, w = torch.randn(m, k), torch.randn(n, k)
    program, text = compile_vectorized(_linear, (x, w), tmp_path)
    assert _swapped(text)
    _check(program, x, w)


def test_c_a_view_inside_a_larger_output(tmp_path):
    """C is a column slice of a larger result: nothing outside the slice is written."""

    def fn(x, w, out):
        out = out.clone()
        out[:, 3:1003] = x @ w.t()
        return out

    torch.manual_seed(0)
    x, w, out = torch.randn(64, 129), torch.randn(1000, 129), torch.randn(64, 1010)
    program, _ = compile_vectorized(fn, (x, w, out), tmp_path)
    expected = fn(x.double(), w.double(), out.double())
    torch.testing.assert_close(program(x, w, out).double(), expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("k,n", [(768, 768), (65, 1000)], ids=str)
def test_dynamic_rows(k, n, tmp_path):
    """`?` rows: swapped at whole 32-row blocks in range, the dot kernel elsewhere; values
    right at every size (odd ones, one past MAX_ROWS)."""
    torch.manual_seed(k + n)
    w = torch.randn(n, k)
    rows = Dim("rows", min=1, max=1024)
    program, text = compile_vectorized(
        _linear, (torch.randn(64, k), w), tmp_path, dynamic=(({0: rows}, {}),)
    )
    assert _swapped(text)
    for m in (1, 7, 32, 33, 64, 129, 160, MAX_ROWS, MAX_ROWS + 16, 300):
        _check(program, torch.randn(m, k), w)


def test_special_values(tmp_path):
    """inf and NaN land in C exactly where the product puts them (the transposed store keeps
    each value at its own row and column)."""
    x, w = torch.randn(64, 40), torch.randn(300, 40)
    x[5, 3], x[17, 0], w[250, 39] = float("inf"), float("nan"), float("-inf")
    program, _ = compile_vectorized(_linear, (x, w), tmp_path)
    torch.testing.assert_close(program(x, w), x @ w.t(), rtol=1e-4, atol=1e-4, equal_nan=True)

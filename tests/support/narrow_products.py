"""Narrow-type (bf16/f16) products in tests: how close one must be (as close to float64 as
eager's), and the IR of a bf16 product for the CPU kernels' pass tests."""

from __future__ import annotations

import torch
from mlir import ir

import aten_mlir
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from tests.modules import Fn

_BF16_PRODUCT = """
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> ({w})>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @product(%x: memref<{m}x{k}xbf16>, %w: memref<{ws}xbf16>, %y: memref<{m}x{n}xf32>) {{{z}
  linalg.generic {{indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x, %w : memref<{m}x{k}xbf16>, memref<{ws}xbf16>) outs(%y : memref<{m}x{n}xf32>) {{
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %a = arith.extf %p : bf16 to f32
    %b = arith.extf %q : bf16 to f32
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }}
  return
}}
"""


ZERO_FILL = """
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<{m}x{n}xf32>)"""


def vectorized_bf16_product(
    cpu: str, m: str, k: str, n: str, transposed: bool = True, zero_fill: bool = False
) -> str:
    """`x[m, k] @ W.T` (W [n, k]; `transposed=False`: `x @ W`, W [k, n]) in bf16 into f32 after
    `cpu-vectorize-contractions{cpu=...}`; sizes as IR text ("?" for dynamic). `zero_fill`: C is
    zeroed first (a kernel may fold that fill)."""
    w, ws = ("n, k", f"{n}x{k}") if transposed else ("k, n", f"{k}x{n}")
    fill = ZERO_FILL.format(m=m, n=n) if zero_fill else ""
    with make_context():
        module = ir.Module.parse(_BF16_PRODUCT.format(m=m, k=k, n=n, w=w, ws=ws, z=fill))
        run_pipeline(module, f"cpu-vectorize-contractions{{cpu={cpu}}},canonicalize,cse")
        return str(module)


def assert_close_as_eager(ours, eager, exact):
    """Each element no farther from the float64 result than eager's, plus half an ulp of the
    narrow type at that size (the two sums round in other orders)."""
    ulp = torch.finfo(eager.dtype).eps * exact.abs().clamp_min(1.0)
    ours_err = (ours.double() - exact).abs()
    eager_err = (eager.double() - exact).abs()
    assert torch.all(ours_err <= eager_err + ulp), (ours_err - eager_err).max()


def compile_vectorized(fn, args, tmp_path, dynamic=None):
    """`fn` exported and compiled for the CPU: (the program, its IR after the vectorize stage)."""
    ep = torch.export.export(Fn(fn), args, dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "05-vectorize.mlir").read_text()


def check_as_eager(program, fn, *args):
    """`program(*args)` as close to `fn`'s float64 result as eager's, by `assert_close_as_eager`."""
    exact = fn(*(a.double() for a in args))
    assert_close_as_eager(program(*args), fn(*args), exact)

"""`?` rows of C in the outer and dot kernels (m_tiles.py): whole register blocks, then the rows
left as one tile whose rows past M read row M - 1 and are not stored. Every M from 0 through
each remainder of the blocks, on each kernel path (outer in place, outer on panels with A
strips, dot, packed), against eager; natively with C (and A) the caller's memory, so a store or
load past row M - 1 shows as a changed sentinel row or a fault on a guard page."""

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
from aten_mlir.backends.cpu.passes import m_tiles
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import make_context
from aten_mlir.passes import run_pipeline
from tests.modules import Fn

# empty, each remainder of an 8-row block below 8 and past it, and the panel path (>= 64 rows)
# with remainders 3 (a 4-row tile), 7 (an 8-row tile) and 1
ROWS = (0, 1, 2, 3, 5, 7, 8, 9, 15, 33, 67, 71, 129)

# name: (linalg op on A [M, K], B, C [M, N]; B's shape, K, N). Outer in place (B rows not 4 KiB
# apart), outer with B rows 4 KiB apart (in place below 64 rows, panels and A strips from 64),
# and B along k: the dot kernel, or the packed one (panels transposed from B) from k < 3 rows.
_OUTER = "linalg.matmul ins(%a, %b : memref<?xKxf32>, memref<KxNxf32>) outs(%c : memref<?xNxf32>)"
_DOT = """linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
      affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?xKxf32>, memref<NxKxf32>) outs(%c : memref<?xNxf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }"""
KERNELS = {
    "outer_in_place": (_OUTER, 96, 40, False),
    "outer_panels": (_OUTER, 64, 1024, False),
    "dot_or_packed": (_DOT, 200, 12, True),
}


def native_product(name, cache_dir):
    """`C += A @ B` (or A @ B^T) on `?` rows, through cpu-vectorize-contractions and the llvm
    stage; C is passed in."""
    op, k, n, transposed = KERNELS[name]
    b_type = f"memref<{n}x{k}xf32>" if transposed else f"memref<{k}x{n}xf32>"
    source = f"""
func.func @product(%a: memref<?x{k}xf32>, %b: {b_type}, %c: memref<?x{n}xf32>) {{
  {op.replace("K", str(k)).replace("N", str(n))}
  return
}}"""
    llvm = next(s for s in CPU_STAGES if s.name == "llvm")
    with make_context():
        module = ir.Module.parse(source)
        run_pipeline(module, "cpu-vectorize-contractions,canonicalize,cse")
        kernels = str(module)
        run_pipeline(module, llvm.pipeline)
        text = str(module)
    assert "vector.fma" in kernels and "linalg." not in kernels, kernels
    lib = compile_llvm_module(text, cache_dir=cache_dir)
    types = [f"memref<?x{k}xf32>", b_type, f"memref<?x{n}xf32>"]
    return lib.function("product", types, []), k, n, transposed


@pytest.mark.parametrize("clamped", [True, False], ids=["clamped", "halving"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_rows_count_and_no_row_past_m(name, clamped, tmp_path, monkeypatch):
    """C (starting from its own values: the kernel adds) equals eager at every M, and the 8 rows
    after C's M rows (the same buffer) keep their sentinel: no tile row past M is stored."""
    monkeypatch.setattr(m_tiles, "CLAMPED_TAIL", clamped)
    product, k, n, transposed = native_product(name, tmp_path)
    gen = torch.Generator().manual_seed(7)
    b = torch.randn((n, k) if transposed else (k, n), generator=gen)
    for m in ROWS:
        a = torch.randn(m, k, generator=gen)
        start = torch.randn(m, n, generator=gen)
        buffer = torch.full((m + 8, n), -7.0)
        buffer[:m] = start
        product(a, b, buffer[:m])
        want = start + a @ (b.t() if transposed else b)
        torch.testing.assert_close(buffer[:m], want, rtol=1e-4, atol=1e-4)
        assert bool((buffer[m:] == -7.0).all()), (name, m)


_GUARDED = """
import sys, torch
from aten_mlir.tests.backends.cpu.passes.test_m_tiles import ROWS, native_product
from aten_mlir.tests.support.guarded import guarded_copy
for name in sys.argv[2:]:
    product, k, n, transposed = native_product(name, sys.argv[1])
    b = torch.randn((n, k) if transposed else (k, n))
    for m in ROWS:
        a, keep_a = guarded_copy(torch.randn(m, k))
        c, keep_c = guarded_copy(torch.zeros(m, n))
        product(a, b, c)
        want = a @ (b.t() if transposed else b)
        torch.testing.assert_close(c, want, rtol=1e-4, atol=1e-4)
print("ok")
"""


def test_no_access_past_the_last_row(tmp_path):
    """A and C each end right before a PROT_NONE page: a tile row past M that read A or C, or
    stored into C, faults (in a child process)."""
    run = subprocess.run(
        [sys.executable, "-c", _GUARDED, str(tmp_path), *sorted(KERNELS)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]


@pytest.mark.parametrize("clamped", [True, False], ids=["clamped", "halving"])
def test_the_rest_is_one_clamped_tile(clamped, monkeypatch):
    """The outer kernel's `?` rows end in tiles of 8, 4, 2 and 1 rows, each run at most once
    (for a rest of 5-7, 3-4, 2, 1 rows): rows 5-7 of the 8-row tile and row 3 of the 4-row
    one read row min(m + i, M - 1) and store under `scf.if (m + i < M)`, in each of the two
    column parts (32 lanes, then 8). Off: halving tiles, nothing clamped."""
    monkeypatch.setattr(m_tiles, "CLAMPED_TAIL", clamped)
    op, k, n, _ = KERNELS["outer_in_place"]
    source = f"""
func.func @product(%a: memref<?x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<?x{n}xf32>) {{
  {op.replace("K", str(k)).replace("N", str(n))}
  return
}}"""
    with make_context():
        module = ir.Module.parse(source)
        run_pipeline(module, "cpu-vectorize-contractions,canonicalize,cse")
        text = str(module)
    assert text.count("arith.minui") == (8 if clamped else 0), text
    assert text.count("arith.cmpi ult") == (8 if clamped else 0), text
    # 8-row tiles: the whole blocks and the clamped one, in both column parts
    assert text.count("step %c8 {") == (4 if clamped else 2), text


@pytest.mark.parametrize("clamped", [True, False], ids=["clamped", "halving"])
def test_one_row_tile_is_wide(clamped, monkeypatch):
    """In place, the one-row tile of `?` rows holds 8 vectors of columns (128 lanes a step of
    its column loop, 8 FMA chains) instead of the register block's 2."""
    monkeypatch.setattr(m_tiles, "CLAMPED_TAIL", clamped)
    op, k, n, _ = KERNELS["outer_panels"]
    source = f"""
func.func @product(%a: memref<?x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<?x{n}xf32>) {{
  {op.replace("K", str(k)).replace("N", str(n))}
  return
}}"""
    with make_context():
        module = ir.Module.parse(source)
        run_pipeline(module, "cpu-vectorize-contractions,canonicalize,cse")
        text = str(module)
    wide = re.findall(r"scf.for %\S+ = %\S+ to %\S+ step %c128 ", text)
    assert len(wide) == (1 if clamped else 0), text


_MODELS = {
    "x_at_w": (lambda x, w: x @ w, False),
    "linear": (lambda x, w: torch.nn.functional.linear(x, w), True),
}


@pytest.mark.parametrize(
    "dtype, name",
    [(torch.float32, "x_at_w"), (torch.float32, "linear"), (torch.bfloat16, "x_at_w")],
)
def test_dynamic_products_at_every_rows_count(dtype, name):
    """Through aten_mlir.compile with a `?` row count, GPT-2 / BERT sizes (k 768, n 3072 and
    768): one compile, every M against eager."""
    fn, transposed = _MODELS[name]
    gen = torch.Generator().manual_seed(3)
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    for k, n in ((768, 3072), (3072, 768)):
        w = torch.randn((n, k) if transposed else (k, n), generator=gen).to(dtype)

        def f(x, w=w):
            return fn(x, w)

        rows = Dim("rows", min=0, max=4096)
        example = (torch.randn(5, k, dtype=dtype),)
        ep = torch.export.export(Fn(f), example, dynamic_shapes=(({0: rows},),))
        compiled = aten_mlir.compile(ep, target="cpu", cache=False)
        for m in ROWS:
            x = torch.randn(m, k, generator=gen).to(dtype)
            want = fn(x.float(), w.float()).to(dtype)
            torch.testing.assert_close(compiled(x), want, rtol=tol, atol=tol * k**0.5)

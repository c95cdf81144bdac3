"""`cpu-parallelize-loops`: which loops are proven independent (`parallel_deps`), and
compiled programs giving the same bits at one and two threads."""

from __future__ import annotations

import pytest
import torch
from mlir import ir

import aten_mlir
from aten_mlir.backends.cpu.passes.parallel_deps import iterations_independent
from aten_mlir.dialects import make_context
from tests.modules import Fn

# An outer-product kernel's shape: blocks of 64 rows of C, tiles of `ROWS` rows inside a block,
# with the remainder rows as a second tile loop; each tile reads and writes rows i .. i+ROWS-1.
KERNEL = """
func.func @f(%a: memref<{m}x64xf32>) -> memref<{m}x64xf32> {{
  %c = memref.alloc() : memref<{m}x64xf32>
  %v0 = arith.constant dense<0.0> : vector<16xf32>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %cm = arith.constant {m} : index
  %main = arith.constant {main} : index
  %rows = arith.constant {rows} : index
  %rem = arith.constant {rem} : index
  %last = arith.constant {last} : index
  scf.for %b = %c0 to %cm step %c64 {{
    %e = arith.addi %b, %c64 : index
    %lo = arith.maxsi %b, %c0 : index
    %hi = arith.minsi %e, %main : index
    scf.for %i = %lo to %hi step %rows {{
      %top = arith.addi %i, %last : index
      %v = vector.load %a[%top, %c0] : memref<{m}x64xf32>, vector<16xf32>
      vector.store %v, %c[%top, %c0] : memref<{m}x64xf32>, vector<16xf32>
      vector.store %v, %c[%i, %c0] : memref<{m}x64xf32>, vector<16xf32>
    }}
    %lo2 = arith.maxsi %b, %main : index
    %hi2 = arith.minsi %e, %cm : index
    scf.for %i = %lo2 to %hi2 step %rem {{
      vector.store %v0, %c[%i, %c0] : memref<{m}x64xf32>, vector<16xf32>
    }}
  }}
  return %c : memref<{m}x64xf32>
}}
"""


def _outer_loop(text: str) -> ir.Operation:
    module = ir.Module.parse(text)
    f = module.body.operations[0]
    return next(op for op in f.regions[0].blocks[0].operations if op.name == "scf.for"), module


def _kernel(m: int, rows: int, last: int) -> str:
    main = m - m % rows
    rem = m % rows or rows
    return KERNEL.format(m=m, main=main, rows=rows, rem=rem, last=last)


@pytest.mark.parametrize(
    "m, rows, last, independent",
    [
        (128, 8, 7, True),  # whole tiles in whole blocks: affine in the block index
        (70, 8, 7, True),  # a remainder tile (max(b, 64)): iteration by iteration
        (128, 8, 8, False),  # a tile reaching one row past its block
    ],
)
def test_row_blocks(m, rows, last, independent):
    with make_context():
        loop, _ = _outer_loop(_kernel(m, rows, last))
        assert iterations_independent(loop) is independent


FLAT = """
func.func @f(%x: memref<1048576xf32>) -> memref<1048576xf32> {{
  %y = memref.alloc() : memref<1048576xf32>
  %c0 = arith.constant 0 : index
  %n = arith.constant 1048576 : index
  %step = arith.constant 32 : index
  scf.for %i = %c0 to %n step %step {{
    %v = vector.load %x[%i] : memref<1048576xf32>, vector<{lanes}xf32>
    vector.store %v, %y[%i] : memref<1048576xf32>, vector<{lanes}xf32>
  }}
  return %y : memref<1048576xf32>
}}
"""


@pytest.mark.parametrize("lanes, independent", [(32, True), (64, False)])
def test_flat_vector_loop(lanes, independent):
    """32768 trips: proven on the symbolic index, lanes against the step."""
    with make_context():
        loop, _ = _outer_loop(FLAT.format(lanes=lanes))
        assert iterations_independent(loop) is independent


def test_arguments_may_alias():
    """A loop writing one function argument and reading another stays serial."""
    text = """
    func.func @f(%x: memref<64xf32>, %y: memref<64xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      scf.for %i = %c0 to %c64 step %c1 {
        %v = memref.load %x[%i] : memref<64xf32>
        memref.store %v, %y[%i] : memref<64xf32>
      }
      return
    }"""
    with make_context():
        loop, _ = _outer_loop(text)
        assert not iterations_independent(loop)


def test_calls_are_unknown():
    text = """
    func.func private @g(index)
    func.func @f() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c9 = arith.constant 9 : index
      scf.for %i = %c0 to %c9 step %c1 {
        func.call @g(%i) : (index) -> ()
      }
      return
    }"""
    with make_context():
        module = ir.Module.parse(text)
        f = module.body.operations[1]
        loop = next(op for op in f.regions[0].blocks[0].operations if op.name == "scf.for")
        assert not iterations_independent(loop)


def _workloads():
    """A matmul (scf.for kernels), a softmax and a layer norm + GELU (scf.parallel rows)."""
    return [
        (lambda a, b: a @ b, (torch.randn(256, 192), torch.randn(192, 320))),
        (lambda x: torch.softmax(x, -1), (torch.randn(512, 1000),)),
        (
            lambda x, w: torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, (96,), w)) + x,
            (torch.randn(4, 130, 96), torch.randn(96)),
        ),
    ]


@pytest.mark.parametrize("index", range(3))
def test_same_bits_at_one_and_two_threads(index, tmp_path):
    fn, args = _workloads()[index]
    compiled = aten_mlir.compile(torch.export.export(Fn(fn), args), target="cpu", cache=False)
    assert "aten_mlir_parallel_for" in _loops_text(compiled, fn, args, tmp_path)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = compiled(*args)
        torch.set_num_threads(2)
        two = compiled(*args)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one, two)
    torch.testing.assert_close(one, fn(*args), atol=1e-4, rtol=1e-4)


def _loops_text(compiled, fn, args, tmp_path) -> str:
    aten_mlir.compile(
        torch.export.export(Fn(fn), args), target="cpu", cache=False, dump_dir=tmp_path
    )
    return next(tmp_path.glob("*-loops.mlir")).read_text()


def test_prefetch_is_no_access():
    """A prefetch of the next block's rows (the outer kernel's C prefetch) reads nothing the
    program sees: the row blocks stay independent."""
    text = """
    func.func @f(%c: memref<256x64xf32>) {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %v = arith.constant dense<0.0> : vector<16xf32>
      scf.for %b = %c0 to %c256 step %c64 {
        %next = arith.addi %b, %c64 : index
        memref.prefetch %c[%next, %c0], read, locality<3>, data : memref<256x64xf32>
        vector.store %v, %c[%b, %c0] : memref<256x64xf32>, vector<16xf32>
      }
      return
    }"""
    with make_context():
        loop, _ = _outer_loop(text)
        assert iterations_independent(loop)


def test_the_product_kernel_itself_is_shared(tmp_path):
    """A 1024-row product's FMA tiles run in the outlined parallel body, its m blocks (at least
    8) shared out, not only the copy of B into panels."""
    fn, args = (lambda a, b: a @ b), (torch.randn(1024, 256), torch.randn(256, 512))
    compiled = aten_mlir.compile(torch.export.export(Fn(fn), args), target="cpu", cache=False)
    text = _loops_text(compiled, fn, args, tmp_path)
    bodies = text.split("func.func private @segment0_parallel")[1:]
    assert any("vector.fma" in body for body in bodies), "the FMA tiles stayed serial"
    torch.testing.assert_close(compiled(*args), fn(*args), atol=1e-3, rtol=1e-4)

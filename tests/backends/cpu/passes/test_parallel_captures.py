"""`cpu-parallelize-loops`: what a parallel loop reads from its function crosses the context
struct in a type LLVM has. A loop-invariant `vector<Nxindex>` (a broadcast of a `?` size hoisted
out of the loop, then arithmetic on it) made mlir-translate assert ("expected compatible with
LLVM vector type") when it was a struct field as is."""

from __future__ import annotations

import re

import pytest
from mlir import ir

from aten_mlir.backends.cpu.native import _translate
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import make_context
from aten_mlir.passes.pipeline import run_pipeline

# %s: broadcast of the `?` width (rebuilt inside); %u: arithmetic on index vectors (crosses as
# vector<16xi64>); %k: broadcast of a constant; %f: a broadcast of a vector (crosses as is).
LOOP = """
func.func @scaled(%x: memref<64x?xindex>, %y: memref<64x?xf32>, %w: index, %g: vector<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %s = vector.broadcast %w : index to vector<16xindex>
  %t = vector.step : vector<16xindex>
  %u = arith.muli %t, %s : vector<16xindex>
  %k = vector.broadcast %c3 : index to vector<16xindex>
  %f = vector.broadcast %g : vector<2xf32> to vector<16x2xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %w step %c16 {
      %a = vector.broadcast %j : index to vector<16xindex>
      %b = arith.addi %a, %s : vector<16xindex>
      %c = arith.addi %b, %u : vector<16xindex>
      %d = arith.muli %c, %k : vector<16xindex>
      vector.store %d, %x[%i, %j] : memref<64x?xindex>, vector<16xindex>
      %e = vector.extract %f[5] : vector<2xf32> from vector<16x2xf32>
      vector.store %e, %y[%i, %j] : memref<64x?xf32>, vector<2xf32>
    }
    scf.reduce
  }
  return
}
"""


def _parallelized() -> str:
    with make_context():
        module = ir.Module.parse(LOOP)
        run_pipeline(module, "builtin.module(cpu-parallelize-loops{min-work=1000})")
        return str(module)


def test_index_vectors_cross_as_i64():
    text = _parallelized()
    assert "aten_mlir_parallel_for" in text
    struct = re.search(r"llvm\.alloca .* x (!llvm\.struct<.*>) \{", text).group(1)
    assert "index" not in struct
    # the `?` width once as i64 (its broadcasts rebuilt), %u as a vector of i64, %g for %f
    fields = re.sub(r"struct<\(ptr[^)]*\)>", "memref", struct)
    assert fields == "!llvm.struct<(i64, vector<16xi64>, memref, vector<2xf32>, memref)>"
    body = text.split("func.func private @scaled_parallel0")[1]
    assert len(re.findall(r"vector\.broadcast %\S+ : index to vector<16xindex>", body)) == 3
    assert re.search(r"arith\.index_cast %\S+ : vector<16xi64> to vector<16xindex>", body)


@pytest.mark.parametrize("stage", [s for s in CPU_STAGES if s.name == "llvm"], ids=["llvm"])
def test_lowers_and_translates(stage):
    """The rest of the CPU pipeline and mlir-translate accept the outlined loop."""
    with make_context():
        module = ir.Module.parse(_parallelized())
        run_pipeline(module, f"builtin.module({stage.pipeline})")
        llvm_ir = _translate(str(module).encode()).decode()
    assert "define " in llvm_ir and "scaled_parallel0" in llvm_ir
    assert "<16 x i64>" in llvm_ir

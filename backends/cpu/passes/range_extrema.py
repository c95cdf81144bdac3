"""f32 vector `maximumf` / `minimumf` on whole AVX-512 registers as `vrangeps` plus a NaN fix.

LLVM expands `llvm.maximum` (NaN-propagating, -0 < +0) on x86 into a compare, an unordered
compare, a mask or and a masked move, two of them on mask registers; a loop-carried max waits
for the whole chain each step. A softmax row's max loop spent 31% of the row there (perf,
znver5, [1024, 1024]). AVX512DQ's `vrangeps` with imm 0b0101 (max; sign from the compare) or
0b0100 (min) orders -0 below +0 and compares infinities and denormals as IEEE does, but
returns the other operand when one is NaN (measured on znver5, every pair of 13 specials), so
an unordered compare selects `a + b` (a quiet NaN) in those lanes: three vector ops with one
mask, the same result as `maximumf`/`minimumf` for every input.
"""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, llvm

from ..target import cpu_target
from .x86_registers import LANES, per_register

_RANGE = "llvm.x86.avx512.mask.range.ps.512"
# imm8: bits 1:0 select (00 min, 01 max), bits 3:2 the sign (01: of the selected operand)
_IMM = {"arith.maximumf": 0b0101, "arith.minimumf": 0b0100}
NAMES = tuple(_IMM)


def applies(op: ir.Operation, cpu: str = "") -> bool:
    """`op` is a `maximumf`/`minimumf` of f32 vectors of whole 512-bit registers on a target
    with AVX512DQ (`cpu`: an -mcpu name, '' the build's)."""
    if op.name not in _IMM or os.environ.get("ATEN_MLIR_RANGE_EXTREMA", "1") == "0":
        return False
    t = op.results[0].type
    if not isinstance(t, ir.VectorType) or t.rank != 1 or t.shape[0] % LANES:
        return False
    if not isinstance(ir.VectorType(t).element_type, ir.F32Type):
        return False
    features = (cpu_target(cpu) if cpu else cpu_target()).features
    # a named CPU's features are probed ones (target.py), without DQ; every CPU with AVX512BW
    # and VL (Skylake-SP on, Zen 4 on) has DQ too: only Xeon Phi has AVX-512 without them
    return "avx512dq" in features or {"avx512bw", "avx512vl"} <= features


def expand(op: ir.Operation) -> ir.Value:
    """`op`'s result rebuilt at the insertion point (see the module docstring)."""
    a, b = op.operands
    imm = arith.constant(ir.IntegerType.get_signless(32), _IMM[op.name])
    all_lanes = arith.constant(ir.IntegerType.get_signless(16), -1)
    current_rounding = arith.constant(ir.IntegerType.get_signless(32), 4)

    def one(x: ir.Value, y: ir.Value) -> ir.Value:
        return llvm.call_intrinsic(
            x.type, _RANGE, [x, y, imm, x, all_lanes, current_rounding], [], []
        )

    ranged = per_register([a, b], ir.F32Type.get(), one)
    unordered = arith.cmpf(arith.CmpFPredicate.UNO, a, b)
    return arith.select(unordered, arith.addf(a, b), ranged)

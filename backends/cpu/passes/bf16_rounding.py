"""f32 -> bf16 rounding of vector lanes by their bits, for `cpu-vectorize-generics`.

LLVM's x86 backend fails on a `<32 x bfloat>` fptrunc of a product of a masked load ("Unexpected
illegal type" in LegalizeDAG: the tail of a softmax row in bf16), so vector truncations to bf16
are built from integer ops instead: round to nearest even, NaNs made quiet, as the
`__truncsfbf2` the scalar code calls (`backends/cpu/native.py`).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith


def is_f32_to_bf16(o: ir.Operation) -> bool:
    """An f32 -> bf16 `arith.truncf` with the default rounding (to nearest, ties to even)."""
    return (
        o.name == "arith.truncf"
        and "roundingmode" not in o.attributes
        and isinstance(o.operands[0].type, ir.F32Type)
        and isinstance(o.results[0].type, ir.BF16Type)
    )


def round_to_bf16(x: ir.Value) -> ir.Value:
    """vector<N x f32> -> vector<N x bf16>: `(bits + 0x7fff + lsb) >> 16`, or the quieted
    high half of a NaN."""
    lanes = ir.VectorType(x.type).shape
    i32 = ir.IntegerType.get_signless(32)
    v32 = ir.VectorType.get(lanes, i32)

    def splat(value: int) -> ir.Value:
        return arith.constant(
            v32, ir.DenseElementsAttr.get_splat(v32, ir.IntegerAttr.get(i32, value))
        )

    bits = arith.bitcast(v32, x)
    nan = arith.cmpi(
        arith.CmpIPredicate.ugt, arith.andi(bits, splat(0x7FFFFFFF)), splat(0x7F800000)
    )
    high = arith.shrui(bits, splat(16))
    bias = arith.addi(arith.andi(high, splat(1)), splat(0x7FFF))
    rounded = arith.shrui(arith.addi(bits, bias), splat(16))
    picked = arith.select(nan, arith.ori(high, splat(0x40)), rounded)
    halves = arith.trunci(ir.VectorType.get(lanes, ir.IntegerType.get_signless(16)), picked)
    return arith.bitcast(ir.VectorType.get(lanes, ir.BF16Type.get()), halves)

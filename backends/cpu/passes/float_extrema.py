"""The horizontal part of a NaN-propagating `maximumf` / `minimumf` reduction, as integers.

`vector.reduction <maximumf>` becomes LLVM's `vector.reduce.fmaximum`, which x86 expands step by
step, each step ordering -0 below +0 and passing NaN on (sign tests, blends, an unordered
compare: ~6 dependent instructions a step, then scalar steps through general registers). A
softmax row waits for that chain before its exponentials. Here the lanes are mapped to i32
keys ordered as the floats are (-0 < +0; a negative float's magnitude bits flipped), reduced with
`maxsi` / `minsi` (vpmaxsd shuffles), mapped back; a NaN in any lane (one unordered compare
per register, or-reduced) gives NaN. Same result as `maximumf`/`minimumf` for every input.
"""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, vector

_INTEGER_KIND = {"maximumf": "maxsi", "minimumf": "minsi"}
_COMBINE = {"maximumf": arith.maximumf, "minimumf": arith.minimumf}


def reduces_as_integers(kind: str, lanes: ir.Type) -> bool:
    """A `kind` reduction of the f32 vector type `lanes` this module builds."""
    if os.environ.get("ATEN_MLIR_ORDERED_EXTREMA", "1") == "0":  # A/B against fmaximum
        return False
    return (
        kind in _INTEGER_KIND
        and isinstance(lanes, ir.VectorType)
        and lanes.rank == 1
        and isinstance(ir.VectorType(lanes).element_type, ir.F32Type)
    )


def _ordered(bits: ir.Value, i32_type: ir.Type) -> ir.Value:
    """bits -> key and back (an involution): a negative float's low 31 bits flipped."""

    def c(v: int) -> ir.Value:
        if isinstance(i32_type, ir.VectorType):
            elem = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), v)
            return arith.constant(i32_type, ir.DenseElementsAttr.get_splat(i32_type, elem))
        return arith.constant(i32_type, v)

    sign_fill = arith.shrsi(bits, c(31))  # -1 for negative, 0 otherwise
    return arith.xori(bits, arith.shrui(sign_fill, c(1)))


def reduce_extremum(kind: str, lanes: ir.Value, old: ir.Value) -> ir.Value:
    """`vector.reduction <kind>, lanes, old` for f32 lanes, built from integer reductions."""
    f32 = ir.F32Type.get()
    i32 = ir.IntegerType.get_signless(32)
    n = ir.VectorType(lanes.type).shape
    keys = _ordered(arith.bitcast(ir.VectorType.get(n, i32), lanes), ir.VectorType.get(n, i32))
    best = vector.reduction(i32, ir.Attribute.parse(f"#vector.kind<{_INTEGER_KIND[kind]}>"), keys)
    value = arith.bitcast(f32, _ordered(best, i32))
    unordered = arith.cmpf(arith.CmpFPredicate.UNO, lanes, lanes)
    any_nan = vector.reduction(
        ir.IntegerType.get_signless(1), ir.Attribute.parse("#vector.kind<or>"), unordered
    )
    nan = arith.constant(f32, float("nan"))
    return _COMBINE[kind](old, arith.select(any_nan, nan, value))

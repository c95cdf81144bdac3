"""`cpu-exact-bf16-extrema`: bf16 `maximumf`/`minimumf`/`maxnumf`/`minnumf` (scalar or vector)
computed on f32 and narrowed back by dropping the low 16 bits.

LLVM widens bf16 arith to f32 and narrows the result with vcvtneps2bf16 on AVX512-BF16 CPUs,
which flushes subnormals, so the llvm stage runs `arith-emulate-unsupported-floats` on bf16:
f32 arith and a rounding `truncf` (integer ops after `arith-expand{include-bf16}`, about ten
per element). The extremum of two widened bf16 is one of them (or a NaN whose high half is a
NaN: a widened bf16 NaN keeps its payload in the high half, LLVM's own NaN is 0x7fc00000), so
its f32 bits end in 16 zeros and the narrowing is a shift: no rounding to do. A bf16 max
pool's scalar window loop spent most of its time in that rounding. Runs before the emulation,
which then leaves these ops alone (no bf16 operand is left).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from aten_mlir.passes.registry import ModulePass, register_pass

_EXTREMA = ("arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf")


def _element(t: ir.Type) -> ir.Type:
    return ir.ShapedType(t).element_type if isinstance(t, ir.VectorType) else t


def _like(t: ir.Type, element: ir.Type) -> ir.Type:
    """`t` (a scalar or vector type) with `element` as its element type."""
    return (
        ir.VectorType.get(ir.VectorType(t).shape, element)
        if isinstance(t, ir.VectorType)
        else element
    )


def _splat(t: ir.Type, value: int) -> ir.Value:
    if isinstance(t, ir.VectorType):
        element = ir.IntegerAttr.get(ir.VectorType(t).element_type, value)
        return arith.constant(t, ir.DenseElementsAttr.get_splat(t, element))
    return arith.constant(t, value)


def narrow_exactly(x: ir.Value, bf16_type: ir.Type) -> ir.Value:
    """f32 (scalar or vector) whose low 16 bits are zero -> bf16: its high half."""
    i32 = _like(x.type, ir.IntegerType.get_signless(32))
    high = arith.shrui(arith.bitcast(i32, x), _splat(i32, 16))
    halves = arith.trunci(_like(x.type, ir.IntegerType.get_signless(16)), high)
    return arith.bitcast(bf16_type, halves)


def widen_extremum(op: ir.Operation) -> None:
    """Replaces the bf16 extremum `op` with its f32 twin between two exact conversions."""
    bf16_type = op.results[0].type
    with op.location, ir.InsertionPoint(op):
        f32 = _like(bf16_type, ir.F32Type.get())
        lhs, rhs = (arith.extf(f32, v) for v in op.operands)
        wide = ir.Operation.create(op.name, [f32], [lhs, rhs], attributes=dict(op.attributes))
        narrow = narrow_exactly(wide.results[0], bf16_type)
    op.results[0].replace_all_uses_with(narrow)
    op.erase()


@register_pass
@dataclass(frozen=True)
class ExactBf16Extrema(ModulePass):
    """bf16 extrema on f32, narrowed by a shift (the result is one of the bf16 inputs)."""

    name: ClassVar[str] = "cpu-exact-bf16-extrema"

    def run(self, module_op: ir.Operation) -> None:
        found = []

        def visit(op):
            op = op.operation
            if op.name in _EXTREMA and isinstance(_element(op.results[0].type), ir.BF16Type):
                found.append(op)
            return ir.WalkResult.ADVANCE

        module_op.walk(visit)
        with module_op.context:
            for op in found:
                widen_extremum(op)

"""`cpu-native-bf16-rounding`: vector f32 -> bf16 `arith.truncf` as AVX512-BF16's vcvtneps2bf16.

The instruction rounds to nearest even and quiets NaNs as eager's conversion does, but reads
subnormal inputs as zero (bf16 `x * 1.5` of 2.9e-39 would give 0), so the integer rounding of
`bf16_rounding.round_to_bf16` (~11 vector ops; one for vcvtneps2bf16) runs instead when a lane of
the vector is subnormal: an `scf.if` on "any lane subnormal", taken almost never. Runs before
`convert-scf-to-cf` and `arith-expand{include-bf16}` (which expands what is left: scalars and
vectors not a multiple of 16 lanes), only for a target with AVX512-BF16.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, llvm, scf, vector

from aten_mlir.passes.registry import ModulePass, register_pass

from ..target import cpu_target
from .bf16_rounding import round_to_bf16
from .x86_registers import LANES, cvtneps2bf16, whole_registers

_FPCLASS = "llvm.x86.avx512.fpclass.ps.512"
_FPCLASS_DENORMAL = 0x20  # vfpclassps imm8 bit 5: denormal (either sign)


def _is_vector_f32_to_bf16(op: ir.Operation) -> bool:
    """A vector f32 -> bf16 `arith.truncf` with the default rounding (nearest, ties to even)."""
    if op.name != "arith.truncf" or "roundingmode" in op.attributes:
        return False
    t = op.results[0].type
    return isinstance(t, ir.VectorType) and isinstance(ir.VectorType(t).element_type, ir.BF16Type)


def rounds_natively(x: ir.Value) -> bool:
    """The pass converts a truncf of `x` (so `cpu-vectorize-generics` may leave it a truncf)."""
    if os.environ.get("ATEN_MLIR_NATIVE_BF16", "1") == "0":  # A/B against the integer rounding
        return False
    return whole_registers(x.type) and cpu_target().avx512_bf16


def _any_subnormal(x: ir.Value) -> ir.Value:
    """i1: some lane of `x` is a nonzero subnormal: vfpclassps (class "denormal") per register,
    the masks or-ed (one kortest); the integer test (four ops a register) is LLVM's own
    lowering of `llvm.is.fpclass`, so the x86 intrinsic is called by name."""
    if os.environ.get("ATEN_MLIR_FPCLASS", "1") == "0" or "avx512dq" not in cpu_target().features:
        return _any_subnormal_bits(x)  # (the knob: A/B against the integer test)
    n = ir.VectorType(x.type).shape[0]
    mask_t = ir.VectorType.get([LANES], ir.IntegerType.get_signless(1))
    denormal = arith.constant(ir.IntegerType.get_signless(32), _FPCLASS_DENORMAL)
    lanes = None
    for at in range(0, n, LANES):
        part = x
        if n != LANES:
            piece = ir.VectorType.get([LANES], ir.F32Type.get())
            part = vector.extract_strided_slice(piece, x, [at], [LANES], [1])
        found = llvm.call_intrinsic(mask_t, _FPCLASS, [part, denormal], [], [])
        lanes = found if lanes is None else arith.ori(lanes, found)
    return vector.reduction(ir.IntegerType.get_signless(1), vector.CombiningKind.OR, lanes)


def _any_subnormal_bits(x: ir.Value) -> ir.Value:
    """i1: some lane of `x` is a nonzero subnormal ((|bits| - 1) < 0x7fffff unsigned)."""
    n = ir.VectorType(x.type).shape[0]
    i32 = ir.IntegerType.get_signless(32)
    v32 = ir.VectorType.get([n], i32)

    def splat(value: int) -> ir.Value:
        return arith.constant(
            v32, ir.DenseElementsAttr.get_splat(v32, ir.IntegerAttr.get(i32, value))
        )

    bits = arith.andi(arith.bitcast(v32, x), splat(0x7FFFFFFF))
    lanes = arith.cmpi(arith.CmpIPredicate.ult, arith.subi(bits, splat(1)), splat(0x7FFFFF))
    return vector.reduction(ir.IntegerType.get_signless(1), vector.CombiningKind.OR, lanes)


def round_natively(op: ir.Operation) -> None:
    """Replaces the truncf `op` with the native conversion and the subnormal fallback."""
    x = op.operands[0]
    with op.location, ir.InsertionPoint(op):
        branch = scf.IfOp(_any_subnormal(x), [op.results[0].type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.yield_([round_to_bf16(x)])
        with ir.InsertionPoint(branch.else_block):
            scf.yield_([cvtneps2bf16(x)])
    op.results[0].replace_all_uses_with(branch.results[0])
    op.erase()


@register_pass
@dataclass(frozen=True)
class NativeBf16Rounding(ModulePass):
    """Vector f32 -> bf16 truncf -> vcvtneps2bf16 (integer rounding when a lane is subnormal)."""

    name: ClassVar[str] = "cpu-native-bf16-rounding"

    def run(self, module_op: ir.Operation) -> None:
        found = []

        def visit(op):
            op = op.operation
            if _is_vector_f32_to_bf16(op) and rounds_natively(op.operands[0]):
                found.append(op)
            return ir.WalkResult.ADVANCE

        module_op.walk(visit)
        for op in found:
            round_natively(op)

"""x86vector AVX-512 ops applied to a 1-D vector of any multiple of 16 f32 lanes.

The x86vector ops (`vcvtneps2bf16`, `vscalefps`) take one 512-bit register; the row loops carry
32- or 64-lane vectors, so those are cut into registers and put back together (LLVM keeps the
pieces in separate zmm registers: the slices cost nothing).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, vector

from ..target import cpu_target

LANES = 16  # f32 lanes of a zmm register


def whole_registers(t: ir.Type) -> bool:
    """A 1-D vector of f32 filling whole 512-bit registers, on a target with AVX-512."""
    if os.environ.get("ATEN_MLIR_X86VECTOR", "1") == "0":  # A/B against the portable forms
        return False
    if not isinstance(t, ir.VectorType) or t.rank != 1 or t.shape[0] % LANES:
        return False
    return isinstance(ir.VectorType(t).element_type, ir.F32Type) and "avx512f" in (
        cpu_target().features
    )


def per_register(
    args: list[ir.Value], element: ir.Type, build: Callable[..., ir.Value]
) -> ir.Value:
    """`build` on each register's slice of `args` (vectors of one length), the results (of
    `element` type) joined into one vector."""
    n = ir.VectorType(args[0].type).shape[0]
    if n == LANES:
        return build(*args)
    out_t = ir.VectorType.get([n], element)
    zero = ir.FloatAttr.get(element, 0.0) if not isinstance(element, ir.IntegerType) else None
    out = arith.constant(out_t, ir.DenseElementsAttr.get_splat(out_t, zero))
    for at in range(0, n, LANES):
        parts = [
            vector.extract_strided_slice(
                ir.VectorType.get([LANES], ir.VectorType(a.type).element_type),
                a,
                [at],
                [LANES],
                [1],
            )
            for a in args
        ]
        out = vector.insert_strided_slice(build(*parts), out, [at], [1])
    return out


def scalef(x: ir.Value, n: ir.Value) -> ir.Value:
    """x * 2^floor(n) lane by lane, one rounding (denormal results, overflow to inf): vscalefps."""
    f32 = ir.F32Type.get()

    def one(a: ir.Value, b: ir.Value) -> ir.Value:
        all_lanes = arith.constant(ir.IntegerType.get_signless(16), -1)
        current_rounding = arith.constant(ir.IntegerType.get_signless(32), 4)
        return ir.Operation.create(
            "x86vector.avx512.mask.scalef",
            results=[a.type],
            # MLIR 22 hands the operands to llvm.x86.avx512.mask.scalef.ps.512 in order:
            # (a, b, pass-through, mask, rounding), not the op's documented (src, a, b, ...)
            operands=[a, b, a, all_lanes, current_rounding],
        ).results[0]

    return per_register([x, n], f32, one)


def cvtneps2bf16(x: ir.Value) -> ir.Value:
    """f32 -> bf16 lane by lane, nearest even, NaN quiet, subnormal inputs read as 0."""
    piece = ir.VectorType.get([LANES], ir.BF16Type.get())

    def one(a: ir.Value) -> ir.Value:
        return ir.Operation.create(
            "x86vector.avx512.cvt.packed.f32_to_bf16", results=[piece], operands=[a]
        ).results[0]

    return per_register([x], ir.BF16Type.get(), one)


def dpbf16ps(acc: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
    """acc + the pairwise products of the bf16 pairs of a and b: `vdpbf16ps`
    (`x86vector.avx512.dot`, which has no Python builder upstream)."""
    op = ir.Operation.create("x86vector.avx512.dot", results=[acc.type], operands=[acc, a, b])
    return op.result

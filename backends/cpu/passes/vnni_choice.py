"""Which bf16 product runs the vdpbf16ps kernel (`vnni_kernel`), swapped (`vnni_swap`) or not:
the choice imports both kernels, which build on each other (the swapped one is a VnniKernel), so
it lives apart from them."""

from __future__ import annotations

from mlir import ir

from aten_mlir.backends.cpu.target import cpu_target

from .dot_kernel import FEW_ROWS
from .kernels import Blocking, Contraction
from .vnni_kernel import (
    MIN_MACS,
    MIN_ROWS_ALONG_K,
    VnniKernel,
    enabled,
    last_alone,
    strides_one,
)
from .vnni_swap import swapped_emitter

_GUESS = 64  # a `?` extent, when judging the size


def vnni_emitter(
    c: Contraction, types, blocks: Blocking, cpu: str = "", alone: bool = True
) -> VnniKernel | None:
    """The vdpbf16ps kernel of `c`, or None: off, not bf16 A and B into an f32 C, a target
    without AVX512-BF16 or with AMX-BF16, A not along k, C not along n, B neither along n nor
    k, a static FEW_ROWS rows or fewer (decode: the pair-dot kernel's; with B along k, fewer
    than MIN_ROWS_ALONG_K unless it runs swapped), or too small to pay for the copy.
    `alone`: the only kernel writing C (not one branch of a run-time choice), so it may drop
    C's zero fill."""
    if not enabled() or c.op.name == "linalg.conv_2d_nchw_fchw":
        return None
    a, b, out = (ir.MemRefType(v.type).element_type for v in (c.a, c.b, c.c))
    if not (isinstance(a, ir.BF16Type) and isinstance(b, ir.BF16Type)):
        return None
    if not isinstance(out, ir.F32Type) or blocks.vector_bytes < 64:
        return None
    a_at, b_at, c_at = c.index
    if not (last_alone(a_at, c.k) and last_alone(c_at, c.n) and strides_one(c.a, c.b, c.c)):
        return None
    if not (last_alone(b_at, c.n) or last_alone(b_at, c.k)):
        return None
    rows = c.extents[c.m]
    if rows is not None and rows <= FEW_ROWS:
        return None
    m, n, k = (_GUESS if c.extents[d] is None else c.extents[d] for d in (c.m, c.n, c.k))
    target = cpu_target(cpu or None)
    # AMX targets: tiles, or (off, too small) the FMA kernels; vdpbf16ps issues once per 2
    # cycles on Sapphire Rapids (16 products a cycle, two fmas 32), twice a cycle on Zen 5
    if m * n * k < MIN_MACS or not target.avx512_bf16 or target.amx_bf16:
        return None
    if not last_alone(b_at, c.n):
        swapped = swapped_emitter(c, types, blocks, alone)
        if swapped is not None:
            return swapped
        if rows is not None and rows < MIN_ROWS_ALONG_K:
            return None
    return VnniKernel(c, types, blocks, alone)

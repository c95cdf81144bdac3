"""C staged through a contiguous buffer, for a product whose C is a view with a non-unit
innermost stride: the kernels store C's lanes contiguously, so such a product had none and ran as
scalar loops. The case users meet is a conv writing straight into the zero-dilated input of the
transposed conv after it (every other column of that buffer: a UNet's decoder, 5x eager).

C is copied into a fresh buffer, the product runs there, and the result is copied back: two
passes over C (vector loops, `cpu-copies-to-generics`) against a contraction's k fmas per
element.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref


def strided_c(op: ir.Operation) -> bool:
    """`op` writes a memref C (its last operand) whose innermost stride is not 1."""
    if len(op.operands) != 3 or len(op.results):
        return False
    t = op.operands[2].type
    if not isinstance(t, ir.MemRefType) or ir.MemRefType(t).rank == 0:
        return False
    strides, _ = ir.MemRefType(t).get_strides_and_offset()
    return strides[-1] != 1


def contiguous_type(t: ir.MemRefType) -> ir.MemRefType:
    """`t`'s shape and element type in the identity layout."""
    return ir.MemRefType.get(t.shape, t.element_type, loc=ir.Location.unknown(t.context))


def stage_c(op: ir.Operation) -> None:
    """Rewrites `op` to accumulate into a contiguous copy of its C, copied back after it."""
    c = op.operands[2]
    t = ir.MemRefType(c.type)
    with op.location, ir.InsertionPoint(op):
        sizes = [
            memref.dim(c, arith.constant(ir.IndexType.get(), i))
            for i, size in enumerate(t.shape)
            if ir.ShapedType.is_dynamic_size(size)
        ]
        staged = memref.alloc(contiguous_type(t), sizes, [], alignment=64)
        memref.copy(c, staged)
    op.operands[2] = staged
    with op.location, ir.InsertionPoint.after(op):
        memref.dealloc(staged)
    with op.location, ir.InsertionPoint.after(op):
        memref.copy(staged, c)

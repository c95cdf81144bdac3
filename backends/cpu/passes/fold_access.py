"""The operand of a vectorized generic with its folded dims collapsed: `cpu-vectorize-generics`
runs the loop dims an operand is contiguous over (`vectorize_plan`'s `folded`) as one longer
lane dim, through a `memref.collapse_shape` of the operand (an NCHW add along H*W)."""

from __future__ import annotations

import dataclasses
import math

from mlir import ir
from mlir.dialects import memref

from .vectorize_plan import Access, is_identity_layout


def fold_access(a: Access, folded: tuple[int, ...]) -> Access:
    """`a` with its folded dims collapsed into its last (`memref.collapse_shape`)."""
    if not a.folded:
        return a
    t = ir.MemRefType(a.memref.type)
    keep = t.rank - a.folded - 1
    shape = list(t.shape[:keep])
    tail = t.shape[keep:]
    dynamic = any(t.is_dynamic_dim(i) for i in range(keep, t.rank))
    shape.append(ir.ShapedType.get_dynamic_size() if dynamic else math.prod(tail))
    if is_identity_layout(t):
        layout = None
    else:
        strides, offset = t.get_strides_and_offset()
        layout = ir.StridedLayoutAttr.get(offset, [*strides[:keep], strides[-1]])
    result = ir.MemRefType.get(shape, t.element_type, layout, t.memory_space)
    groups = [[i] for i in range(keep)] + [list(range(keep, t.rank))]
    reassociation = ir.ArrayAttr.get(
        [
            ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in g])
            for g in groups
        ]
    )
    collapsed = memref.collapse_shape(result, a.memref, reassociation)
    indices = tuple(d for d in a.indices if d not in folded)
    return dataclasses.replace(a, memref=collapsed, indices=indices, folded=0)

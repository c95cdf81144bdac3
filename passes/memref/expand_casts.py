"""`aten-expands-as-casts`: a `memref.expand_shape` of a contiguous buffer whose group has two
dynamic sizes becomes a `memref.reinterpret_cast` of the same buffer.

Upstream `expand-strided-metadata` asserts ("There must be at most one dynamic size per group")
on such an expand, and fusion makes them after `aten-split-dynamic-expands` has run on tensors:
a `Linear` over `[batch, seq, features]` with both dims dynamic multiplies the flattened rows and
fusion's reshape propagation unfolds the product's buffer again (`memref<?x8xf32>` into
`memref<?x?x8xf32>`, `output_shape [%b, %s, 8]`). Expanding an identity-layout buffer never
needs a copy: the result is the row-major view of the same memory with the expand's sizes, so
its strides are suffix products of those sizes, computed with `arith.muli` where dynamic. A
source with another layout is left for `aten-check-expand-groups` to report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, memref

from ..ir import nested_ops
from ..linalg.dynamic_expands import multi_dynamic, output_sizes
from ..registry import ModulePass, register_pass

_DYN = ir.ShapedType.get_dynamic_size()


def _row_major_strides(sizes: list[int | ir.Value]) -> list[int | ir.Value]:
    """Suffix products of `sizes`: ints while every factor is static, else index values."""
    strides: list[int | ir.Value] = [1] * len(sizes)
    for d in range(len(sizes) - 2, -1, -1):
        a, b = strides[d + 1], sizes[d + 1]
        if isinstance(a, int) and isinstance(b, int):
            strides[d] = a * b
        else:
            strides[d] = arith.muli(_index(a), _index(b))
    return strides


def _index(v: int | ir.Value) -> ir.Value:
    return arith.constant(ir.IndexType.get(), v) if isinstance(v, int) else v


def _as_cast(op: ir.Operation) -> None:
    source = op.operands[0]
    result_type = ir.MemRefType(op.results[0].type)
    sizes = output_sizes(op)
    with op.location, ir.InsertionPoint(op):
        strides = _row_major_strides(sizes)
        cast = memref.reinterpret_cast(
            result_type,
            source,
            [],
            [s for s in sizes if not isinstance(s, int)],
            [s for s in strides if not isinstance(s, int)],
            ir.DenseI64ArrayAttr.get([0]),
            ir.DenseI64ArrayAttr.get([s if isinstance(s, int) else _DYN for s in sizes]),
            ir.DenseI64ArrayAttr.get([s if isinstance(s, int) else _DYN for s in strides]),
        )
    op.results[0].replace_all_uses_with(cast)
    op.erase()


def _identity_layout(t: ir.Type) -> bool:
    if not isinstance(t, ir.MemRefType):
        return False
    layout = ir.MemRefType(t).layout
    rank = ir.MemRefType(t).rank
    identity = ir.AffineMap.get_identity(rank, context=t.context)
    return isinstance(layout, ir.AffineMapAttr) and layout.value == identity


@register_pass
@dataclass(frozen=True)
class ExpandsAsCasts(ModulePass):
    """memref.expand_shape with two dynamic sizes in a group, of an identity-layout buffer ->
    memref.reinterpret_cast with row-major strides (no copy)."""

    name: ClassVar[str] = "aten-expands-as-casts"

    def run(self, module_op: ir.Operation) -> None:
        for op in list(nested_ops(module_op)):
            if (
                op.name == "memref.expand_shape"
                and multi_dynamic(op)
                and _identity_layout(op.operands[0].type)
                and _identity_layout(op.results[0].type)
            ):
                _as_cast(op)

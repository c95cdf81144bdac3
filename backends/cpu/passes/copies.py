"""`cpu-copies-to-generics`: strided `memref.copy` (static or `?` sizes) -> an identity
`linalg.generic`, which the loops stage runs as vector loops.

Bufferization writes a padded image's interior, an `insert_slice`, as a `memref.copy` into a
subview. LLVM lowers a copy between contiguous buffers to `memcpy`, but any other to a call of
the runtime's generic `memrefCopy`, which walks the elements one at a time with a full index
computation each (ResNet: a fifth of its run time). As a generic, the copy is an elementwise
op like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import linalg

from aten_mlir.passes.ir import nested_ops
from aten_mlir.passes.registry import ModulePass, register_pass

from .vectorize_plan import is_identity_layout


def _strided_copy(op: ir.Operation) -> bool:
    """A copy between memrefs of rank >= 1, not both in identity layout. Dynamic sizes too: a
    `?` batch's padded images are copied the same way (memrefCopy made a dynamic ResNet-18 at
    batch 33 1.14x its static compile; now 1.00x)."""
    if op.name != "memref.copy":
        return False
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.MemRefType) for t in types):
        return False
    source, target = (ir.MemRefType(t) for t in types)
    if source.rank == 0:
        return False
    return not (is_identity_layout(source) and is_identity_layout(target))


@register_pass
@dataclass(frozen=True)
class CopiesToGenerics(ModulePass):
    """Rewrites memref.copy between strided memrefs as linalg.generic (identity maps)."""

    name: ClassVar[str] = "cpu-copies-to-generics"

    def run(self, module_op: ir.Operation) -> None:
        found = [op for op in nested_ops(module_op) if _strided_copy(op)]
        with module_op.context:
            for op in found:
                as_identity_generic(op)


def as_identity_generic(op: ir.Operation) -> None:
    """Replaces the copy `op` (operands: source, target memrefs of one element type) by the
    identity `linalg.generic` from source to target."""
    source, target = op.operands
    rank = ir.MemRefType(source.type).rank
    element = ir.MemRefType(source.type).element_type
    identity = ir.AffineMap.get_identity(rank)
    with op.location, ir.InsertionPoint(op):
        generic = linalg.GenericOp([], [source], [target], [identity] * 2, ["parallel"] * rank)
        block = generic.regions[0].blocks.append(element, element)
        with ir.InsertionPoint(block):
            linalg.YieldOp([block.arguments[0]])
    op.erase()

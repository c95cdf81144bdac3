"""`aten-clamp-data-indices`: an element index read from a tensor (a gather's, an embedding's,
a scatter's) is clamped to the dim it indexes before `tensor.extract` / `tensor.insert` use it.

The lowerings turn index tensors into coordinates with `arith.index_cast` (wrapping negative
ones where torch wraps them); a value outside the dim (an embedding id past the vocabulary, a
corrupt index tensor) would then read or write outside the buffer: garbage, or a segfault that
takes the process down. Eager raises instead. Clamping makes every access land inside the
buffer whatever the data, at the cost of a min and a max per index (no branch, so loops stay
vectorizable); coordinates that come from loop induction variables or constants are never
touched. Run right after `convert-aten-to-linalg`, while the extracts still name the tensors
they index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, tensor

from ..ir import nested_ops
from ..registry import ModulePass, register_pass

# ops through which an index stays data-dependent if any operand is
_ARITH = frozenset(
    {
        "arith.select",
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.remsi",
        "arith.remui",
        "arith.divsi",
        "arith.divui",
        "arith.floordivsi",
        "arith.minsi",
        "arith.maxsi",
        "arith.minui",
        "arith.maxui",
    }
)
_CASTS = frozenset({"arith.index_cast", "arith.index_castui"})


def _from_data(v: ir.Value, depth: int = 8) -> bool:
    """`v` is computed from an integer read from memory (an index_cast of a non-index value)."""
    owner = v.owner
    if depth == 0 or isinstance(owner, ir.Block):
        return False
    if owner.name in _CASTS:
        return not isinstance(owner.operands[0].type, ir.IndexType)
    if owner.name in _ARITH:
        return any(_from_data(o, depth - 1) for o in owner.operands)
    return False


def _clamped(index: ir.Value, source: ir.Value, d: int) -> ir.Value:
    """`index` within [0, size of dim `d` of `source` - 1] (built before the current op)."""
    t = ir.RankedTensorType(source.type)
    index_t = ir.IndexType.get()
    if t.is_dynamic_dim(d):
        size = tensor.dim(source, arith.constant(index_t, d))
    else:
        size = arith.constant(index_t, t.get_dim_size(d))
    last = arith.subi(size, arith.constant(index_t, 1))
    return arith.maxsi(arith.minsi(index, last), arith.constant(index_t, 0))


def clamp_data_indices(op: ir.Operation) -> None:
    """Clamps the data-dependent coordinates of one `tensor.extract` or `tensor.insert`."""
    first = 1 if op.name == "tensor.extract" else 2  # insert: (scalar, dest, indices...)
    source = op.operands[first - 1]
    with op.location, ir.InsertionPoint(op):
        for d, index in enumerate(list(op.operands)[first:]):
            if _from_data(index):
                op.operands[first + d] = _clamped(index, source, d)


@register_pass
@dataclass(frozen=True)
class ClampDataIndices(ModulePass):
    """tensor.extract/insert at coordinates read from a tensor -> the coordinates clamped to
    the indexed dims (no access outside a buffer, whatever the index data)."""

    name: ClassVar[str] = "aten-clamp-data-indices"

    def run(self, module_op: ir.Operation) -> None:
        for op in list(nested_ops(module_op)):
            if op.name in ("tensor.extract", "tensor.insert"):
                clamp_data_indices(op)

"""`aten-clone-broadcast-producers`: a cheap elementwise generic that several generics read
through a broadcast gets a copy per reader, so that `linalg-fuse-elementwise-ops` (which fuses a
producer only into its single reader) fuses it into each.

A layer norm's mean is `sum / n`, one value per row, read by the variance's reduction and by the
normalization: left alone it is a pass of its own over the rows, between two row nests that
`cpu-fuse-row-nests` could otherwise run on one row while it is in L1. Fused, it costs a divide
per row in each reader (hoisted out of the row's vector loop), not a pass over memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..ir import defined_functions
from ..registry import ModulePass, option, register_pass


def _elementwise(op: ir.Operation) -> bool:
    """A generic of one result, all-parallel, every operand through the same permutation."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    iterators = ir.ArrayAttr(op.attributes["iterator_types"])
    if any("parallel" not in str(it) for it in iterators):
        return False
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    return all(m.is_permutation and m == maps[-1] for m in maps)


def _broadcast_input(use) -> bool:
    """`use` is an input (not init) of a generic, read through a map that drops dims."""
    reader = use.owner
    if reader.name != "linalg.generic":
        return False
    inputs = len(reader.operands) - len(reader.results)
    if use.operand_number >= inputs:
        return False
    maps = ir.ArrayAttr(reader.attributes["indexing_maps"])
    m = ir.AffineMapAttr(maps[use.operand_number]).value
    return len(m.results) < m.n_dims


@register_pass
@dataclass(frozen=True)
class AtenCloneBroadcastProducers(ModulePass):
    """Elementwise linalg.generic read by several generics through broadcasts -> a copy per
    reader."""

    name: ClassVar[str] = "aten-clone-broadcast-producers"
    max_ops: int = option(4, "body ops above which a producer is not worth recomputing")

    def run(self, module_op: ir.Operation) -> None:
        for function in defined_functions(module_op):
            for block in function.regions[0].blocks:
                for op in [o.operation for o in block.operations]:
                    self._clone(op)

    def _clone(self, op: ir.Operation) -> None:
        if not _elementwise(op):
            return
        if len(op.regions[0].blocks[0].operations) - 1 > self.max_ops:
            return
        uses = list(op.results[0].uses)
        if len(uses) < 2 or not all(_broadcast_input(u) for u in uses):
            return
        # (reader, operand number) first: a clone's insertion makes the bindings hand out new
        # objects for the readers
        readers = [(u.owner, u.operand_number) for u in uses]
        for reader, number in readers[1:]:
            copy = op.clone(ip=ir.InsertionPoint(reader))
            reader.operands[number] = copy.results[0]

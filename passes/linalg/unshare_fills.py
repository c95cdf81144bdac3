"""`aten-unshare-fills`: one `linalg.fill` per accumulating user.

CSE merges identical fills (the zero every matmul and sum accumulates into, the border of every
padded image of one shape), and then each accumulator or padded image shares one filled tensor:
bufferization must copy it before every in-place update.
Cloning the fill next to each further user gives each its own buffer to fill in place (a fill
into `tensor.empty` allocates; there is nothing to copy), which is what the program meant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..ir import nested_ops
from ..registry import ModulePass, register_pass


def _accumulates_into(user: ir.Operation, operand: int) -> bool:
    """`operand` is an init (`outs`) of a linalg op, or the destination of an insert_slice (a
    padded image: the fill is its border): the op updates it in place."""
    if user.name == "tensor.insert_slice":
        return operand == 1
    return user.name.startswith("linalg.") and operand >= len(user.operands) - len(user.results)


def _slice_feeding(user: ir.Operation, filled: ir.Value):
    """For an insert_slice into `filled` whose source was computed into an extract_slice of
    `filled` (destination-passing style): (its producer, that operand's number, the
    extract_slice); else None."""
    if user.name != "tensor.insert_slice":
        return None
    producer = user.operands[0].owner
    if isinstance(producer, ir.Block):
        return None
    producer = producer.operation
    for number, v in enumerate(producer.operands):
        owner = v.owner
        if isinstance(owner, ir.Block):
            continue
        owner = owner.operation
        if owner.name == "tensor.extract_slice" and owner.operands[0] == filled:
            return (producer, number, owner) if producer.block == user.block else None
    return None


@register_pass
@dataclass(frozen=True)
class UnshareFills(ModulePass):
    """Clones a tensor linalg.fill right before each op that accumulates into it; the original
    goes when no reader is left."""

    name: ClassVar[str] = "aten-unshare-fills"

    def run(self, module_op: ir.Operation) -> None:
        fills = [
            op
            for op in nested_ops(module_op)
            # a fill on a memref has no result (nothing is shared through SSA)
            if op.name == "linalg.fill"
            and len(op.results) == 1
            and isinstance(op.results[0].type, ir.RankedTensorType)
        ]
        for fill in fills:
            shared_slices = []
            for use in list(fill.results[0].uses):
                user = use.owner
                user = getattr(user, "operation", user)
                if user.block != fill.block or not _accumulates_into(user, use.operand_number):
                    continue  # readers share the fill; nested users: a clone would not dominate
                # a padded image's interior is computed into a slice of the fill and inserted
                # back: the producer gets a slice of the clone (CSE may share the slice too)
                window = _slice_feeding(user, fill.results[0])
                # next to its user, not the shared fill's place: a fill far ahead would be
                # computed (and stored) by whatever kernel runs there
                clone = fill.clone(ir.InsertionPoint(window[0] if window else user))
                init = fill.operands[1]
                if not isinstance(init.owner, ir.Block) and init.owner.name == "tensor.empty":
                    # its own empty too, else bufferization fills one buffer for every user
                    empty = init.owner.operation.clone(ir.InsertionPoint(clone))
                    clone.operands[1] = empty.results[0]
                user.operands[use.operand_number] = clone.results[0]
                if window is not None:
                    producer, number, extract = window
                    piece = extract.clone(ir.InsertionPoint(producer))
                    piece.operands[0] = clone.results[0]
                    producer.operands[number] = piece.results[0]
                    if extract not in shared_slices:
                        shared_slices.append(extract)
            for extract in shared_slices:  # after the walk over uses, which may list them
                if not list(extract.results[0].uses):
                    extract.erase()
            if not list(fill.results[0].uses):
                init = fill.operands[1]
                fill.erase()
                owner = init.owner
                if not isinstance(owner, ir.Block) and owner.name == "tensor.empty":
                    if not list(init.uses):
                        owner.operation.erase()

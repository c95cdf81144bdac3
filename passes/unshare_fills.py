"""`aten-unshare-fills`: one `linalg.fill` per accumulating user.

CSE merges identical fills (the zero every matmul and sum accumulates into), and then each
accumulator shares one filled tensor: bufferization must copy it before every in-place update.
Cloning the fill next to each further user gives each its own buffer to fill in place (a fill
into `tensor.empty` allocates; there is nothing to copy), which is what the program meant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from .registry import ModulePass, nested_ops, register_pass


def _accumulates_into(user: ir.Operation, operand: int) -> bool:
    """`operand` is an init (`outs`) of a linalg op: the op updates it in place."""
    return user.name.startswith("linalg.") and operand >= len(user.operands) - len(user.results)


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
            if op.name == "linalg.fill" and isinstance(op.results[0].type, ir.RankedTensorType)
        ]
        for fill in fills:
            for use in list(fill.results[0].uses):
                user = use.owner
                user = getattr(user, "operation", user)
                if user.block != fill.block or not _accumulates_into(user, use.operand_number):
                    continue  # readers share the fill; nested users: a clone would not dominate
                # next to its user, not the shared fill's place: a fill far ahead would be
                # computed (and stored) by whatever kernel runs there
                clone = fill.clone(ir.InsertionPoint(user))
                init = fill.operands[1]
                if not isinstance(init.owner, ir.Block) and init.owner.name == "tensor.empty":
                    # its own empty too, else bufferization fills one buffer for every user
                    empty = init.owner.operation.clone(ir.InsertionPoint(clone))
                    clone.operands[1] = empty.results[0]
                user.operands[use.operand_number] = clone.results[0]
            if not list(fill.results[0].uses):
                init = fill.operands[1]
                fill.erase()
                owner = init.owner
                if not isinstance(owner, ir.Block) and owner.name == "tensor.empty":
                    if not list(init.uses):
                        owner.operation.erase()

"""`triton-unalias-epilogues`: an elementwise nest after a product that writes its result over
the product's operand -> the nest writes a buffer of its own.

The bufferizer reuses a dead buffer for a new tensor of its shape, and a ResNet block's second
conv is read from the buffer the batch norm, residual add and ReLU after it then overwrite.
Sequentially that is fine; as the conv's epilogue it is not (another tile of the conv still
reads the pixels this tile's epilogue would overwrite), so the conv's raw output goes through
memory to a separate kernel. Writing the nest's result to a new buffer, and pointing the
later reads of that tensor (up to the old buffer's next full overwrite) at it, lets the nest
run on the accumulator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import memref

from aten_mlir.passes.registry import ModulePass, function_blocks, register_pass

from ..loop_ir import VIEW_OPS, ops_after, overwrites, refills, root_of, top_in, users_of
from ..products import is_matmul_call

_BETWEEN = ("memref.alloc", "arith.constant", "memref.dealloc", *VIEW_OPS)


@register_pass
@dataclass(frozen=True)
class UnaliasEpilogues(ModulePass):
    """Gives the nest after a product a new output buffer when it would overwrite the
    product's operand."""

    name: ClassVar[str] = "triton-unalias-epilogues"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for block in function_blocks(module_op):
                for call in [o.operation for o in block.operations]:
                    if is_matmul_call(call):
                        _unalias(call)


def _unalias(call: ir.Operation) -> None:
    nest = next((op for op in ops_after(call) if op.name not in _BETWEEN), None)
    if nest is None or nest.name != "scf.parallel":
        return
    for operand in list(call.operands)[:2]:
        root = root_of(operand)
        if overwrites(nest, root) and _retargetable(root, nest) is not None:
            _retarget(root, nest, _retargetable(root, nest))
            return


def _retargetable(root: ir.Value, nest: ir.Operation) -> list | None:
    """(op, operand index) of the uses of `root` from `nest` on, up to the buffer's next full
    overwrite or deallocation (the nest's store, the reads of what it stored, a return of it),
    each naming `root` itself or a view made after `nest`; None when a view made before the nest
    is read after it, or `root` is no allocation."""
    if isinstance(root.owner, ir.Block) or root.owner.operation.name != "memref.alloc":
        return None
    later = ops_after(nest)
    horizon = next(
        (i for i, op in enumerate(later) if refills(op, root) or _frees(op, root)), len(later)
    )
    window = {nest, *later[:horizon]}
    users = []
    for use in root.uses:
        user = getattr(use.owner, "operation", use.owner)
        top = top_in(user, nest.block)
        if top not in window:
            if user.name in VIEW_OPS and any(
                top_in(u, nest.block) in window for u in users_of(user.results[0])
            ):
                return None  # a view made before the nest, read after it
            continue
        users.append((user, use.operand_number))
    return users


def _retarget(root: ir.Value, nest: ir.Operation, users: list) -> None:
    with nest.location, ir.InsertionPoint(nest):
        new = memref.AllocOp(ir.MemRefType(root.type), [], []).result
    for user, index in users:
        user.operands[index] = new
    block_ops = [o.operation for o in nest.block.operations]
    tops = [t for t in (top_in(u, nest.block) for u in users_of(new)) if t is not None]
    last = max(tops, key=block_ops.index)
    if last.name == "func.return":  # the caller's result now: the old buffer is freed instead
        with last.location, ir.InsertionPoint(last):
            memref.DeallocOp(root)
        return
    with last.location, ir.InsertionPoint(block_ops[block_ops.index(last) + 1]):
        memref.DeallocOp(new)


def _frees(op: ir.Operation, root: ir.Value) -> bool:
    return op.name == "memref.dealloc" and op.operands[0] == root

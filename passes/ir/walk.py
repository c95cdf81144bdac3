"""Walks: the ops of a module or function, in the orders and lifetimes passes need."""

from __future__ import annotations

from mlir import ir


def function_blocks(module_op: ir.Operation) -> list:
    """The blocks of every function body in `module_op`."""
    return [
        b
        for op in nested_ops(module_op)
        if op.name == "func.func"
        for r in op.regions
        for b in r.blocks
    ]


def nested_ops(root: ir.Operation) -> list[ir.Operation]:
    """Every op nested in `root` (not `root` itself), in order (pre-order: an op before the ops
    in its regions). A pre-order walk: with these bindings the ops it hands out stay valid
    after it while they are not erased, as iterated ones do, and it is ~4.5x as fast as
    iterating regions, blocks and ops from Python (train_transformer's backward at the llvm
    stage: 9.9k ops in 7 ms instead of 31; the CPU passes list the whole module a dozen
    times)."""
    found: list[ir.Operation] = []

    def visit(op):
        found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[1:]


def defined_functions(module_op: ir.Operation) -> list[ir.Operation]:
    """The `func.func`s directly in `module_op` that have a body (not declarations)."""
    return [
        op.operation
        for op in module_op.regions[0].blocks[0].operations
        if op.operation.name == "func.func" and len(op.operation.regions[0].blocks)
    ]


def walked_ops(root: ir.Operation) -> list[ir.Operation]:
    """`root` and every op nested in it, in post-order (an op after the ops in its regions);
    the ops stay valid after the walk as `nested_ops`' do."""
    found: list[ir.Operation] = []

    def visit(op):
        found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def outside_uses(ops: list[ir.Operation]) -> list[tuple[ir.Operation, int, ir.Value]]:
    """(op, operand index, value) for every operand of `ops` (an op and the ops nested in it)
    defined outside them."""
    defined = set()
    for op in ops:
        defined.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                defined.update(block.arguments)
    return [(op, i, v) for op in ops for i, v in enumerate(op.operands) if v not in defined]

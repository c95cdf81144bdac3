"""`triton-sink-loops`: a sequential loop around one parallel nest -> the nest around the loop.

A reduction whose outermost dim is sequential (batch norm's statistics sum over N, H and W per
channel: `scf.for n { scf.parallel c { for h, w: acc[c] += x[n, c, h, w] } }`) is, as written,
one launch per n, each re-reading the accumulators. When every buffer the nest writes is only
ever touched at the lane's own element, the lanes never see each other across iterations of the
loop either, and the loop can run inside each lane: one launch, the accumulator in registers,
and a nest over the channels that `triton-fuse-rows` merges with the statistics' other nests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import scf

from aten_mlir.passes.registry import ModulePass, nested_ops, register_pass

from .fuse_rows import buffer_accesses, lane_positions, nest_bounds


@register_pass
@dataclass(frozen=True)
class SinkLoops(ModulePass):
    """Interchanges `scf.for { scf.parallel }` into `scf.parallel { scf.for }` when the nest's
    lanes are independent across the loop's iterations."""

    name: ClassVar[str] = "triton-sink-loops"

    def run(self, module_op: ir.Operation) -> None:
        loops = [op for op in nested_ops(module_op) if op.name == "scf.for"]
        with module_op.context:
            for loop in loops:
                nest = _sinkable(loop)
                if nest is not None:
                    _interchange(loop, nest)


def _sinkable(loop: ir.Operation) -> ir.Operation | None:
    """The scf.parallel that is all of `loop`'s body, when the interchange is legal."""
    if loop.results or len(loop.regions[0].blocks[0].arguments) != 1:
        return None  # loop-carried values would have to become per-lane ones
    body = [op.operation for op in loop.regions[0].blocks[0].operations]
    if len(body) != 2 or body[0].name != "scf.parallel" or body[0].results:
        return None
    nest = body[0]
    if any(_inside(v, loop) for bound in nest_bounds(nest) for v in bound):
        return None  # a space that changes per iteration
    ivs = list(nest.regions[0].blocks[0].arguments)
    for accesses in buffer_accesses(nest).values():
        if any(store for *_, store in accesses) and lane_positions(accesses, ivs) is None:
            return None  # a lane could read what another wrote in an earlier iteration
    return nest


def _inside(v: ir.Value, op: ir.Operation) -> bool:
    owner = v.owner
    owner = owner.owner if isinstance(owner, ir.Block) else owner.operation
    while owner is not None and owner.name != "func.func":
        if owner == op:
            return True
        owner = owner.parent
    return False


def _interchange(loop: ir.Operation, nest: ir.Operation) -> None:
    bounds = nest_bounds(nest)
    lb, ub, step = list(loop.operands)[:3]
    with ir.InsertionPoint(loop), loop.location:
        outer = scf.ParallelOp(
            [], [b[0] for b in bounds], [b[1] for b in bounds], [b[2] for b in bounds], []
        )
        outer_body = outer.regions[0].blocks.append(*[ir.IndexType.get()] * len(bounds))
        with ir.InsertionPoint(outer_body):
            inner = scf.ForOp(lb, ub, step)
            with ir.InsertionPoint(inner.body):
                target = scf.YieldOp([]).operation
            scf.ReduceOp([], 0)
    old_body = nest.regions[0].blocks[0]
    for iv, new_iv in zip(old_body.arguments, outer_body.arguments):
        iv.replace_all_uses_with(new_iv)
    loop.regions[0].blocks[0].arguments[0].replace_all_uses_with(inner.induction_variable)
    for op in list(old_body.operations)[:-1]:
        op.operation.move_before(target)
    loop.erase()

"""`triton-fuse-rows`: adjacent parallel nests whose spaces share their leading dims -> one nest
over those dims, the rest of each body an inner loop.

A layer norm or a softmax is a few nests over the same rows: a reduction per row (scf.parallel
over the rows around an scf.for), an elementwise nest over the rows, and a nest over rows x
columns that reads the row statistics. `scf-parallel-loop-fusion` only merges nests over
identical spaces and never one holding a nested loop, so each would be its own kernel, writing
the statistics to memory and reading the row again. Merged, one program owns a row: the
statistics stay in registers (the emitter forwards a stored value to its loads and drops stores
to buffers nothing else reads) and the row is read by one kernel.

Legal when every buffer both nests touch, one of them writing it, is indexed by the shared
ivs at the same positions in every access: each lane then reads only what it wrote itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import scf

from aten_mlir.passes.registry import ModulePass, function_blocks, nested_ops, register_pass

from ..loop_ir import HOISTABLE, defined_inside, root_of, through_unit_dims
from ..products import is_matmul_call

# ops that may sit between two nests and move above the first (no memory effects on data)
_MOVABLE = HOISTABLE | {"memref.dim"}
# ops a fused body may hold: straight-line code and loops with uniform bounds
_BODY_OPS = {"memref.load", "memref.store", "scf.for", "scf.parallel", "scf.yield", "scf.reduce"}


@register_pass
@dataclass(frozen=True)
class FuseRows(ModulePass):
    """Fuses adjacent scf.parallel nests over a shared leading space (reductions per row with
    the nests that read their results) into one nest with inner loops."""

    name: ClassVar[str] = "triton-fuse-rows"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for block in function_blocks(module_op):
                _fuse_block(block)


def nest_bounds(op: ir.Operation) -> list[tuple]:
    n = len(op.operands) // 3
    ops = list(op.operands)
    return list(zip(ops[:n], ops[n : 2 * n], ops[2 * n :]))


def _fuse_block(block: ir.Block) -> None:
    head, between, after_product, last = None, [], False, None
    for op in list(block.operations):
        op = op.operation
        if op.name == "scf.parallel" and not op.results:
            # a nest right after a tl.dot product is its epilogue (the launcher runs it on the
            # accumulator tile): keep it whole rather than split it into rows
            keep = after_product and len(nest_bounds(op)) < len(nest_bounds(head or op))
            if head is not None and not keep and _fusable(head, op, between):
                for moved in between:
                    moved.move_before(head)
                if len(nest_bounds(op)) < len(nest_bounds(head)):
                    head = _split(head, len(nest_bounds(op)))
                _merge(head, op)
                between, last = [], head
                continue
            if head is not None and not after_product and _independent(head, op, between):
                # a nest sharing no buffer with the head (LLaMA's rotary tables between the
                # embedding and the first norm) moves above it: the head may fuse further on
                for moved in [*between, op]:
                    moved.move_before(head)
                between = []
                continue
            after_product = last is not None and is_matmul_call(last)
            head, between = op, []
        elif head is not None and op.name in _MOVABLE and _defined_before(op, head, between):
            between.append(op)
        else:
            head, between = None, []
        if op.name not in _MOVABLE:
            last = op


def _independent(head: ir.Operation, op: ir.Operation, between: list) -> bool:
    """`op` neither reads nor writes a buffer `head` writes, nor writes one `head` reads, and
    can be computed above it."""
    first, second = buffer_accesses(head), buffer_accesses(op)
    written = {r for r, a in first.items() if any(store for *_, store in a)}
    writes = {r for r, a in second.items() if any(store for *_, store in a)}
    if written & set(second) or writes & set(first) or not _body_ok(op):
        return False
    return all(_available(v, head, between) for bound in nest_bounds(op) for v in bound)


def _defined_before(op: ir.Operation, head: ir.Operation, between: list) -> bool:
    """Every operand of `op` is available above `head` (so `op` can move there, after the ops
    of `between` that move with it)."""
    for v in op.operands:
        owner = v.owner
        if isinstance(owner, ir.Block) or owner.operation in between:
            continue
        if owner.operation.block == head.block and not owner.operation.is_before_in_block(head):
            return False
    return True


def _body_ok(op: ir.Operation) -> bool:
    for inner in nested_ops(op):
        if inner.name.startswith(("arith.", "math.", "index.", "affine.apply")):
            continue
        if inner.name not in _BODY_OPS:
            return False
    return True


def buffer_accesses(op: ir.Operation) -> dict:
    """root buffer -> [(memref, indices, is_store)] for every load/store nested in `op`."""
    out: dict = {}
    for inner in nested_ops(op):
        if inner.name == "memref.load":
            memref, indices, store = inner.operands[0], list(inner.operands[1:]), False
        elif inner.name == "memref.store":
            memref, indices, store = inner.operands[1], list(inner.operands[2:]), True
        else:
            continue
        memref, indices = through_unit_dims(memref, indices)
        out.setdefault(root_of(memref), []).append((memref, indices, store))
    return out


def lane_positions(accesses, ivs) -> tuple | None:
    """The index position of each shared iv, the same in every access; else None."""
    positions = None
    for memref, indices, _store in accesses:
        pos = []
        for iv in ivs:
            hits = [i for i, x in enumerate(indices) if x == iv]
            if len(hits) != 1:
                return None
            pos.append(hits[0])
        if positions is None:
            positions = (memref, tuple(pos))
        elif positions != (memref, tuple(pos)):
            return None  # another view, or another position
    return positions


def _fusable(head: ir.Operation, op: ir.Operation, between) -> bool:
    hb, ob = nest_bounds(head), nest_bounds(op)
    n = min(len(hb), len(ob))
    if any(a != b for a, b in zip(hb[:n], ob[:n])):
        return False
    for lb, ub, step in ob[n:]:
        if not all(_available(v, head, between) for v in (lb, ub, step)):
            return False
    if not (_body_ok(head) and _body_ok(op)):
        return False
    first, second = buffer_accesses(head), buffer_accesses(op)
    h_ivs = list(head.regions[0].blocks[0].arguments)[:n]
    o_ivs = list(op.regions[0].blocks[0].arguments)[:n]
    for root in set(first) & set(second):
        if not any(s for *_, s in first[root] + second[root]):
            continue  # read by both: no dependence
        a, b = lane_positions(first[root], h_ivs), lane_positions(second[root], o_ivs)
        if a is None or a != b:
            return False
    return all(_available(v, head, between) for v in _outside_values(op))


def _available(v: ir.Value, head: ir.Operation, between) -> bool:
    owner = v.owner
    if isinstance(owner, ir.Block):
        return True
    owner = owner.operation
    if owner in between:
        return True
    return owner.block != head.block or owner.is_before_in_block(head)


def _outside_values(op: ir.Operation):
    inside = defined_inside(op)  # op's own results too: none can be used within it
    for inner in nested_ops(op):
        for v in inner.operands:
            if v not in inside:
                yield v


def _split(nest: ir.Operation, n: int) -> ir.Operation:
    """`nest` as a nest over its first `n` dims around an inner scf.parallel over the rest."""
    bounds = nest_bounds(nest)
    with ir.InsertionPoint(nest), nest.location:
        outer = scf.ParallelOp(
            [],
            [b[0] for b in bounds[:n]],
            [b[1] for b in bounds[:n]],
            [b[2] for b in bounds[:n]],
            [],
        )
        outer_body = outer.regions[0].blocks.append(*[ir.IndexType.get()] * n)
        with ir.InsertionPoint(outer_body):
            scf.ReduceOp([], 0)
    outer = outer.operation
    _merge(outer, nest)
    return outer


def _merge(head: ir.Operation, op: ir.Operation) -> None:
    """Moves `op`'s body into `head`'s, under an inner scf.parallel over `op`'s extra dims."""
    n = len(nest_bounds(head))
    h_body, o_body = head.regions[0].blocks[0], op.regions[0].blocks[0]
    h_term = h_body.operations[len(h_body.operations) - 1].operation
    o_ivs = list(o_body.arguments)
    for iv, h_iv in zip(o_ivs[:n], h_body.arguments):
        iv.replace_all_uses_with(h_iv)
    extra = nest_bounds(op)[n:]
    target = h_term
    if extra:
        with ir.InsertionPoint(h_term), op.location:
            inner = scf.ParallelOp(
                [], [b[0] for b in extra], [b[1] for b in extra], [b[2] for b in extra], []
            )
            inner_body = inner.regions[0].blocks.append(*[ir.IndexType.get()] * len(extra))
            with ir.InsertionPoint(inner_body):
                target = scf.ReduceOp([], 0).operation
        for iv, new_iv in zip(o_ivs[n:], inner_body.arguments):
            iv.replace_all_uses_with(new_iv)
    for inner_op in list(o_body.operations)[:-1]:
        inner_op.operation.move_before(target)
    op.erase()

"""`triton-rematerialize`: a load of a kernel-private buffer -> the computation that filled it.

A fused softmax stores the scaled, masked scores (`x * scale + mask`) to a temporary and reads
them back in each of its passes over the row: one write and three reads of a tensor that is a
cheap function of two the kernel only reads. Where the value stored is such a function (pure
ops over loads from buffers nothing in the nest writes, indexed by the store's own loop
indices), each load of the temporary becomes a copy of that computation at the load's indices
and the store goes away: Inductor's recompute-over-materialize for pointwise producers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.passes.ir import is_pure
from aten_mlir.passes.registry import ModulePass, function_blocks, nested_ops, register_pass

from ..loop_ir import (
    covers,
    dead_after,
    iv_map,
    ops_after,
    refills,
    root_of,
    through_unit_dims,
    users_of,
)

_MAX_OPS = 16  # a longer computation costs more to repeat than the memory round trip


@register_pass
@dataclass(frozen=True)
class Rematerialize(ModulePass):
    """Replaces loads of a buffer by the pure computation the nest's one store to it holds,
    and drops the store when nothing after the nest reads the buffer (last nest first, so a
    later nest that rematerialized its own loads no longer counts as a reader)."""

    name: ClassVar[str] = "triton-rematerialize"

    def run(self, module_op: ir.Operation) -> None:
        nests = [
            o.operation
            for block in function_blocks(module_op)
            for o in block.operations
            if o.operation.name == "scf.parallel"
        ]
        with module_op.context:
            for nest in reversed(nests):
                _rematerialize(nest)


def _rematerialize(nest: ir.Operation) -> None:
    inside = {nest, *nested_ops(nest)}
    stores: dict = {}
    for op in inside:
        if op.name == "memref.store":
            stores.setdefault(root_of(op.operands[1]), []).append(op)
    written = set(stores)
    for root, found in stores.items():
        if len(found) != 1 or isinstance(root.owner, ir.Block):
            continue
        store = found[0]
        memref, indices = through_unit_dims(store.operands[1], list(store.operands[2:]))
        if root.owner.operation.name != "memref.alloc" or not covers(store, memref, indices, nest):
            continue
        program = element_slice(store.operands[0], set(indices), inside, written)
        if program is None:
            continue
        targets = []
        for load in (u for u in users_of(root) if u in inside and u.name == "memref.load"):
            m, idx = through_unit_dims(load.operands[0], list(load.operands[1:]))
            if m != memref or not _top(store, nest).is_before_in_block(_top(load, nest)):
                break  # another view, or a load the store may not have filled yet
            targets.append((load, idx))
        else:
            for load, idx in targets:
                replay(program, store.operands[0], iv_map(indices, idx), load)
            later = ops_after(nest)
            if not any(u in inside for u in users_of(root) if u != store) and dead_after(
                root, memref, later, refills
            ):
                store.erase()


def _top(op: ir.Operation, nest: ir.Operation) -> ir.Operation:
    """The op of the nest's body that holds `op`."""
    while op.parent != nest:
        op = op.parent
    return op


def _is_iv(v: ir.Value, inside: set) -> bool:
    return isinstance(v.owner, ir.Block) and v.owner.owner.operation in inside


def element_slice(
    value: ir.Value, ivs: set, inside: set, written: set, max_ops: int = _MAX_OPS
) -> list | None:
    """The ops inside the nest that compute `value`, in order; None when one is impure, reads
    a buffer the nest writes, uses a loop index the store's indices do not name, or there are
    more than `max_ops`."""
    order, seen = [], set()

    def visit(v: ir.Value) -> bool:
        owner = v.owner
        if isinstance(owner, ir.Block):
            return owner.owner.operation not in inside or v in ivs
        op = owner.operation
        if op not in inside or op in seen:
            return True
        seen.add(op)
        if op.regions or len(op.results) != 1:
            return False
        if op.name == "memref.load":
            if root_of(op.operands[0]) in written:
                return False
        elif not is_pure(op):
            return False
        if not all(visit(x) for x in op.operands):
            return False
        order.append(op)
        return len(order) <= max_ops

    return order if visit(value) else None


def replay(program: list, value: ir.Value, mapping: dict, load: ir.Operation) -> None:
    """Clones `program` before `load` with the store's indices replaced by the load's, and
    makes the load's users use the clone of `value`."""
    mapping = dict(mapping)
    ip = ir.InsertionPoint(load)
    for op in program:
        clone = op.clone(ip=ip)
        for i, operand in enumerate(op.operands):
            if operand in mapping:
                clone.operands[i] = mapping[operand]
        mapping[op.results[0]] = clone.results[0]
    load.results[0].replace_all_uses_with(mapping.get(value, value))
    load.erase()

"""`triton-inline-producers`: a pointwise nest whose result later nests read -> its
computation repeated at each read, and the nest gone.

At loop level a head split, a GQA `repeat_kv`, a rotary embedding's broadcast cos/sin or a
dtype cast is a nest that reads a tensor and writes a permuted, broadcast or converted copy,
which the next nest reads back: one kernel, one write and one read that Inductor avoids by
inlining pointwise producers into their consumers. Here a nest that stores one pure function
of loads at every element of a buffer has each later load of that buffer (by a nest, through
any static reshape or subview, `view_indices.py`) replaced by the function at the load's
indices, provided nothing between them writes what the function reads (a reader may update the
element it read in place); once no reader is left, the nest and its store go.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.passes.registry import ModulePass, function_blocks, nested_ops, register_pass

from ..loop_ir import (
    VIEW_OPS,
    covers,
    iv_map,
    ops_after,
    refills,
    root_of,
    through_unit_dims,
    top_in,
    users_of,
    writes_between,
)
from ..products import is_matmul_call
from .rematerialize import element_slice, replay
from .view_indices import indices_in, reaches


@register_pass
@dataclass(frozen=True)
class InlineProducers(ModulePass):
    """Replaces loads of a buffer one pointwise nest fills by that nest's computation, and
    erases the nest when no reader is left."""

    name: ClassVar[str] = "triton-inline-producers"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for block in function_blocks(module_op):
                # a producer updated in place by the next nest inlines there first; the next
                # sweep can then inline that nest into its own readers
                for _ in range(_SWEEPS):
                    nests = [o.operation for o in block.operations]
                    changed = [_inline(n) for n in reversed(nests) if n.name == "scf.parallel"]
                    if not any(changed):
                        break


def _inline(nest: ir.Operation) -> bool:
    """Inlines `nest` into its readers; whether any load was replaced."""
    found = _element_function(nest)
    if found is None:
        return False
    store, memref, indices, program = found
    readers, kept = _readers(nest, store, memref, program)
    if kept and _after_product(nest):
        return False  # the epilogue stays: repeating it in some readers saves nothing
    if _gathers(program) and (kept or len({top for _, top in readers}) > 1):
        return False  # a lookup goes into one kernel (it reads the rows once) or none
    for load, _ in readers:
        idx = indices_in(load.operands[0], list(load.operands[1:]), memref, ir.InsertionPoint(load))
        replay(program, store.operands[0], iv_map(indices, idx), load)
    if not kept:
        nest.erase()
    return bool(readers)


def _element_function(nest: ir.Operation):
    """(store, memref, indices, program) when `nest` is one straight-line store of a pure
    function at every element of an allocation; else None."""
    if nest.results:
        return None
    inside = {nest, *nested_ops(nest)}
    stores = [op for op in inside if op.name == "memref.store"]
    if len(stores) != 1 or any(op.regions and op != nest for op in inside):
        return None
    store = stores[0]
    root = root_of(store.operands[1])
    if isinstance(root.owner, ir.Block) or root.owner.operation.name != "memref.alloc":
        return None  # an argument: the caller reads it
    memref, indices = through_unit_dims(store.operands[1], list(store.operands[2:]))
    if not covers(store, memref, indices, nest):
        return None
    program = element_slice(store.operands[0], set(indices), inside, {root}, _MAX_OPS)
    return None if program is None else (store, memref, indices, program)


def _readers(nest: ir.Operation, store: ir.Operation, memref: ir.Value, program: list):
    """([(load, its top-level nest)] that can take the computation, whether any other reader
    of the nest's values is left)."""
    root = root_of(memref)
    inside = {nest, *nested_ops(nest)}
    sources = {root_of(op.operands[0]) for op in program if op.name == "memref.load"}
    later = ops_after(nest)
    # the buffer's next full overwrite (the bufferizer reuses buffers): readers from there on
    # read another tensor, as the users before the nest did
    horizon = next(
        (i for i, op in enumerate(later) if refills(op, memref)),
        len(later),
    )
    position = {op: i for i, op in enumerate(later)}
    readers, kept = [], False
    for user in users_of(root):
        if user in inside or user.name == "memref.dealloc":
            continue
        top = _top_level(user, nest)
        if top is None or position[top] >= horizon:
            continue
        ok = (
            user.name == "memref.load"
            and top.name == "scf.parallel"
            and reaches(user.operands[0], memref)
            and not writes_between(
                nest, top, sources | {root}, lambda op, _, u=user, t=top: _same_element(op, u, t)
            )
        )
        if ok:
            readers.append((user, top))
        else:
            kept = True
    return readers, kept


def _gathers(program: list) -> bool:
    """Some load's index comes from loaded data (an embedding lookup): repeated in several
    kernels it would read the table's rows again in each."""
    loaded = set()
    for op in program:
        if op.name == "memref.load" and any(v in loaded for v in op.operands[1:]):
            return True
        if op.name == "memref.load" or any(v in loaded for v in op.operands):
            loaded.update(op.results)
    return False


def _after_product(nest: ir.Operation) -> bool:
    """`nest` directly follows a tl.dot product (past allocations and views): it is that
    product's epilogue, computed on the accumulator tile at no cost."""
    ops = [o.operation for o in nest.block.operations]
    for op in reversed(ops[: ops.index(nest)]):
        if op.name in VIEW_OPS or op.name in ("memref.alloc", "arith.constant", "memref.dealloc"):
            continue
        return is_matmul_call(op)
    return False


def _top_level(op: ir.Operation, nest: ir.Operation) -> ir.Operation | None:
    """The op of `nest`'s block that holds `op`, when it comes after `nest`."""
    top = top_in(op, nest.block)
    return top if top is not None and nest.is_before_in_block(top) else None


def _same_element(store: ir.Operation, load: ir.Operation, nest: ir.Operation) -> bool:
    """`store` writes the element `load` reads, after it, in the body of `nest` (not in a loop
    inside, where the next iteration's load would read the store)."""
    return (
        store.name == "memref.store"
        and load.parent == nest
        and store.parent == nest
        and load.is_before_in_block(store)
        and list(store.operands[1:]) == list(load.operands)
    )


_SWEEPS = 4
# a producer's ops repeated per read: its readers read an element a few times at most (a
# pooling window), and the memory round trip it saves is worth more (training batch norm's
# normalize-and-ReLU is 17 ops)
_MAX_OPS = 24

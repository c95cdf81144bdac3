"""`cpu-reuse-dead-rows`: a row nest's output written over an input of the same type that
dies in the nest, when each iteration reads its row of the input before writing its row of
the output.

Attention's softmax reads the scores (bf16 [b, h, s, s]) and writes the probabilities (the
same type) row by row; the scores are dead after it. Two buffers of 2 MiB each are fresh
pages from malloc on every call (glibc gives back a heap top over 2x its mmap threshold),
each first touch a page fault; written over the scores, the probabilities land in lines the
row just read. Bufferization's in-place rule (`aten-reuse-dead-inputs`) sees one elementwise
op, not the max, sum and normalisation a fused row nest is made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.passes.ir import defined_functions
from aten_mlir.passes.registry import ModulePass, register_pass

from .row_buffers import ACCESSES, enclosing_nest


def _uses(buffer: ir.Value) -> list[tuple[ir.Operation, int, bool]]:
    """(user, operand number, through a view) for every use of `buffer` and, transitively, of
    the views made of it (`memref.expand_shape`, `subview`, ...: any user with a memref
    result), the views themselves left out: a load through a view made before a nest reads
    the buffer as much as a direct one (a pdist backward's gradients were read through an
    expand_shape after the nest that was to overwrite them)."""
    found, todo = [], [(buffer, False)]
    while todo:
        value, viewed = todo.pop()
        for use in value.uses:
            user = use.owner.operation
            views = [r for r in user.results if isinstance(r.type, ir.MemRefType)]
            if views and user.name != "memref.alloc":
                todo.extend((r, True) for r in views)
            else:
                found.append((user, use.operand_number, viewed))
    return found


def _accesses_in(buffer: ir.Value, nest: ir.Operation) -> list[ir.Operation] | None:
    """The loads and stores of `buffer` inside `nest` (at the memref operand); None when the
    nest uses it otherwise (or through a view)."""
    found = []
    for user, operand, viewed in _uses(buffer):
        if not _in(user, nest):
            continue
        if viewed or ACCESSES.get(user.name) != operand:
            return None
        found.append(user)
    return found


def _in(op: ir.Operation, nest: ir.Operation) -> bool:
    around = enclosing_nest(op)
    return around is not None and around == nest


def _own_rows(accesses: list[ir.Operation], nest: ir.Operation) -> bool:
    ivs = list(nest.regions[0].blocks[0].arguments)
    return all(list(a.operands)[ACCESSES[a.name] + 1 :][: len(ivs)] == ivs for a in accesses)


def _position(op: ir.Operation, body: ir.Block, order: dict) -> int:
    """The place in `body` of the top-level op holding `op`."""
    while op.block != body:
        op = op.parent.operation
    return order[op]


def _after(op: ir.Operation, at: ir.Operation, places: dict) -> bool:
    """`op` is in `at`'s block after it, or nested in an op after it (`places`: the block's ops
    in order, listed once per block and again after each rewrite)."""
    while op.block != at.block:
        op = op.parent.operation
    return places[op] > places[at]


def _dies_in(buffer: ir.Value, nest: ir.Operation, places: dict) -> bool:
    """After `nest`, only its deallocs use `buffer` (directly or through a view)."""
    for user, _, viewed in _uses(buffer):
        if _after(user, nest, places) and (viewed or user.name != "memref.dealloc"):
            return False
    return True


def _fresh_output(buffer: ir.Value, nest: ir.Operation, places: dict) -> bool:
    """Nothing before `nest` uses `buffer` (it is allocated for the nest to fill)."""
    for user, _, _ in _uses(buffer):
        if not _after(user, nest, places) and not _in(user, nest):
            return False
    return True


def _alignment(alloc: ir.Operation) -> int:
    if "alignment" not in alloc.attributes:
        return 0
    return ir.IntegerAttr(alloc.attributes["alignment"]).value


def reuse_in_nest(nest: ir.Operation, places: dict | None = None) -> None:
    if places is None:
        places = _places(nest.block)
    body = nest.regions[0].blocks[0]
    order = _places(body)
    buffers = {}  # insertion-ordered set
    for op in body.operations:
        for inner in _walk(op.operation):
            at = ACCESSES.get(inner.name)
            if at is not None:
                owner = inner.operands[at].owner
                if not isinstance(owner, ir.Block) and owner.name == "memref.alloc":
                    buffers[owner.operation] = None
    allocs = [a for a in buffers if a.block == nest.block]
    done = set()  # indices into allocs: a buffer takes part in one reuse
    for i, out in enumerate(allocs):
        for j, dead in enumerate(allocs):
            if i == j or i in done or j in done:
                continue
            if out.results[0].type != dead.results[0].type or _alignment(dead) < _alignment(out):
                continue
            deallocs = _deallocs(out, dead, nest.block, places)
            reusable = _reusable(out.results[0], dead.results[0], nest, order, places)
            if deallocs is None or not reusable:
                continue
            out.results[0].replace_all_uses_with(dead.results[0])
            for d in deallocs:  # one buffer now: freed once, or not at all when it escapes
                d.erase()
            out.erase()
            done.update((i, j))
            # an op's hash follows its operands, which the rewrite changed: list them again
            places.clear()
            places.update(_places(nest.block))
            order = _places(body)


def _deallocs(out: ir.Operation, dead: ir.Operation, block: ir.Block, places: dict) -> list | None:
    """The deallocs to erase once `out` is `dead`'s buffer; None when that cannot be said (a
    dealloc elsewhere, or `dead` not freed exactly once). With both freed in `block`, all but
    the last; with `out` escaping (returned: no dealloc), `dead`'s too, or the returned
    buffer would be freed (a topk's result was read after free)."""
    freed = {}
    for buffer in (out, dead):
        freed[buffer] = [
            u.owner.operation
            for u in buffer.results[0].uses
            if u.owner.operation.name == "memref.dealloc"
        ]
    found = freed[out] + freed[dead]
    if len(freed[dead]) != 1 or len(freed[out]) > 1 or any(d.block != block for d in found):
        return None
    if not freed[out]:
        return freed[dead]
    return sorted(found, key=lambda d: places[d])[:-1]


def _reusable(out, dead, nest, order, places) -> bool:
    """Every access of both is at the nest's own row, `dead`'s all before `out`'s in the
    body; `dead` is dead after the nest and `out` unused before it."""
    body = nest.regions[0].blocks[0]
    reads = _accesses_in(dead, nest)
    writes = _accesses_in(out, nest)
    if not reads or not writes or not _own_rows(reads + writes, nest):
        return False
    if not _dies_in(dead, nest, places) or not _fresh_output(out, nest, places):
        return False
    last_read = max(_position(a, body, order) for a in reads)
    first_write = min(_position(a, body, order) for a in writes)
    return last_read < first_write


def _walk(op: ir.Operation):
    yield op
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _walk(inner.operation)


def reuse_block(block: ir.Block) -> None:
    # the nests are picked before any rewrite: a reuse erases allocs and deallocs of this block,
    # and reading the name of an erased op afterwards is a use after free (an intermittent
    # SIGSEGV compiling GPT-2, depending on what reused the memory)
    nests = [o.operation for o in block.operations if o.operation.name == "scf.parallel"]
    places = _places(block)
    for op in nests:
        reuse_in_nest(op, places)


def _places(block: ir.Block) -> dict:
    return {o.operation: i for i, o in enumerate(block.operations)}


@register_pass
@dataclass(frozen=True)
class ReuseDeadRows(ModulePass):
    """scf.parallel writing B at its own rows after reading A there, A dead after it, B fresh
    -> B is A."""

    name: ClassVar[str] = "cpu-reuse-dead-rows"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for func in defined_functions(module_op):
                reuse_block(func.regions[0].blocks[0])

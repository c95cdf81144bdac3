"""`cpu-contract-row-buffers`: a buffer only one `scf.parallel` nest uses, each iteration its
own row of it -> one row on the stack per iteration.

After `cpu-fuse-row-nests` a softmax runs as one nest over the rows, and the exponentials its
sum and its normalisation share are a whole tensor written and read back within the same
iteration (attention at [2, 8, 256, 256]: 4 MiB of f32, fresh pages from malloc on every call,
each first touch a page fault: more time in the kernel than in the loops). When every access
to the buffer is in that nest at the nest's own iteration (its leading indices are the
induction variables, as `cpu-fuse-row-nests` requires to fuse) and nothing but a dealloc
uses it elsewhere, each iteration needs only its row: a `memref.alloca` of the trailing dims
between a stack save and restore around the body (the stack is given back each iteration:
an alloca in a loop body without them grows the stack per trip). The row stays in L1 too.
Upstream has no such pass for memrefs (`affine-scalrep` forwards scalars only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import llvm, memref

from aten_mlir.passes.ir import defined_functions
from aten_mlir.passes.registry import ModulePass, register_pass

# op name -> position of the memref; its indices follow it
ACCESSES = {
    "memref.load": 0,
    "vector.load": 0,
    "vector.maskedload": 0,
    "memref.store": 1,
    "vector.store": 1,
    "vector.maskedstore": 0,
}
# a row bigger than this stays on the heap (the thread pool's stacks are small)
MAX_ROW_BYTES = 64 * 1024


def enclosing_nest(op: ir.Operation) -> ir.Operation | None:
    """The nearest `scf.parallel` around `op`."""
    parent = op.parent
    while parent is not None and parent.name != "scf.parallel":
        if parent.name == "func.func":
            return None
        parent = parent.parent
    return None if parent is None else parent.operation


def _row_bytes(t: ir.MemRefType, lead: int) -> int | None:
    row = t.shape[lead:]
    if any(ir.ShapedType.is_dynamic_size(s) for s in row):
        return None
    count = 1
    for s in row:
        count *= s
    element = t.element_type
    bits = element.width if isinstance(element, (ir.FloatType, ir.IntegerType)) else 64
    return count * max(bits // 8, 1)


def _contractible(alloc: ir.Operation):
    """(nest, accesses, deallocs) when every use of `alloc` is an access in one nest at that
    nest's own row, or a dealloc after the nest in the alloc's block; else None."""
    buffer = alloc.results[0]
    t = ir.MemRefType(buffer.type)
    if not isinstance(t.layout, ir.AffineMapAttr) or t.layout.value != ir.AffineMap.get_identity(
        t.rank
    ):
        return None
    nest, accesses, deallocs = None, [], []
    for use in buffer.uses:
        user = use.owner.operation
        if user.name == "memref.dealloc" and user.block == alloc.block:
            deallocs.append(user)
            continue
        at = ACCESSES.get(user.name)
        if at is None or use.operand_number != at:
            return None
        here = enclosing_nest(user)
        if here is None or (nest is not None and here != nest):
            return None
        nest = here
        accesses.append(user)
    if nest is None or nest.block != alloc.block:
        return None
    ivs = list(nest.regions[0].blocks[0].arguments)
    for a in accesses:
        indices = list(a.operands)[ACCESSES[a.name] + 1 :][: len(ivs)]
        if indices != ivs:
            return None
    size = _row_bytes(t, len(ivs))
    if size is None or size > MAX_ROW_BYTES:
        return None
    return nest, accesses, deallocs


def _stack_frame(nest: ir.Operation) -> ir.InsertionPoint:
    """Where the nest's body allocates its rows: after an `llvm.intr.stacksave` at its start,
    restored before its terminator (created once per nest). Not a `memref.alloca_scope`:
    `scf.parallel` is an allocation scope, so canonicalize inlines the scope into it, but
    `convert-scf-to-cf` then gives the alloca no stack restore and the stack grows by a row
    per iteration."""
    body = nest.regions[0].blocks[0]
    ops = [o.operation for o in body.operations]
    if ops[0].name == "llvm.intr.stacksave":
        return ir.InsertionPoint(ops[1])
    ptr = ir.Type.parse("!llvm.ptr")
    with ir.InsertionPoint.at_block_begin(body), nest.location:
        saved = llvm.intr_stacksave(ptr)
    with ir.InsertionPoint(ops[-1]), nest.location:
        llvm.intr_stackrestore(saved)
    return ir.InsertionPoint(ops[0])


def _contract(alloc: ir.Operation, nest, accesses, deallocs) -> None:
    lead = len(nest.regions[0].blocks[0].arguments)
    t = ir.MemRefType(alloc.results[0].type)
    with _stack_frame(nest), alloc.location:
        row = memref.alloca(
            ir.MemRefType.get(t.shape[lead:], t.element_type),
            [],
            [],
            alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 64),
        )
    for a in accesses:
        at = ACCESSES[a.name]
        operands = list(a.operands)
        operands = operands[:at] + [row] + operands[at + 1 + lead :]
        attributes = {name: a.attributes[name] for name in a.attributes}
        with ir.InsertionPoint(a), a.location:
            new = ir.Operation.create(
                a.name,
                results=[r.type for r in a.results],
                operands=operands,
                attributes=attributes,
            )
        for old, value in zip(a.results, new.results):
            old.replace_all_uses_with(value)
        a.erase()
    for d in deallocs:
        d.erase()
    alloc.erase()


def contract_block(block: ir.Block) -> None:
    # listed before any rewrite: a contraction erases deallocs further down the block
    allocs = [o.operation for o in block.operations if o.operation.name == "memref.alloc"]
    for op in allocs:
        found = _contractible(op)  # `?` sizes are fine in the row dims (the ones dropped)
        if found is not None:
            _contract(op, *found)


@register_pass
@dataclass(frozen=True)
class ContractRowBuffers(ModulePass):
    """memref.alloc used only in one scf.parallel at its own rows -> a row memref.alloca per
    iteration (between llvm.intr.stacksave and stackrestore)."""

    name: ClassVar[str] = "cpu-contract-row-buffers"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for func in defined_functions(module_op):
                contract_block(func.regions[0].blocks[0])

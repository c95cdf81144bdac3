"""`scf.for` inside a kernel: a Python `for` over uniform bounds, with loop-carried values and
accumulators kept in registers (the looped reduction)."""

from __future__ import annotations

from mlir import ir

from ..loop_ir import all_ops, defined_inside, root_of
from .kernel_types import NeedScalar, tl_type


def emit_for(k, op: ir.Operation) -> None:
    lb, ub, step, *inits = op.operands
    k._uniform_bounds(lb, ub, step)
    body = op.regions[0].blocks[0]
    iv, *carried = body.arguments
    outer = k.loop_registers  # accumulators an enclosing loop already holds
    promoted = [p for p in promotable(op) if p[0] not in outer]
    block_carried = _carried_blocks(k, body, inits, carried, promoted)
    acc_names = [_carry(k, init, arg, b) for init, arg, b in zip(inits, carried, block_carried)]
    registers = {**outer, **_registers(k, promoted)}
    k.loop_registers = registers
    k.memory.region(op)  # what the loop writes is not known inside it
    ivname = k.fresh("k")
    k.loop_ivs.add(ivname)
    k.emit(f"for {ivname} in range({k.v(lb)}, {k.v(ub)}, {k.v(step)}):")
    k.names[iv] = ivname
    k.depth += 1
    for inner in body.operations:
        _emit_in_loop(k, inner.operation, acc_names, registers)
    if len(k.lines) and k.lines[-1].endswith(":"):
        k.emit("pass")
    k.depth -= 1
    k.loop_registers = outer
    k.memory.region(op)
    for load, _store in promoted:
        reg, block, addr, indices = registers[load]
        k.store_line(addr, load.operands[0], reg, block, k.mask(*indices))
    for res, name, b in zip(op.results, acc_names, block_carried):
        k.names[res] = name
        if b:
            k.block.add(res)


def _carried_blocks(k, body: ir.Block, inits, carried, promoted) -> list[bool]:
    """Which carried values are blocks: a fixpoint over the body (a block once, always)."""
    block_carried = [k.is_block(i) for i in inits]
    for _ in range(4):
        marked = set(k.block) | {a for a, b in zip(carried, block_carried) if b}
        _mark_blocks(body, marked, promoted)
        yields = body.operations[len(body.operations) - 1].operands
        new = [b or y in marked for b, y in zip(block_carried, yields)]
        if new == block_carried:
            break
        block_carried = new
    for load, store in promoted:
        lanes_race = store.operands[0] in marked and not k.is_block(*load.operands[1:])
        if k.mode == "block" and lanes_race:
            raise NeedScalar()  # lanes racing on one address
    return block_carried


def _carry(k, init: ir.Value, arg: ir.Value, block: bool) -> str:
    name = k.fresh("c")
    expr = k.t(init)
    if block and not k.is_block(init):
        expr = f"tl.full({k.lanes}, 0, {tl_type(init.type)}) + {expr}"
    k.emit(f"{name} = {expr}")
    k.names[arg] = name
    if block:
        k.block.add(arg)
    return name


def _registers(k, promoted) -> dict:
    """Loads the promoted accumulators into registers before the loop."""
    registers = {}
    for load, store in promoted:
        memref, *indices = load.operands
        reg = k.fresh("acc")
        block = k.is_block(*indices)
        addr = k.address(memref, indices)
        known = k.memory.stored.get(addr)
        if known is not None:
            # The init was stored there (a fill): start from it, and drop that store, which
            # the store after the loop overwrites, unless memory was read there since.
            if not known.pinned:
                k.lines[known.line] = ""
            init = known.expr
            if block and not known.block:
                elem = tl_type(ir.MemRefType(memref.type).element_type)
                init = f"tl.full({k.lanes}, 0, {elem}) + {init}"
            k.emit(f"{reg} = {init}")
        else:
            k.emit(f"{reg} = tl.load({addr}{k.mask(*indices)})")
        registers[load] = registers[store] = (reg, block, addr, indices)
    return registers


def _emit_in_loop(k, inner: ir.Operation, acc_names: list[str], registers: dict) -> None:
    if inner.name == "scf.yield":
        for name, y in zip(acc_names, inner.operands):
            k.emit(f"{name} = {k.v(y)}")
        return
    reg = registers.get(inner)
    if reg is not None and inner.name == "memref.load":
        k.names[inner.results[0]] = reg[0]
        if reg[1]:
            k.block.add(inner.results[0])
    elif reg is not None and inner.name == "memref.store":
        k.emit(f"{reg[0]} = {k.v(inner.operands[0])}")
    else:
        k.emit_op(inner)


def promotable(loop: ir.Operation) -> list:
    """(load, store) pairs in the loop body or the body of a loop nested in it (a 2-D pooling
    window), of one memref (and indices) defined outside the loop, with no other access to that
    memref in the loop: the value can live in a register across the iterations."""
    inside = defined_inside(loop)
    accesses: dict = {}
    for op in all_ops(loop):
        if op.name in ("memref.load", "memref.store"):
            memref = op.operands[0] if op.name == "memref.load" else op.operands[1]
            accesses.setdefault(memref, []).append(op)
    roots: dict = {}
    for memref in accesses:
        roots.setdefault(root_of(memref), []).append(memref)
    pairs = []
    for memref, ops in accesses.items():
        if len(roots[root_of(memref)]) > 1:
            continue  # another view of the same buffer is read or written in the loop
        if len(ops) != 2 or ops[0].block != ops[1].block or not _in_loops(ops[0], loop):
            continue
        direct = [op.operation for op in ops[0].block.operations]
        load = next((o for o in ops if o.name == "memref.load"), None)
        store = next((o for o in ops if o.name == "memref.store"), None)
        if load is None or store is None or direct.index(load) > direct.index(store):
            continue
        li, si = list(load.operands[1:]), list(store.operands[2:])
        if li != si or any(i in inside for i in [memref, *li]):
            continue  # the address changes per iteration (a view made in the body included)
        pairs.append((load, store))
    return pairs


def _in_loops(op: ir.Operation, loop: ir.Operation) -> bool:
    """`op` is in `loop`'s body, or in that of `scf.for`s nested there (no branch between)."""
    parent = op.parent
    while parent != loop:
        if parent.name != "scf.for":
            return False
        parent = parent.parent
    return True


def _mark_blocks(block: ir.Block, marked: set, promoted) -> None:
    """Adds to `marked` the values of `block` (recursively) that depend on a lane."""
    stores = {p[0]: p[1] for p in promoted}
    for op in block.operations:
        op = op.operation
        lane = any(o in marked for o in op.operands)
        if op in stores and stores[op].operands[0] in marked:
            lane = True  # the register also carries what the loop stores
        for region in op.regions:
            for inner in region.blocks:
                _mark_blocks(inner, marked, promoted)
                ops = inner.operations
                term = ops[len(ops) - 1] if len(ops) else None
                if term is not None and any(o in marked for o in term.operation.operands):
                    lane = True
        if lane:
            marked.update(op.results)

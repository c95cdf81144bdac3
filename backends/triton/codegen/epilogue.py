"""The elementwise nest after a matmul (bias, activation, residual) -> the tail of the `tl.dot`
kernel, computed on the accumulator tile in registers.

A linear layer at loop level is a `tl.dot` kernel writing C, then a nest over C's space that
reads C back with the bias and writes the activation. Run on the output tile instead, the nest's
body reads C from the accumulator (store-to-load forwarding) and C is stored only if something
after the nest still reads it. Legal when the nest is straight-line code over C's space (in any
order of dims: a transposing store, as before an attention head split) and every buffer it
writes is touched only at the lane's own element (no tile reads what another tile writes),
none of them an operand of the product.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..loop_ir import HOISTABLE, all_ops, const_int, dead_after, refills, root_of, users_of
from ..products import INIT_ATTR, LAYOUT_ATTR, is_conv_call, is_matmul_call
from . import row_epilogue
from .kernel import KernelWriter
from .kernel_memory import Stored, private
from .kernel_types import KernelError
from .matmul import tile_exprs
from .ops import OPS


@dataclass
class Epilogue:
    nest: ir.Operation  # the scf.parallel over C's space (or a row nest, see `row`)
    hoisted: list  # host ops between the call and the nest, emitted before the launch
    deferred: list  # deallocations between them, emitted after it
    consumed: int  # how many ops after the call the fused launch stands for
    row: row_epilogue.RowPlan | None = None  # the plan of the row nest the tail ends with
    row_nest: ir.Operation | None = None  # that nest when it follows an elementwise `nest`
    alone: Epilogue | None = None  # the elementwise nest without it (if the row cannot run)

    @property
    def nests(self) -> list:
        return [self.nest] + ([self.row_nest] if self.row_nest is not None else [])


def find(call: ir.Operation, rest: list) -> Epilogue | None:
    hoisted, deferred = [], []
    for i, op in enumerate(rest):
        if op.name in HOISTABLE:
            hoisted.append(op)
        elif op.name == "memref.dealloc":
            deferred.append(op)
        elif op.name == "scf.parallel" and _fits(call, op, deferred):
            ep = Epilogue(op, hoisted, deferred, i + 1)
            return _then_row(call, ep, rest) or ep
        elif op.name == "scf.parallel":
            c = call.operands[2]
            tiles = {c: list(range(ir.MemRefType(c.type).rank))}
            row = row_epilogue.plan(call, op, deferred, tiles)
            return None if row is None else Epilogue(op, hoisted, deferred, i + 1, row)
        else:
            return None
    return None


def _then_row(call: ir.Operation, ep: Epilogue, rest: list) -> Epilogue | None:
    """`ep` followed by the row nest after it (a residual add, then the layer norm of the
    sum), when that nest reads the tile's values at whole rows."""
    hoisted, deferred = list(ep.hoisted), list(ep.deferred)
    for i in range(ep.consumed, len(rest)):
        op = rest[i]
        if op.name in HOISTABLE:
            hoisted.append(op)
        elif op.name == "memref.dealloc":
            deferred.append(op)
        elif op.name != "scf.parallel" or _c_indices(call, ep.nest, deferred) is None:
            return None
        else:
            row = row_epilogue.plan(call, op, deferred, _tiles(call, ep.nest, deferred))
            if row is None:
                return None
            return Epilogue(ep.nest, hoisted, deferred, i + 1, row, op, ep)
    return None


def _tiles(call: ir.Operation, nest: ir.Operation, deferred) -> dict:
    """{memref: the C dim of each of its dims} of C and of what `nest` (an elementwise
    epilogue) stores at the tile's elements: what a row nest after it reads from registers."""
    c = call.operands[2]
    dim_of = {iv: d for d, iv in enumerate(_c_indices(call, nest, deferred))}
    tiles = {c: list(range(ir.MemRefType(c.type).rank))}
    for op in nest.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "memref.store" and all(i in dim_of for i in op.operands[2:]):
            tiles[op.operands[1]] = [dim_of[i] for i in op.operands[2:]]
    return tiles


def _fits(call: ir.Operation, nest: ir.Operation, deferred) -> bool:
    return _c_indices(call, nest, deferred) is not None


def _c_indices(call: ir.Operation, nest: ir.Operation, deferred, unaliased=False) -> list | None:
    """The ivs `nest` reads C at, one per C dim (a permutation of its ivs), when the nest can
    run on the product's tile (`unaliased`: once it writes a buffer of its own where it writes
    over an operand, see `triton-unalias-epilogues`); else None."""
    c = call.operands[2]
    t = ir.MemRefType(c.type)
    n = len(nest.operands) // 3
    lbs, ubs, steps = (list(nest.operands)[k * n : (k + 1) * n] for k in range(3))
    if n != t.rank or any(t.is_dynamic_dim(d) for d in range(n)):
        return None
    ivs = list(nest.regions[0].blocks[0].arguments)
    found = nest_accesses(nest)
    if found is None:
        return None
    writes, accesses = found
    for root in [*writes, root_of(c)]:
        seen = accesses.get(root, [])
        # one element per lane, the same one in every access: no tile touches another's
        if not seen or any(a != seen[0] for a in seen) or not all(iv in seen[0][1] for iv in ivs):
            return None
    memref, indices = accesses[root_of(c)][0]
    if memref != c or sorted(ivs.index(i) if i in ivs else -1 for i in indices) != list(range(n)):
        return None
    for d, iv in enumerate(indices):
        j = ivs.index(iv)
        if (const_int(lbs[j]), const_int(ubs[j]), const_int(steps[j])) != (0, t.get_dim_size(d), 1):
            return None
    operands = {root_of(call.operands[0]), root_of(call.operands[1])}
    freed = {root_of(d.operands[0]) for d in deferred}
    if (writes & operands and not unaliased) or freed & (writes | set(accesses)):
        return None
    return indices


def reads_tile(call: ir.Operation, nest: ir.Operation) -> bool:
    """`nest` can run on `call`'s tile once `triton-unalias-epilogues` has given it its own
    output buffer (if it needs one)."""
    return _c_indices(call, nest, [], unaliased=True) is not None


def nest_accesses(nest: ir.Operation):
    """(roots written, {root: [(memref, indices)]}) of a nest body of straight-line code and
    `scf.for` loops (a short reduction inlined there); None when it has other regions or ops
    the kernel writer cannot emit per tile element."""
    writes, accesses = set(), {}
    for op in all_ops(nest):
        if op == nest or op.name in ("scf.reduce", "scf.for", "scf.yield"):
            continue
        if op.regions or (op.name not in OPS and op.name not in ("memref.load", "memref.store")):
            return None  # the tail runs once per tile element
        if op.name in ("memref.load", "memref.store"):
            store = op.name == "memref.store"
            memref = op.operands[1 if store else 0]
            indices = list(op.operands[2 if store else 1 :])
            accesses.setdefault(root_of(memref), []).append((memref, indices))
            if store:
                writes.add(root_of(memref))
    return writes, accesses


def partner_of(call: ir.Operation, rest: list) -> int | None:
    """The index in `rest` of the next product when it can run beside `call` in one kernel:
    the same A, layout and init, another B and C (SwiGLU's up projection after its gate), only
    allocations and views in between. `call` becomes the partner of that product."""
    for j, op in enumerate(rest):
        if op.name in HOISTABLE:
            continue
        return j if is_matmul_call(op) and _same_a(call, op) else None
    return None


def _same_a(p: ir.Operation, q: ir.Operation) -> bool:
    if is_conv_call(p) or is_conv_call(q) or p.block != q.block:
        return False
    for attr in (LAYOUT_ATTR, INIT_ATTR):
        if attr not in p.attributes or attr not in q.attributes:
            return False
        if str(p.attributes[attr]) != str(q.attributes[attr]):
            return False
    if p.operands[0] != q.operands[0]:
        return False
    if any(p.operands[i].type != q.operands[i].type for i in (1, 2)):
        return False
    a, bp, cp, bq, cq = (root_of(v) for v in (*p.operands, *list(q.operands)[1:]))
    return cp not in (a, bq, cq) and cq not in (bp,)


def reads_partner_in_tile(call: ir.Operation, ep: Epilogue, partner: ir.Operation) -> bool:
    """An elementwise tail reads the partner product's C (computed beside `call`'s) only at
    the tile's own element: from registers, never what another tile stores."""
    if ep.row is not None:
        return False
    cq = partner.operands[2]
    indices = _c_indices(call, ep.nest, ep.deferred)
    inside = set(all_ops(ep.nest))
    return all(
        u.name == "memref.load" and u.operands[0] == cq and list(u.operands[1:]) == indices
        for u in users_of(root_of(cq))
        if u in inside
    )


def stores_partner(call, ep: Epilogue | None, partner: ir.Operation, later: list) -> bool:
    """Whether the partner's C must still go to memory: something outside the kernel reads
    it before the buffer is refilled."""
    root = root_of(partner.operands[2])
    nests = ep.nests if ep is not None else []
    if private(root, {call, partner, *(op for nest in nests for op in all_ops(nest))}):
        return False
    return call.parent.name != "func.func" or not dead_after(
        root, partner.operands[2], later, refills
    )


def write_tail(name: str, call: ir.Operation, ep: Epilogue, later: list, partner=None):
    """(KernelWriter holding the tail's lines and params, whether C must still be stored);
    `later`: the ops after the nest; `partner`: a product computed beside `call`, whose C the
    tail reads from registers (`accqv`)."""
    c = call.operands[2]
    if ep.row is None:
        w = KernelWriter(name, ep.nest, "tile")
        _emit_elementwise(w, call, ep, partner)
    else:
        w = row_epilogue.RowTailWriter(name, ep.nest)
        if ep.row_nest is not None:
            _emit_elementwise(w, call, ep)
        row_epilogue.emit(w, call, ep.row_nest or ep.nest, ep.row)
    root = root_of(c)
    store_c = not private(root, {call, *(op for nest in ep.nests for op in all_ops(nest))})
    if store_c and call.parent.name == "func.func":
        store_c = not dead_after(root, c, later, refills)
    if any(p.kind == "count" for p in w.params):
        raise KernelError("an epilogue needs the nest's trip counts")
    return w, store_c


def _emit_elementwise(w: KernelWriter, call: ir.Operation, ep: Epilogue, partner=None) -> None:
    c = call.operands[2]
    indices = _c_indices(call, ep.nest, ep.deferred)
    for iv, expr in zip(indices, tile_exprs(call)):
        w.names[iv] = expr
        if expr not in ("b0", "b1"):  # a batch index is uniform over the tile
            w.block.add(iv)
    addr = w.address(c, indices)
    w.read.discard(addr.split(" ")[0])
    w.memory.stored[addr] = Stored("accv", True, -1, root_of(c))
    if partner is not None:  # the partner's C: same shape and layout, so the same element
        cq = partner.operands[2]
        w.memory.stored[w.address(cq, indices)] = Stored("accqv", True, -1, root_of(cq))
    w.emit_block(ep.nest.regions[0].blocks[0])

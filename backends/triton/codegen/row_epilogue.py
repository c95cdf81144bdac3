"""A row nest after a matmul (softmax over the product's rows) -> the tail of the `tl.dot`
kernel, with the row's reductions done across the tile's columns.

Attention's scores `Q @ K^T` are a product; the softmax after it is a nest over the scores'
rows whose sequential loops run along each row (max, sum of exps, then the normalized row).
When a row is no longer than one column tile, the product's tile holds whole rows: each loop
that only accumulates becomes one `tl.reduce` over the tile's columns, each loop or nested
parallel loop that writes a row element becomes a tile store, and the scores are never written.
The launch then takes a column tile as wide as the row (`launch.row_blocks`).

Legal when the nest's parallel dims are C's other dims, every inner loop runs along the row
(0 to N by 1), and each buffer the nest writes is touched only in the lane's own row (no tile
reads what another writes), none of them an operand of the product. A loop that stores
anything but an accumulator (a scan) is not a reduction and stays a separate kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..loop_ir import all_ops, const_int, defined_inside, root_of, through_unit_dims, users_of
from ..products import is_conv_call
from .kernel import KernelWriter
from .kernel_loops import promotable
from .kernel_memory import Stored
from .kernel_types import KernelError
from .matmul import tile_exprs
from .ops import OPS

MAX_ROW = 1024  # widest row a column tile holds
COLUMN = "rn[None, :]"  # the tile expression of C's row dim

# combining op -> (helper tl.reduce combines with, identity of the masked columns)
_COMBINE = {
    "arith.addf": ("add", "0.0"),
    "arith.mulf": ("mul", "1.0"),
    "arith.maximumf": ("maximum_nan", 'float("-inf")'),
    "arith.minimumf": ("minimum_nan", 'float("inf")'),
    "arith.maxnumf": ("max_num", 'float("-inf")'),
    "arith.minnumf": ("min_num", 'float("inf")'),
    "arith.addi": ("add", "0"),
    "arith.muli": ("mul", "1"),
    "arith.ori": ("bit_or", "0"),
    "arith.xori": ("bit_xor", "0"),
    "arith.andi": ("bit_and", "-1"),
}


@dataclass
class RowPlan:
    dims: list  # (nest iv, C dim) of each parallel dim of the nest
    c_load: ir.Operation | None  # a load of C in the nest: its address is the tile's


def plan(call: ir.Operation, nest: ir.Operation, deferred: list, tiles: dict) -> RowPlan | None:
    """How `nest` runs as a row tail of `call`'s tile, or None when it cannot. `tiles`: the
    memrefs the tile holds in registers ({memref: the C dim of each of its dims}), C and what
    an elementwise tail before the nest stored."""
    if is_conv_call(call):
        return None
    c = call.operands[2]
    t = ir.MemRefType(c.type)
    exprs = tile_exprs(call)
    if any(t.is_dynamic_dim(d) for d in range(t.rank)) or COLUMN not in exprs:
        return None
    dn = exprs.index(COLUMN)
    if t.get_dim_size(dn) > MAX_ROW:
        return None
    ivs = list(nest.regions[0].blocks[0].arguments)
    columns = _column_loops(nest, t.get_dim_size(dn))
    if columns is None or len(ivs) != t.rank - 1:
        return None
    inside = set(all_ops(nest))
    tile_roots = {root_of(m) for m in tiles}
    accesses = [u for r in tile_roots for u in users_of(r) if u in inside]
    dims = _row_dims(nest, accesses, dn, columns, tiles, t.shape)
    if dims is None or not _rows_private(call, nest, ivs, columns, deferred):
        return None
    return RowPlan(dims, next((u for u in accesses if u.operands[0] == c), None))


def _column_loops(nest: ir.Operation, n: int) -> set | None:
    """The ivs of the loops directly in `nest` (each along the row: 0 to `n` by 1, straight-line
    body); None when the body holds anything else with regions."""
    columns = set()
    for op in [o.operation for o in nest.regions[0].blocks[0].operations]:
        if not op.regions:
            if op.name not in OPS and op.name not in ("memref.load", "memref.store", "scf.reduce"):
                return None
            continue
        if op.name not in ("scf.for", "scf.parallel") or len(op.results):
            return None
        bounds = list(op.operands)
        if len(bounds) != 3 or [const_int(b) for b in bounds] != [0, n, 1]:
            return None
        for inner in op.regions[0].blocks[0].operations:
            inner = inner.operation
            if inner.regions or inner.name not in (
                *OPS,
                "memref.load",
                "memref.store",
                "scf.yield",
                "scf.reduce",
            ):
                return None
        iv = op.regions[0].blocks[0].arguments[0]
        if op.name == "scf.for" and not _reduction_loop(op):
            return None
        if op.name == "scf.parallel" and any(
            iv not in list(s.operands)[2:] for s in all_ops(op) if s.name == "memref.store"
        ):
            return None  # every lane of the row would store to one element
        columns.add(iv)
    return columns


def _reduction_loop(loop: ir.Operation) -> bool:
    """Every store in `loop` is an accumulator update `acc = combine(acc, x)`, x not reading
    acc: the loop is a reduction of the row, whatever the order."""
    pairs = {store: load for load, store in promotable(loop)}
    for op in all_ops(loop):
        if op.name != "memref.store":
            continue
        load = pairs.get(op)
        if load is None:
            return False
        combine = op.operands[0].owner
        if isinstance(combine, ir.Block) or combine.operation.name not in _COMBINE:
            return False
        combine = combine.operation
        uses = [u.owner for u in load.results[0].uses]
        if uses != [combine] or [u.owner for u in combine.results[0].uses] != [op]:
            return False
        if list(combine.operands).count(load.results[0]) != 1:
            return False
    return True


def _row_dims(nest, accesses: list, dn: int, columns: set, tiles: dict, shape) -> list | None:
    """(nest iv, C dim) pairs, the same in every access to a buffer the tile holds: each
    touches a row element along a column loop's iv at C's dim `dn`, and the row at the nest's
    ivs (a store overwrites the tile's own element: layer norm in place of its input)."""
    ivs = list(nest.regions[0].blocks[0].arguments)
    bounds = list(nest.operands)
    n = len(ivs)
    dim_of = {}
    if not any(a.name == "memref.load" for a in accesses):
        return None
    for access in accesses:
        if access.name not in ("memref.load", "memref.store"):
            return None
        first = 1 if access.name == "memref.load" else 2
        view, indices = access.operands[first - 1], list(access.operands[first:])
        memref, indices = through_unit_dims(view, indices)
        if memref not in tiles:
            return None  # another view of a tile buffer
        for index, d in zip(indices, tiles[memref]):
            if d == dn:
                if index not in columns:
                    return None
            elif index not in ivs or dim_of.setdefault(index, d) != d:
                return None
    if sorted(dim_of.values()) != sorted(d for d in range(n + 1) if d != dn) or len(dim_of) != n:
        return None
    for iv, d in dim_of.items():
        j = ivs.index(iv)
        if [const_int(bounds[j + k * n]) for k in range(3)] != [0, shape[d], 1]:
            return None
    return list(dim_of.items())


def _rows_private(call, nest, ivs: list, columns: set, deferred: list) -> bool:
    """Each buffer the nest writes is touched at one place per row (all the nest's ivs in its
    indices, a column iv or a constant besides), the same in every access; none is read by
    the product or freed before the launch."""
    accesses: dict = {}
    writes = set()
    for op in all_ops(nest):
        if op.name not in ("memref.load", "memref.store"):
            continue
        store = op.name == "memref.store"
        memref = op.operands[1 if store else 0]
        indices = list(op.operands[2 if store else 1 :])
        key = tuple("col" if i in columns else i for i in indices)
        accesses.setdefault(root_of(memref), set()).add((memref, key))
        if store:
            writes.add(root_of(memref))
            if any(i not in columns and i not in ivs and const_int(i) is None for i in indices):
                return False
    for root in writes:
        seen = accesses[root]
        if len(seen) != 1 or not all(iv in next(iter(seen))[1] for iv in ivs):
            return False
    operands = {root_of(call.operands[0]), root_of(call.operands[1])}
    freed = {root_of(d.operands[0]) for d in deferred}
    return not (writes & operands or freed & (writes | set(accesses)))


class RowTailWriter(KernelWriter):
    """The tail's kernel lines: row values are [BM, 1] blocks (masked by `rmask`), values
    along the row [BM, BN] ones (masked by `cmask`)."""

    def __init__(self, name: str, nest: ir.Operation):
        super().__init__(name, nest, "tile")
        self.stored_roots: set = set()

    def column(self, iv: ir.Value) -> None:
        self.names[iv] = COLUMN
        self.block.add(iv)

    def mask(self, *values) -> str:
        if any(self.names.get(v) == COLUMN for v in values):
            return ", mask=cmask"
        return ", mask=rmask" if self.is_block(*values) else ""

    def emit_load(self, op: ir.Operation) -> None:
        memref, *indices = op.operands
        known = self._forwarded(memref, indices)
        if known is not None:
            self.names[op.results[0]] = known.expr
            if known.block:
                self.block.add(op.results[0])
            return
        super().emit_load(op)

    def _forwarded(self, memref: ir.Value, indices: list) -> Stored | None:
        """What the tail stored at the element (named through any unit-dim view); a load of
        a buffer it stored to must be forwarded: another thread of the program may hold the
        value, which memory shows only after a barrier."""
        known = self.memory.stored.get(self.address(memref, indices))
        m, idx = through_unit_dims(memref, indices)
        if known is None and m != memref and m in self.views:
            known = self.memory.stored.get(self.address(m, idx))
        if known is None and root_of(memref) in self.stored_roots:
            raise KernelError("a row tail reads back a value it stored")
        return known

    def store_line(self, addr, memref, value, block, mask) -> None:
        earlier = self.memory.stored.get(addr)
        if earlier is not None and earlier.line >= 0 and not earlier.pinned:
            self.lines[earlier.line] = ""  # overwritten before anything read it from memory
        self.stored_roots.add(root_of(memref))
        super().store_line(addr, memref, value, block, mask)

    def emit_op(self, op: ir.Operation) -> None:
        if op.name != "scf.parallel":
            super().emit_op(op)
            return
        # every column at once: a load sees what was there before the body (each column
        # stores only its own element), and a store stays known afterwards
        self.column(op.regions[0].blocks[0].arguments[0])
        self.emit_block(op.regions[0].blocks[0])

    def emit_for(self, op: ir.Operation) -> None:
        body = op.regions[0].blocks[0]
        self.column(body.arguments[0])
        pairs = promotable(op)
        inits = [self._init(load) for load, _ in pairs]
        self.memory.region(op)
        combines = [store.operands[0].owner.operation for _, store in pairs]
        skip = {*(p[0] for p in pairs), *(p[1] for p in pairs), *combines}
        for inner in body.operations:
            inner = inner.operation
            if inner not in skip and inner.name != "scf.yield":
                self.emit_op(inner)
        self.memory.region(op)
        for (load, _), combine, init in zip(pairs, combines, inits):
            x = next(v for v in combine.operands if v != load.results[0])
            helper, identity = _COMBINE[combine.name]
            red, acc = self.fresh("red"), self.fresh("acc")
            self.emit(
                f"{red} = tl.reduce(tl.where(cmask, {self.v(x)}, {identity}), 1, H.{helper})"
                "[:, None]"
            )
            self.emit(f"{acc} = H.{helper}({init}, {red})")
            memref, *indices = load.operands
            addr = self.address(memref, indices, write=True)
            self.store_line(addr, memref, acc, True, self.mask(*indices) or ", mask=rmask")

    def _init(self, load: ir.Operation) -> str:
        """The accumulator's value before the loop: the fill stored there (whose store goes,
        as the loop's result overwrites it), else memory."""
        memref, *indices = load.operands
        known = self._forwarded(memref, indices)
        if known is not None:
            if not known.pinned:
                self.lines[known.line] = ""
            return known.expr
        name = self.fresh("acc")
        self.emit(f"{name} = tl.load({self.address(memref, indices)}{self.mask(*indices)})")
        return name


def emit(w: RowTailWriter, call: ir.Operation, nest: ir.Operation, row: RowPlan) -> None:
    """Emits `nest` (planned as `row`) on the tile: C read from the accumulator, what an
    elementwise tail before it stored from its registers."""
    if nest not in w.span:
        w.span.append(nest)
        w.inside |= defined_inside(nest)
    exprs = tile_exprs(call)
    for iv, d in row.dims:
        w.names[iv] = exprs[d]
        if exprs[d] not in ("b0", "b1"):  # a batch index is uniform over the tile
            w.block.add(iv)
    w.emit("rmask = rm[:, None] < M")
    if row.c_load is not None:
        c, *indices = row.c_load.operands
        w.column(next(iv for iv in indices if iv not in w.names))
        addr = w.address(c, indices)
        w.read.discard(addr.split(" ")[0])
        w.memory.stored.setdefault(addr, Stored("accv", True, -1, root_of(c)))
    w.emit_block(nest.regions[0].blocks[0])

"""Whether the iterations of an `scf.for` touch disjoint memory (`cpu-parallelize-loops`).

The kernels `cpu-vectorize-contractions` and `cpu-vectorize-generics` emit are `scf.for` nests:
an outer-product kernel's loop over blocks of C rows is parallel, the loop over k blocks around
it is not, and a packed kernel's loops all write one scratch copy of B. So parallel is proven,
not assumed: every buffer the loop writes must be reached through one memref value, at indices
whose range along some dim moves with the iteration and never overlaps another iteration's.

Index ranges are intervals whose ends are `a * iv + b` (iv the loop's induction variable),
through constants, `addi`, `subi`, `muli` by a constant, `minsi`/`maxsi` (decided over the
loop's range) and inner loops' induction variables. A kernel's tile loop `for i = max(b, lo)
to min(b + 64, hi) step 8` reading rows `i .. i + 7` stays in `[b, b + 63]` because the trip
covers whole steps: an inner loop whose bounds differ by a constant ends at its last step, not
at its upper bound. When the ends are not affine in iv (a remainder tile's `max(b, 64)`), and the
loop has at most `CONCRETE_TRIPS` static trips, each iteration is evaluated on its own.
"""

from __future__ import annotations

from mlir import ir

from aten_mlir.passes.ir import MEMREF_ALIASES, PURE_PREFIXES, nested_ops, view_root

CONCRETE_TRIPS = 256

Bound = tuple[int, int]  # a * iv + b
Interval = tuple[Bound, Bound]
# The range of an induction variable of a loop that runs no trip here (a remainder tile's loop
# when there is no remainder): accesses under it touch nothing.
EMPTY = ((0, 0), (0, -1))

# Ops without memory effects (beyond what the names say) that may sit in a parallel body.
# complex and ub ops compute values only; an scf op's body is walked op by op, so the loop or
# branch itself touches nothing.
_PURE_PREFIXES = (*PURE_PREFIXES, "complex.", "ub.", "scf.")
_PURE_MEMREF = MEMREF_ALIASES | {"memref.dim"}
# vector ops that touch memory (the rest are pure): memref operand 0 for loads, 1 for stores
_VECTOR_MEMORY = {
    "vector.load": (0, False),
    "vector.maskedload": (0, False),
    "vector.store": (1, True),
    "vector.maskedstore": (0, True),
    "vector.gather": (0, False),
    "vector.scatter": (0, True),
    "vector.transfer_read": (0, False),
    "vector.transfer_write": (1, True),
    "vector.expandload": (0, False),
    "vector.compressstore": (0, True),
}
_EXACT = frozenset({"vector.load", "vector.maskedload", "vector.store", "vector.maskedstore"})


class _Access:
    """One load or store: the memref value, its indices (None: anywhere), the extent of each
    access along the trailing dims (vector lanes), and whether it writes."""

    def __init__(self, memref, indices, extents, write):
        self.memref, self.indices, self.extents, self.write = memref, indices, extents, write


def _inside(op: ir.Operation, loop: ir.Operation) -> bool:
    while op is not None:
        if op == loop:
            return True
        op = op.parent
    return False


def _defining_op(value: ir.Value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _accesses(loop: ir.Operation) -> list[_Access] | None:
    """The loop's loads and stores; None when it holds an op with unknown memory effects."""
    found = []
    for op in nested_ops(loop):  # a walk: a fifth of the time of iterating blocks from Python
        access = _access(op)
        if access is False:
            return None
        found += access
    return found


def _access(op: ir.Operation) -> list[_Access] | bool:
    """The op's accesses (none for an op that touches no memory), False for an unknown op."""
    name = op.name
    if name == "memref.load":
        return [_Access(op.operands[0], list(op.operands[1:]), (), False)]
    if name == "memref.store":
        return [_Access(op.operands[1], list(op.operands[2:]), (), True)]
    if name == "memref.dealloc":
        return [_Access(op.operands[0], None, (), True)]
    if name == "memref.prefetch":
        return []  # a cache hint: it reads nothing the program sees, at any address
    if name == "memref.copy":
        return [_Access(op.operands[0], None, (), False), _Access(op.operands[1], None, (), True)]
    if name in _VECTOR_MEMORY:
        at, write = _VECTOR_MEMORY[name]
        memref = op.operands[at]
        if name not in _EXACT:
            return [_Access(memref, None, (), write)]
        rank = ir.MemRefType(memref.type).rank
        value = op.results[0] if not write else op.operands[0 if at else -1]
        indices = list(op.operands[at + 1 : at + 1 + rank])
        return [_Access(memref, indices, tuple(ir.VectorType(value.type).shape), write)]
    pure = name.startswith(_PURE_PREFIXES) or name in _PURE_MEMREF or name.startswith("vector.")
    return [] if pure or name in ("memref.alloc", "memref.alloca") else False


def _int_constant(value: ir.Value) -> int | None:
    op = _defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


class _Ranges:
    """Intervals of index values, for one iv value (symbolic `(1, 0)` or a constant `(0, v)`)."""

    def __init__(self, loop: ir.Operation, iv: Bound, span: tuple[int, int] | None):
        self.loop, self.span = loop, span  # span: the iv's first and last value, when static
        self.memo = {loop.regions[0].blocks[0].arguments[0]: (iv, iv)}

    def of(self, value: ir.Value) -> Interval | None:
        if value in self.memo:
            return self.memo[value]
        result = self._compute(value)
        self.memo[value] = result
        return result

    def _decide(self, x: Bound, y: Bound) -> int | None:
        """-1 when x <= y over the loop's range, 1 when x >= y, None when it depends."""
        if x[0] == y[0]:
            return -1 if x[1] <= y[1] else 1
        if self.span is None:
            return None
        ends = [(x[0] - y[0]) * v + x[1] - y[1] for v in self.span]
        return -1 if max(ends) <= 0 else 1 if min(ends) >= 0 else None

    def _pick(self, x: Bound, y: Bound, smaller: bool) -> Bound | None:
        order = self._decide(x, y)
        if order is None:
            return None
        return x if (order < 0) == smaller else y

    def _compute(self, value: ir.Value) -> Interval | None:
        owner = value.owner
        if isinstance(owner, ir.Block):
            return self._induction(owner, value)
        c = _int_constant(value)
        if c is not None:
            return (0, c), (0, c)
        op = _defining_op(value)
        if not _inside(op, self.loop):
            return None  # computed before the loop: unknown, the same in every iteration
        if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi"):
            return self.of(op.operands[0])
        ranges = [self.of(v) for v in op.operands]
        if len(ranges) != 2 or None in ranges:
            return None
        if EMPTY in ranges:
            return EMPTY
        (alo, ahi), (blo, bhi) = ranges
        if op.name == "arith.addi":
            return _add(alo, blo), _add(ahi, bhi)
        if op.name == "arith.subi":
            return _add(alo, _neg(bhi)), _add(ahi, _neg(blo))
        if op.name == "arith.muli":
            return _scale(ranges)
        if op.name in ("arith.minsi", "arith.maxsi"):
            smaller = op.name == "arith.minsi"
            lo, hi = self._pick(alo, blo, smaller), self._pick(ahi, bhi, smaller)
            return None if lo is None or hi is None else (lo, hi)
        return None

    def _induction(self, block: ir.Block, value: ir.Value) -> Interval | None:
        op = block.owner.operation
        if not _inside(op, self.loop) or op.name not in ("scf.for", "scf.parallel"):
            return None
        dims = 1 if op.name == "scf.for" else len(block.arguments)
        position = value.arg_number
        if op.name == "scf.for" and position != 0:
            return None  # an iter_arg
        lower, upper, step = (op.operands[position + k * dims] for k in range(3))
        lo, hi, s = self.of(lower), self.of(upper), _int_constant(step)
        if lo is None or hi is None or s is None or s <= 0:
            return None
        if EMPTY in (lo, hi):
            return EMPTY
        if lo[0] == lo[1] and hi[0] == hi[1] and lo[0][0] == hi[0][0]:
            trips = hi[0][1] - lo[0][1]  # whole steps: the last value is the last step's
            if trips <= 0:
                return EMPTY
            last = lo[0][1] + (trips - 1) // s * s
            return lo[0], (lo[0][0], last)
        return lo[0], _add(hi[1], (0, -1))


def _add(x: Bound, y: Bound) -> Bound:
    return x[0] + y[0], x[1] + y[1]


def _neg(x: Bound) -> Bound:
    return -x[0], -x[1]


def _scale(ranges) -> Interval | None:
    """A product with a constant factor."""
    for (flo, fhi), other in (ranges, ranges[::-1]):
        if flo == fhi and flo[0] == 0:
            c = flo[1]
            lo, hi = other
            lo, hi = (c * lo[0], c * lo[1]), (c * hi[0], c * hi[1])
            return (lo, hi) if c >= 0 else (hi, lo)
    return None


def _footprint(ranges: _Ranges, accesses: list[_Access], dim: int) -> Interval | None:
    """The union of the accesses' index ranges along `dim`."""
    lows, highs = [], []
    for a in accesses:
        interval = ranges.of(a.indices[dim])
        if interval is None:
            return None
        if interval == EMPTY:
            continue
        rank = len(a.indices)
        lanes = a.extents[dim - rank + len(a.extents)] if dim >= rank - len(a.extents) else 1
        lows.append(interval[0])
        highs.append(_add(interval[1], (0, lanes - 1)))
    coefficients = {b[0] for b in lows + highs}
    if not lows:
        return EMPTY
    if len(coefficients) != 1:
        return None
    a = coefficients.pop()
    return (a, min(b for _, b in lows)), (a, max(b for _, b in highs))


def _static_bounds(loop: ir.Operation):
    values = [_int_constant(v) for v in loop.operands[:3]]
    return None if None in values else values


def _disjoint(loop, accesses: list[_Access], step: int, bounds) -> bool:
    """Some dim along which the iterations' footprints never overlap."""
    rank = len(accesses[0].indices)
    span = None
    if bounds is not None:
        lb, ub, _ = bounds
        span = (lb, lb + max(0, (ub - lb - 1) // step) * step)
    for dim in range(rank):
        whole = _footprint(_Ranges(loop, (1, 0), span), accesses, dim)
        if whole == EMPTY:
            return True
        if whole is not None and whole[0][0] > 0:
            if whole[1][1] - whole[0][1] < whole[0][0] * step:
                return True
            continue
        if bounds is None or len(range(*bounds)) > CONCRETE_TRIPS:
            continue
        pieces = [_footprint(_Ranges(loop, (0, v), span), accesses, dim) for v in range(*bounds)]
        if None in pieces:
            continue
        pieces = [p for p in pieces if p != EMPTY]
        pieces.sort(key=lambda p: p[0][1])
        if all(p[1][1] < q[0][1] for p, q in zip(pieces, pieces[1:])):
            return True
    return False


def iterations_independent(loop: ir.Operation) -> bool:
    """No iteration of `loop` (an `scf.for` without iter_args) reads or writes memory another
    iteration writes."""
    step = _int_constant(loop.operands[2])
    accesses = _accesses(loop)
    if step is None or step <= 0 or accesses is None:
        return False
    by_root: dict = {}
    for a in accesses:
        by_root.setdefault(view_root(a.memref), []).append(a)
    arguments = [r for r in by_root if isinstance(r.owner, ir.Block) and not _inside_op(r, loop)]
    bounds = _static_bounds(loop)
    for root, group in by_root.items():
        if not any(a.write for a in group):
            continue
        op = _defining_op(root)
        if op is not None and op.name in ("memref.alloc", "memref.alloca") and _inside(op, loop):
            continue  # private to the iteration
        if root in arguments and len(arguments) > 1:
            return False  # function arguments may alias each other
        if len({a.memref for a in group}) != 1 or any(a.indices is None for a in group):
            return False  # index spaces of different views do not compare
        if _defining_op(group[0].memref) is not None and _inside(
            _defining_op(group[0].memref), loop
        ):
            return False  # a view made in the loop moves with the iteration
        if not _disjoint(loop, group, step, bounds):
            return False
    return True


def _inside_op(value: ir.Value, loop: ir.Operation) -> bool:
    owner = value.owner
    return isinstance(owner, ir.Block) and _inside(owner.owner.operation, loop)

"""Shared pieces of the gather/scatter/indexing/embedding lowerings.

Index scalars become `index` values (negative ones wrapped where torch wraps them); sequential
scatters are `scf.for` nests carrying the output tensor (bufferization updates it in place); the
geometry of advanced indexing (`x[i, :, j]`) is computed once for `index.Tensor` and `index_put`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from .builder import LoweringRewriter, elem, is_float, tensor_type


def supported(*values) -> bool:
    """Float and signless int tensors (bool and unsigned ones reach rules as their signless
    storage, unsigned only in rules registered for them); complex is left."""
    for v in values:
        if v is None:
            continue
        e = elem(v)
        if isinstance(e, ir.IntegerType):
            if not ir.IntegerType(e).is_signless:
                return False
        elif not is_float(e):
            return False
    return True


def const_index(v: int | ir.Value) -> ir.Value:
    """`v` as an index value (needs an insertion point)."""
    if isinstance(v, ir.Value):
        return v
    return arith.constant(ir.IndexType.get(), v)


def movable(v) -> bool:
    """Element types a rule that only moves elements (gathers, selects) takes: any of
    `supported`'s, and complex."""
    return supported(v) or isinstance(elem(v), ir.ComplexType)


def signless(rw: LoweringRewriter, index: ir.Value) -> tuple[ir.Value | None, bool]:
    """(index tensor, False) for signed int indices; (None, True) for unsigned (uint8) ones,
    which torch reads as masks or rejects: left to eager."""
    if rw.is_unsigned(index):
        return None, True
    return index, False


def as_index(x: ir.Value, size: int | ir.Value | None = None, unsigned=False) -> ir.Value:
    """Integer scalar `x` as an index; wrapped by `size` when negative if `size` is given."""
    if unsigned:
        return arith.index_castui(ir.IndexType.get(), x)
    i = arith.index_cast(ir.IndexType.get(), x)
    if size is None:
        return i
    zero = const_index(0)
    neg = arith.cmpi(arith.CmpIPredicate.slt, i, zero)
    return arith.select(neg, arith.addi(i, const_index(size)), i)


def loop_nest(
    rw: LoweringRewriter,
    sizes: Sequence[int | ir.Value],
    inits: Sequence[ir.Value],
    body: Callable,
) -> list[ir.Value]:
    """`scf.for` loops over `sizes` carrying `inits`; `body(ivs, carried)` returns the new
    carried values. Built before the op; returns the final carried values."""
    with rw.at():
        bounds = [const_index(s) for s in sizes]
        zero, one = const_index(0), const_index(1)

        def nest(depth, ivs, carried):
            if depth == len(bounds):
                return list(body(ivs, carried))
            loop = scf.ForOp(zero, bounds[depth], one, list(carried))
            with ir.InsertionPoint(loop.body):
                out = nest(depth + 1, [*ivs, loop.induction_variable], list(loop.inner_iter_args))
                scf.YieldOp(out)
            return list(loop.results)

        return nest(0, [], list(inits))


def with_elem(t: ir.RankedTensorType, e: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(t.shape, e)


def static_or(t: ir.RankedTensorType, d: int, dynamic: Callable) -> int | ir.Value:
    return dynamic() if t.is_dynamic_dim(d) else t.get_dim_size(d)


class Advanced:
    """The geometry of `self[indices]` with optional index tensors (torch's advanced indexing).

    The index tensors broadcast to a shape B; when they are adjacent in `indices`, B's dims
    replace theirs in place, else B's dims come first and the other dims follow in order.
    `slots[k]` says what result dim k is: ("b", j) for B's dim j, ("self", d) for self's dim d.
    """

    def __init__(self, rw: LoweringRewriter, self_: ir.Value, indices: Sequence, known=()):
        # `known`: (index tensor, size of its dim 0) built by the rule; `tensor.dim` of a value
        # built in the segment would be hoisted above it by the partitioner.
        self.rw, self.self_, self.known = rw, self_, list(known)
        st = tensor_type(self_)
        self.indices = list(indices) + [None] * (st.rank - len(indices))
        where = [d for d, i in enumerate(self.indices) if i is not None]
        self.b_rank = max(tensor_type(self.indices[d]).rank for d in where)
        adjacent = where == list(range(where[0], where[-1] + 1))
        start = where[0] if adjacent else 0
        kept = [d for d in range(st.rank) if self.indices[d] is None]
        before = [d for d in kept if adjacent and d < start]
        after = [d for d in kept if d not in before]
        self.slots = (
            [("self", d) for d in before]
            + [("b", j) for j in range(self.b_rank)]
            + [("self", d) for d in after]
        )
        self.b_start = len(before)
        # sizes are built before the op: inside a region body they would not dominate it
        self.self_sizes = rw.sizes(self_)
        self.b_sizes = [self._b_size(j) for j in range(self.b_rank)]

    def sizes(self, result: ir.RankedTensorType | None = None) -> list[int | ir.Value]:
        """The result sizes: static ones from `result`, else from self or an index tensor."""
        out = []
        for k, (kind, j) in enumerate(self.slots):
            if result is not None and not result.is_dynamic_dim(k):
                out.append(result.get_dim_size(k))
            elif kind == "self":
                out.append(self.self_sizes[j])
            else:
                out.append(self.b_sizes[j])
        return out

    def _b_size(self, j: int):
        static = []
        for t in self.tensors():
            tt = tensor_type(t)
            i = j - (self.b_rank - tt.rank)
            if i < 0:
                continue
            if tt.is_dynamic_dim(i):
                return next((n for v, n in self.known if v == t), None) or self.rw.size(t, i)
            static.append(tt.get_dim_size(i))
        return next((s for s in static if s != 1), 1)

    def index_exprs(self, t: ir.Value) -> list:
        """For each dim of index tensor `t`: the result dim it follows, or None (broadcast 1)."""
        tt = tensor_type(t)
        out = []
        for i in range(tt.rank):
            j = i + self.b_rank - tt.rank
            broadcast = not tt.is_dynamic_dim(i) and tt.get_dim_size(i) == 1
            out.append(None if broadcast and self.b_sizes[j] != 1 else self.b_start + j)
        return out

    def index_map(self, t: ir.Value) -> ir.AffineMap:
        exprs = [
            ir.AffineConstantExpr.get(0) if k is None else ir.AffineDimExpr.get(k)
            for k in self.index_exprs(t)
        ]
        return ir.AffineMap.get(len(self.slots), 0, exprs)

    def tensors(self) -> list[ir.Value]:
        return [t for t in self.indices if t is not None]

    def self_coords(self, ivs: Sequence[ir.Value], index_scalars: Sequence[ir.Value]):
        """Self's coordinates of result element `ivs` given the index tensors' scalars there
        (negative indices wrap); needs an insertion point."""
        coords = [None] * len(self.indices)
        scalars = iter(index_scalars)
        for d, t in enumerate(self.indices):
            if t is not None:
                coords[d] = as_index(next(scalars), self.self_sizes[d])
        for k, (kind, d) in enumerate(self.slots):
            if kind == "self":
                coords[d] = ivs[k]
        return coords

    def extract_indices(self, ivs: Sequence[ir.Value]) -> list[ir.Value]:
        """The index tensors' scalars at result element `ivs` (for loops, not generics)."""
        out = []
        for t in self.tensors():
            pos = [const_index(0) if k is None else ivs[k] for k in self.index_exprs(t)]
            out.append(tensor.ExtractOp(t, pos).result)
        return out


def linalg_indices(rank: int) -> list[ir.Value]:
    return [linalg.IndexOp(d).result for d in range(rank)]

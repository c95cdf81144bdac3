"""The top k of each row by selection: one pass over the row keeps its k best values so far in
order (the result rows themselves), inserting an element only when it beats the k-th; a row of
n costs about n comparisons plus k steps per insertion (k ln(n / k) insertions on average for
data in random order), where sorting it whole costs n log2 n. Sampling from a 50k vocabulary
(`topk(logits, 50)`) sorted every row: topk of 10 over [1024, 1000] was 20x eager.

Order and ties are the stable sort's: the best first (NaN the largest, as torch's comparator),
equal values in the order of their positions (an element goes after the equal ones kept).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .sorting_merge import sorts_before

# Up to this k (and k at most n / 4) selection beats sorting; above it each insertion's k steps
# add up
MAX_K = 64


def _index(v: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), v)


def top_k(x, values, indices, sizes, dim: int, k: int, descending: bool):
    """(values, indices) of the k first of each row of `x` along `dim` in `descending` (or
    ascending) order, written into `values` / `indices` ([..., k, ...] tensors); `sizes` are
    x's (ints or index values). Needs an insertion point and location."""
    return _over_rows(x, [values, indices], 0, sizes, dim, k, descending, [])


def _over_rows(x, outs, d, sizes, dim, k, descending, outer):
    if d == len(sizes):
        return _select_row(x, outs, outer, sizes[dim], k, descending)
    if d == dim:
        return _over_rows(x, outs, d + 1, sizes, dim, k, descending, [*outer, None])
    n = sizes[d] if isinstance(sizes[d], ir.Value) else _index(sizes[d])
    loop = scf.ForOp(_index(0), n, _index(1), outs)
    with ir.InsertionPoint(loop.body):
        at = [*outer, loop.induction_variable]
        result = _over_rows(x, list(loop.inner_iter_args), d + 1, sizes, dim, k, descending, at)
        scf.YieldOp(result)
    return list(loop.results)


def _select_row(x, outs, outer, n, k, descending):
    def at(position):
        return [position if o is None else o for o in outer]

    i64 = ir.IntegerType.get_signless(64)
    n = n if isinstance(n, ir.Value) else _index(n)
    first = tensor.extract(x, at(_index(0)))
    loop = scf.ForOp(_index(0), n, _index(1), [*outs, first])
    with ir.InsertionPoint(loop.body):
        j = loop.induction_variable
        values, indices, kth = loop.inner_iter_args
        v = tensor.extract(x, at(j))
        filling = arith.cmpi(arith.CmpIPredicate.ult, j, _index(k))
        take = arith.ori(filling, sorts_before(v, kth, descending))
        branch = scf.IfOp(take, [values.type, indices.type, kth.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            position = arith.index_cast(i64, j)
            kept = _insert(values, indices, at, v, position, j, k, descending)
            scf.YieldOp([*kept, tensor.extract(kept[0], at(_index(k - 1)))])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([values, indices, kth])
        scf.YieldOp(list(branch.results))
    return list(loop.results)[:2]


def _insert(values, indices, at, v, position, j, k, descending):
    """`v` (from `position`) into the kept row, which holds min(j, k) values: from the last
    slot it may take down, each slot takes its left neighbour while `v` sorts before it, then
    `v`; the slots left of that keep theirs."""
    last = arith.minui(j, _index(k - 1))
    steps = arith.addi(last, _index(1))
    false = arith.cmpi(arith.CmpIPredicate.ne, j, j)  # no i1 constants (see sorting_merge)
    loop = scf.ForOp(_index(0), steps, _index(1), [values, indices, false])
    with ir.InsertionPoint(loop.body):
        vals, idxs, placed = loop.inner_iter_args
        q = arith.subi(last, loop.induction_variable)
        left = arith.maxsi(arith.subi(q, _index(1)), _index(0))
        lv, li = tensor.extract(vals, at(left)), tensor.extract(idxs, at(left))
        has_left = arith.cmpi(arith.CmpIPredicate.ugt, q, _index(0))
        shift = arith.andi(has_left, sorts_before(v, lv, descending))
        new_v, new_i = arith.select(shift, lv, v), arith.select(shift, li, position)
        keep_v, keep_i = tensor.extract(vals, at(q)), tensor.extract(idxs, at(q))
        vals = tensor.insert(arith.select(placed, keep_v, new_v), vals, at(q))
        idxs = tensor.insert(arith.select(placed, keep_i, new_i), idxs, at(q))
        not_shift = arith.xori(shift, arith.cmpi(arith.CmpIPredicate.eq, j, j))
        scf.YieldOp([vals, idxs, arith.ori(placed, not_shift)])
    return list(loop.results)[:2]

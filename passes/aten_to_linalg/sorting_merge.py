"""A stable bottom-up merge sort along one dim of a tensor, in `scf.for` loops over tensors.

`merge_sort` sorts every row (all elements along `dim` for fixed other indices) of `values` in
place, permuting `indices` alongside. Passes alternate between the data and one scratch pair, so
a row of n elements costs O(n log n) comparisons and no allocation per row. Ties keep their
order (the merge takes the right run only when strictly before), and NaN sorts as the largest
value, as torch's comparator does.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, math, scf, tensor

from .builder import convert, is_float


def _index(v: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), v)


def sorts_before(a: ir.Value, b: ir.Value, descending: bool) -> ir.Value:
    """`a` sorts strictly before `b` (i1)."""
    if not is_float(a.type):
        pred = arith.CmpIPredicate.sgt if descending else arith.CmpIPredicate.slt
        return arith.cmpi(pred, a, b)
    if not isinstance(a.type, (ir.F32Type, ir.F64Type)):
        a, b = convert(a, ir.F32Type.get()), convert(b, ir.F32Type.get())
    # No i1 constants here: canonicalize hoists them into @main, whose scalars the runtime runs.
    if descending:  # NaN is the largest: it goes first
        strictly = arith.cmpf(arith.CmpFPredicate.OGT, a, b)
        a_nan = arith.cmpf(arith.CmpFPredicate.UNO, a, a)
        b_num = arith.cmpf(arith.CmpFPredicate.ORD, b, b)
        return arith.ori(strictly, arith.andi(a_nan, b_num))
    strictly = arith.cmpf(arith.CmpFPredicate.OLT, a, b)
    b_nan = arith.cmpf(arith.CmpFPredicate.UNO, b, b)
    a_num = arith.cmpf(arith.CmpFPredicate.ORD, a, a)
    return arith.ori(strictly, arith.andi(b_nan, a_num))


def _merge_pass(src, dst, outer, dim, n, width, descending):
    """One bottom-up pass: runs of `width` in `src` (values, indices) merged pairwise into
    `dst`; returns the new `dst` pair. `outer` holds the row's other indices (None at `dim`)."""

    def at(k):
        return [k if o is None else o for o in outer]

    two_w = arith.muli(width, _index(2))
    lo_loop = scf.ForOp(_index(0), n, two_w, list(dst))
    with ir.InsertionPoint(lo_loop.body):
        lo = lo_loop.induction_variable
        dv, di = lo_loop.inner_iter_args
        mid = arith.minui(arith.addi(lo, width), n)
        hi = arith.minui(arith.addi(lo, two_w), n)
        last = arith.subi(n, _index(1))
        k_loop = scf.ForOp(lo, hi, _index(1), [lo, mid, dv, di])
        with ir.InsertionPoint(k_loop.body):
            k = k_loop.induction_variable
            i, j, dv, di = k_loop.inner_iter_args
            # Reads are clamped into the row: an exhausted run's cursor may sit at n.
            il, jr = arith.minui(i, last), arith.minui(j, last)
            vl = tensor.extract(src[0], at(il))
            vr = tensor.extract(src[0], at(jr))
            left_done = arith.cmpi(arith.CmpIPredicate.uge, i, mid)
            right_left = arith.cmpi(arith.CmpIPredicate.ult, j, hi)
            take_right = arith.andi(
                right_left, arith.ori(left_done, sorts_before(vr, vl, descending))
            )
            pos = arith.select(take_right, jr, il)
            dv = tensor.insert(arith.select(take_right, vr, vl), dv, at(k))
            di = tensor.insert(tensor.extract(src[1], at(pos)), di, at(k))
            step_r = arith.select(take_right, _index(1), _index(0))
            step_l = arith.subi(_index(1), step_r)
            scf.YieldOp([arith.addi(i, step_l), arith.addi(j, step_r), dv, di])
        scf.YieldOp(list(k_loop.results)[2:])
    return list(lo_loop.results)


def _size(v: int | ir.Value) -> ir.Value:
    return v if isinstance(v, ir.Value) else _index(v)


def _sort_row(data, scratch, outer, dim, n, descending):
    """Sorts one row: pairs of passes data -> scratch -> data, so the result ends in `data`
    (a pass whose width covers the row just copies it). Returns (data, scratch)."""
    n = _size(n)
    i64 = ir.IntegerType.get_signless(64)
    # passes = ceil(log2(n)) = 64 - ctlz(n - 1) for n > 1; rounded up to pairs.
    n64 = arith.index_cast(i64, n)
    nm1 = arith.maxsi(arith.subi(n64, arith.constant(i64, 1)), arith.constant(i64, 0))
    passes = arith.subi(arith.constant(i64, 64), math.ctlz(nm1))
    pairs = arith.divui(arith.addi(passes, arith.constant(i64, 1)), arith.constant(i64, 2))
    pairs = arith.index_cast(ir.IndexType.get(), pairs)
    loop = scf.ForOp(_index(0), pairs, _index(1), [*data, *scratch])
    with ir.InsertionPoint(loop.body):
        p = loop.induction_variable
        args = list(loop.inner_iter_args)
        width = arith.shli(_index(1), arith.muli(p, _index(2)))
        scratch2 = _merge_pass(args[:2], args[2:], outer, dim, n, width, descending)
        width2 = arith.muli(width, _index(2))
        data2 = _merge_pass(scratch2, args[:2], outer, dim, n, width2, descending)
        scf.YieldOp([*data2, *scratch2])
    res = list(loop.results)
    return res[:2], res[2:]


def merge_sort(values, indices, scratch_values, scratch_indices, sizes, dim, descending):
    """Sorts `values` (of `sizes`: ints or index values) along `dim`, with `indices` permuted
    alongside; needs an insertion point and location. Returns the sorted (values, indices)."""
    out = _over_rows(
        [values, indices], [scratch_values, scratch_indices], 0, sizes, dim, [], descending
    )
    return out[:2]


def _over_rows(data, scratch, d, sizes, dim, outer, descending):
    if d == len(sizes):
        data, scratch = _sort_row(data, scratch, outer, dim, sizes[dim], descending)
        return [*data, *scratch]
    if d == dim:
        return _over_rows(data, scratch, d + 1, sizes, dim, [*outer, None], descending)
    loop = scf.ForOp(_index(0), _size(sizes[d]), _index(1), [*data, *scratch])
    with ir.InsertionPoint(loop.body):
        args = list(loop.inner_iter_args)
        iv = loop.induction_variable
        out = _over_rows(args[:2], args[2:], d + 1, sizes, dim, [*outer, iv], descending)
        scf.YieldOp(out)
    return list(loop.results)

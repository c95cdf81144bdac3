"""Pairwise distances -> a `linalg.generic` reduction over the feature dim per pair.

`_cdist_forward` follows ATen: for p = 2 with compute_mode 1 (or 0/None with more than 25 rows
on a side) it takes the matmul route ATen takes (|x1|^2 + |x2|^2 - 2 x1.x2, clamped at 0, sqrt),
otherwise the direct per-pair accumulation (p = 0: count of differences, 1, 2, inf, general p).
`_pdist_forward` computes the full self-distance matrix the direct way and gathers its upper
triangle with the row-from-index formula of ATen's kernel.
"""

from __future__ import annotations

import math as pymath

from mlir import ir
from mlir.dialects import arith, math, tensor

from . import convolution_tensors as T
from .builder import PARALLEL, REDUCTION, convert, is_float, tensor_type
from .registry import register_lowering

CMPF = arith.CmpFPredicate


def _batch_map(rank: int, t: ir.RankedTensorType, row: int, nb: int):
    """Loops (b..., i, j, m) -> `t` [b'..., row, m], batch dims aligned right (size-1 dims
    broadcast)."""
    tb = t.rank - 2
    exprs = []
    for d in range(tb):
        loop = nb - tb + d
        static_one = not t.is_dynamic_dim(d) and t.get_dim_size(d) == 1
        exprs.append(ir.AffineConstantExpr.get(0) if static_one else T.dim(loop))
    return T.amap(rank, [*exprs, T.dim(nb + row), T.dim(nb + 2)])


def _pairwise(rw, x1, x2, sizes, acc, init_value, step):
    """acc[b..., i, j] = fold over m of step(acc, x1[b, i, m], x2[b, j, m])."""
    nb = len(sizes) - 2
    rank = nb + 3
    maps = [
        _batch_map(rank, tensor_type(x1), 0, nb),
        _batch_map(rank, tensor_type(x2), 1, nb),
        T.amap(rank, [T.dim(d) for d in range(nb + 2)]),
    ]
    init = T.full(rw, sizes, acc, init_value)
    iters = [PARALLEL] * (nb + 2) + [REDUCTION]

    def body(a, b, s):
        return step(s, convert(a, acc), convert(b, acc))

    return rw.generic([x1, x2], [init], maps, iters, body)[0]


def _direct(rw, x1, x2, sizes, acc, p: float):
    """The per-pair accumulation of ATen's cdist/pdist kernels, finished (root taken)."""

    def absdiff(a, b):
        return math.absf(arith.subf(a, b))

    if p == 0:

        def step(s, a, b):
            ne = arith.cmpf(CMPF.UNE, a, b)
            return arith.addf(
                s, arith.select(ne, arith.constant(acc, 1.0), arith.constant(acc, 0.0))
            )

        return _pairwise(rw, x1, x2, sizes, acc, 0, step), None
    if pymath.isinf(p):
        return _pairwise(
            rw, x1, x2, sizes, acc, 0, lambda s, a, b: arith.maximumf(s, absdiff(a, b))
        ), None
    if p == 1:
        return _pairwise(
            rw, x1, x2, sizes, acc, 0, lambda s, a, b: arith.addf(s, absdiff(a, b))
        ), None
    if p == 2:

        def sq(s, a, b):
            d = arith.subf(a, b)
            return arith.addf(s, arith.mulf(d, d))

        return _pairwise(rw, x1, x2, sizes, acc, 0, sq), math.sqrt

    def powp(s, a, b):
        return arith.addf(s, math.powf(absdiff(a, b), arith.constant(acc, p)))

    return _pairwise(rw, x1, x2, sizes, acc, 0, powp), lambda v: math.powf(
        v, arith.constant(v.type, 1.0 / p)
    )


def _norms(rw, x, acc):
    """Row norms squared: [b..., n, m] -> [b..., n]."""
    rank = tensor_type(x).rank
    sizes = rw.sizes(x)[:-1]
    init = T.full(rw, sizes, acc, 0)
    maps = [T.identity(rank), T.amap(rank, [T.dim(d) for d in range(rank - 1)])]
    iters = [PARALLEL] * (rank - 1) + [REDUCTION]

    def body(a, s):
        a = convert(a, acc)
        return arith.addf(s, arith.mulf(a, a))

    return rw.generic([x], [init], maps, iters, body)[0]


def _finish(rw, sums, root, sizes, e, extra=None):
    """One parallel generic: root of the sums (or the matmul route's combine), as `e`."""
    rank = len(sizes)
    inputs = [sums] + (extra[0] if extra else [])
    maps = [T.identity(rank)] + (extra[1] if extra else [])
    init = T.empty(rw, sizes, e)

    def body(*args):
        v = extra[2](*args[:-1]) if extra else args[0]
        if root is not None:
            v = root(v)
        return convert(v, e)

    return rw.generic(inputs, [init], maps + [T.identity(rank)], [PARALLEL] * rank, body)[0]


@register_lowering("aten._cdist_forward")
def lower_cdist_forward(op, rw):
    """aten._cdist_forward -> linalg.generic(pairwise reduction), linalg.generic(root)"""
    a = rw.args
    x1, x2, p, mode = a["x1"], a["x2"], float(a["p"]), a.get("compute_mode")
    e = rw.result_type().element_type
    if not (is_float(e) and is_float(tensor_type(x1).element_type)):
        return None
    acc = T.f32_if_reduced(e)
    s1, s2 = rw.sizes(x1), rw.sizes(x2)
    rank = tensor_type(rw.result_type()).rank
    nb = rank - 2

    def size(d):
        if d == nb:
            return s1[-2]
        if d == nb + 1:
            return s2[-2]
        for s, t in ((s1, tensor_type(x1)), (s2, tensor_type(x2))):
            k = d - (nb - (t.rank - 2))
            if k >= 0 and t.is_dynamic_dim(k):
                return s[k]
        raise ValueError(f"no operand gives the size of dim {d}")

    sizes = T.result_sizes(rw, 0, size)
    mode = 0 if mode is None else mode
    rows = [sizes[nb], sizes[nb + 1]]
    if p == 2 and mode == 1:
        return _euclidean(rw, x1, x2, sizes, acc, e)
    if p == 2 and mode == 0 and all(isinstance(r, int) for r in rows):
        if any(r > 25 for r in rows):
            return _euclidean(rw, x1, x2, sizes, acc, e)
    sums, root = _direct(rw, x1, x2, sizes, acc, p)
    direct = _finish(rw, sums, root, sizes, e)
    if p == 2 and mode == 0 and not all(isinstance(r, int) for r in rows):
        # ATen picks the route by the row counts, known here only at run time: both, selected.
        matmul = _euclidean(rw, x1, x2, sizes, acc, e)
        with rw.at():
            big = [
                arith.cmpi(arith.CmpIPredicate.sgt, T.to_index(rw, r), T.to_index(rw, 25))
                for r in rows
            ]
            return arith.select(arith.ori(*big), matmul, direct)
    return direct


def _euclidean(rw, x1, x2, sizes, acc, e):
    """ATen's `_euclidean_dist`: sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0)), summed in the order of
    its gemm over [-2a, |a|^2, 1] . [b, 1, |b|^2] (the cancellation makes the order visible)."""

    def dot(s, a, b):
        return arith.addf(s, arith.mulf(arith.mulf(arith.constant(acc, -2.0), a), b))

    dots = _pairwise(rw, x1, x2, sizes, acc, 0, dot)
    n1, n2 = _norms(rw, x1, acc), _norms(rw, x2, acc)
    nb = len(sizes) - 2
    rank = nb + 2

    def nmap(t, row):
        exprs, tb = [], t.rank - 1  # t: [b'..., rows]
        for d in range(t.rank):
            loop = nb - tb + d if d < tb else nb + row
            one = d < tb and not t.is_dynamic_dim(d) and t.get_dim_size(d) == 1
            exprs.append(ir.AffineConstantExpr.get(0) if one else T.dim(loop))
        return T.amap(rank, exprs)

    def combine(dot, a, b):
        v = arith.addf(arith.addf(dot, a), b)
        return arith.maximumf(v, arith.constant(acc, 0.0))

    extra = ([n1, n2], [nmap(tensor_type(n1), 0), nmap(tensor_type(n2), 1)], combine)
    return _finish(rw, dots, math.sqrt, sizes, e, extra)


@register_lowering("aten._pdist_forward")
def lower_pdist_forward(op, rw):
    """aten._pdist_forward -> linalg.generic(pairwise), linalg.generic(tensor.extract)"""
    x, p = rw.args["self"], float(rw.args.get("p", 2.0))
    e = rw.result_type().element_type
    if not (is_float(e) and is_float(tensor_type(x).element_type)):
        return None
    acc = T.f32_if_reduced(e)
    n = rw.size(x, 0)
    sums, root = _direct(rw, x, x, [n, n], acc, p)
    full = _finish(rw, sums, root, [n, n], e)
    count = T.result_sizes(rw, 0, lambda d: T.floordiv(rw, T.mul(rw, n, T.sub(rw, n, 1)), 2))
    n_index = T.to_index(rw, n)
    f64, i64 = ir.F64Type.get(), ir.IntegerType.get_signless(64)

    def gather(_):
        # ATen's pdist kernel: i = n2 - sqrt(n2^2 - 1 - 2k) (n2 = n - 1/2), truncated.
        k = arith.index_cast(i64, T.index(0))
        nn = arith.index_cast(i64, n_index)
        n2 = arith.subf(arith.sitofp(f64, nn), arith.constant(f64, 0.5))
        disc = arith.subf(
            arith.subf(arith.mulf(n2, n2), arith.constant(f64, 1.0)),
            arith.mulf(arith.constant(f64, 2.0), arith.sitofp(f64, k)),
        )
        i = arith.fptosi(i64, arith.subf(n2, math.sqrt(disc)))
        one = arith.constant(i64, 1)
        tri = arith.divsi(arith.muli(i, arith.addi(i, one)), arith.constant(i64, 2))
        j = arith.addi(arith.addi(arith.subi(k, arith.muli(nn, i)), tri), arith.addi(i, one))
        idx = [arith.index_cast(ir.IndexType.get(), v) for v in (i, j)]
        return tensor.extract(full, idx)

    init = T.empty(rw, count, e)
    return rw.generic([], [init], [T.identity(1)], [PARALLEL], gather)[0]

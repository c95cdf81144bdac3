"""Layer and group norm backward, after torch/_decomp/decompositions.py, as fused generics.

Each reduction of the decomposition is one reducing `linalg.generic` (pairs of sums share one);
the element-wise tails are computed in the bodies. Everything accumulates and computes in the sum
accumulator type, converted to each result's dtype at the end.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .builder import PARALLEL, convert, is_float, tensor_type
from .normalization import group_view, split_vector, ungroup
from .reductions_common import (
    acc_type,
    collapse,
    count,
    dims_map,
    empty,
    generic,
    ranked,
    reduce,
    shape_of,
    sizes,
    supported,
)
from .registry import register_lowering


def _cast_to(v: ir.Value, t: ir.RankedTensorType) -> ir.Value:
    vt = tensor_type(v)
    if vt.element_type == t.element_type:
        return v
    ident = ir.AffineMap.get_identity(vt.rank)
    init = empty(ranked(shape_of(vt), t.element_type), sizes(v))
    body = lambda a, _o: convert(a, t.element_type)  # noqa: E731
    return generic([v], [init], [ident, ident], [PARALLEL] * vt.rank, body)[0]


@register_lowering("aten.native_layer_norm_backward")
def lower_layer_norm_backward(op, rw):
    """aten.native_layer_norm_backward -> linalg.generic(reductions over the normalized and the
    outer dims), linalg.generic(grad input)"""
    a = rw.args
    g, x, mean, rstd, w = a["grad_out"], a["input"], a["mean"], a["rstd"], a.get("weight")
    out_t = rw.result_type(0)
    if not supported(x.type, g.type) or not is_float(out_t.element_type):
        return None
    xt = tensor_type(x)
    rank = xt.rank
    axis = rank - len(a["normalized_shape"])
    inner, outer = list(range(axis, rank)), list(range(axis))
    acc = acc_type(out_t.element_type)
    c = lambda v: convert(v, acc)  # noqa: E731
    stats = [mean, rstd] + ([w] if w is not None else [])
    # mean/rstd are (outer..., 1...), weight the normalized shape: explicit maps, since a `?`
    # size could be a broadcast one
    zero = ir.AffineConstantExpr.get(0)
    keep_map = ir.AffineMap.get(
        rank, 0, [ir.AffineDimExpr.get(d) for d in outer] + [zero] * len(inner)
    )
    stat_maps = [keep_map, keep_map] + ([dims_map(rank, inner)] if w is not None else [])

    def x_hat_gw(gv, xv, m, r, *rest):
        xh = arith.mulf(arith.subf(c(xv), m), r)
        gw = arith.mulf(c(gv), c(rest[0])) if w is not None else c(gv)
        return xh, gw

    def sums(gv, xv, m, r, *rest):
        *wv, b, c2 = rest
        xh, gw = x_hat_gw(gv, xv, c(m), c(r), *wv)
        return arith.addf(b, gw), arith.addf(c2, arith.mulf(xh, gw))

    with rw.at():
        b, c2 = reduce(
            g,
            inner,
            [(acc, 0.0)] * 2,
            sums,
            per_input=[x, *stats],
            input_maps=[ir.AffineMap.get_identity(rank), *stat_maps],
        )
        n = count(x, inner, acc)

        def grad_input(gv, xv, m, r, *rest):
            *wv, bv, c2v, _o = rest
            xh, gw = x_hat_gw(gv, xv, c(m), c(r), *wv)
            inner_ = arith.subf(arith.subf(arith.mulf(gw, n), bv), arith.mulf(xh, c2v))
            return convert(arith.mulf(arith.divf(c(r), n), inner_), out_t.element_type)

        ident = ir.AffineMap.get_identity(rank)
        kept = dims_map(rank, outer)
        init = empty(out_t, sizes(x))
        (dx,) = generic(
            [g, x, *stats, b, c2],
            [init],
            [ident, ident, *stat_maps, kept, kept, ident],
            [PARALLEL] * rank,
            grad_input,
        )

        def param_sums(gv, xv, m, r, dw, db):
            xh = arith.mulf(arith.subf(c(xv), c(m)), c(r))
            return arith.addf(dw, arith.mulf(c(gv), xh)), arith.addf(db, c(gv))

        dw, db = reduce(
            g,
            outer,
            [(acc, 0.0)] * 2,
            param_sums,
            per_input=[x, mean, rstd],
            input_maps=[ident, *stat_maps[:2]],
        )
        return dx, _cast_to(dw, rw.result_type(1)), _cast_to(db, rw.result_type(2))


@register_lowering("aten.native_group_norm_backward")
def lower_group_norm_backward(op, rw):
    """aten.native_group_norm_backward -> tensor.expand_shape (N, G, C/G, HxW),
    linalg.generic(reductions: per-channel then per-group sums, over N), linalg.generic"""
    a = rw.args
    g, x, mean, rstd, w = a["grad_out"], a["input"], a["mean"], a["rstd"], a.get("weight")
    groups = a["group"]
    out_t = rw.result_type(0)
    if not supported(x.type, g.type) or not is_float(out_t.element_type):
        return None
    if not isinstance(groups, int):
        return None
    acc = acc_type(out_t.element_type)
    c = lambda v: convert(v, acc)  # noqa: E731
    ng = dims_map(4, [0, 1])  # mean/rstd (N, G) read from (N, G, C/G, HxW) loops
    with rw.at():
        x4, g4 = group_view(rw, x, groups), group_view(rw, g, groups)
        w2 = split_vector(w, groups) if w is not None else None

        def channel_sums(gv, xv, ds, db):
            return arith.addf(ds, arith.mulf(c(gv), c(xv))), arith.addf(db, c(gv))

        ds, db = reduce(g4, [3], [(acc, 0.0)] * 2, channel_sums, per_input=[x4])

        def group_sums(dsv, dbv, *rest):
            *wv, s1, s2 = rest
            if w is not None:
                dsv, dbv = arith.mulf(dsv, c(wv[0])), arith.mulf(dbv, c(wv[0]))
            return arith.addf(s1, dsv), arith.addf(s2, dbv)

        wmap3 = [dims_map(3, [1, 2])] if w is not None else []
        ds_val, db_val = reduce(
            ds,
            [2],
            [(acc, 0.0)] * 2,
            group_sums,
            per_input=[db] + ([w2] if w is not None else []),
            input_maps=[ir.AffineMap.get_identity(3)] + wmap3,
        )
        n = count(x4, [2, 3], acc)

        def grad_input(gv, xv, m, r, dsv, dbv, *rest):
            m, r = c(m), c(r)
            s = arith.divf(arith.constant(acc, 1.0), n)  # in the body: scalar glue stays simple
            c1 = arith.mulf(r, c(rest[0])) if w is not None else r
            r3s = arith.mulf(arith.mulf(arith.mulf(r, r), r), s)
            c2 = arith.mulf(arith.subf(arith.mulf(dbv, m), dsv), r3s)
            c3 = arith.subf(arith.negf(arith.mulf(c2, m)), arith.mulf(arith.mulf(dbv, r), s))
            y = arith.addf(arith.addf(arith.mulf(c(gv), c1), arith.mulf(c(xv), c2)), c3)
            return convert(y, out_t.element_type)

        ident = ir.AffineMap.get_identity(4)
        ins = [g4, x4, mean, rstd, ds_val, db_val] + ([w2] if w is not None else [])
        maps = [ident, ident, ng, ng, ng, ng] + ([dims_map(4, [1, 2])] if w is not None else [])
        init = empty(ranked(shape_of(tensor_type(x4)), out_t.element_type), sizes(x4))
        (dx4,) = generic(ins, [init], maps + [ident], [PARALLEL] * 4, grad_input)

        def param_sums(dsv, dbv, m, r, dw, dbias):
            d = arith.mulf(arith.subf(dsv, arith.mulf(dbv, c(m))), c(r))
            return arith.addf(dw, d), arith.addf(dbias, dbv)

        ng3 = dims_map(3, [0, 1])
        dw, dbias = reduce(
            ds,
            [0],
            [(acc, 0.0)] * 2,
            param_sums,
            per_input=[db, mean, rstd],
            input_maps=[ir.AffineMap.get_identity(3), ng3, ng3],
        )
        dw, dbias = (collapse(v, [[0, 1]]) for v in (dw, dbias))
        return (
            ungroup(dx4, x),
            _cast_to(dw, rw.result_type(1)),
            _cast_to(dbias, rw.result_type(2)),
        )

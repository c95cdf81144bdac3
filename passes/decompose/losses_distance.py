"""Distances and similarities -> core aten (`aten/src/ATen/native/Distance.cpp`): cdist and pdist
stop at their core `_forward` ops; the vector distances become `linalg_vector_norm` (which has its
own rule); the losses built on them (`Loss.cpp`) follow."""

from __future__ import annotations

from mlir import ir

from .common import dtype, to_dtype
from .losses_common import apply_reduction, rank
from .losses_common import zeros_like as _zeros
from .registry import register_decomposition
from .views import broadcast_size

# Loss.cpp's `constexpr float EPSILON = 1e-12`, as the double it is widened to.
COSINE_EMBEDDING_EPSILON = 9.999999960041972e-13


@register_decomposition("aten.cdist")
def decompose_cdist(op, rewriter):
    """aten.cdist -> aten._cdist_forward (which picks the matmul form for p = 2 from
    compute_mode and the sizes itself, as ATen's cdist does before calling it)"""
    a = rewriter.args
    return rewriter.aten("aten._cdist_forward", a["x1"], a["x2"], a["p"], a["compute_mode"])


@register_decomposition("aten.pdist")
def decompose_pdist(op, rewriter):
    """aten.pdist -> aten._pdist_forward"""
    return rewriter.aten("aten._pdist_forward", rewriter.args["self"], rewriter.args["p"])


@register_decomposition("aten.dist")
def decompose_dist(op, rewriter):
    """aten.dist -> aten.sub.Tensor, aten.linalg_vector_norm (ATen's norm(self - other, p))"""
    a = rewriter.args
    diff = rewriter.aten("aten.sub.Tensor", a["self"], a["other"])
    return rewriter.aten("aten.linalg_vector_norm", diff, a["p"], None, False)


@register_decomposition("aten.pairwise_distance")
def decompose_pairwise_distance(op, rewriter):
    """aten.pairwise_distance -> aten.sub.Tensor, aten.add.Scalar, aten.linalg_vector_norm:
    norm(x1 - x2 + eps, p) over the last dim, as ATen"""
    a = rewriter.args
    x1, x2 = a["x1"], a["x2"]
    inner = max(rank(x1), rank(x2)) - 1  # the last dim of the broadcast (-1 for scalars)
    diff = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.sub.Tensor", x1, x2), a["eps"])
    return rewriter.aten("aten.linalg_vector_norm", diff, a["p"], [inner], a["keepdim"])


def _expand_together(rewriter, x1, x2):
    """Both operands expanded to their broadcast shape (ATen's `expand_outplace`)."""
    s1, s2 = rewriter.sizes(x1), rewriter.sizes(x2)
    n = max(len(s1), len(s2))
    s1, s2 = [1] * (n - len(s1)) + s1, [1] * (n - len(s2)) + s2
    shape = [a if a is b else broadcast_size(rewriter, [a, b]) for a, b in zip(s1, s2)]

    def expand(x, sizes):
        same = len(sizes) == rank(x) and all(
            s is t or (isinstance(s, int) and s == t) for s, t in zip(sizes, shape)
        )
        if same:
            return x
        dyn = ir.ShapedType.get_dynamic_size()
        with rewriter.op.location:
            elem = ir.RankedTensorType(x.type).element_type
            t = ir.RankedTensorType.get([s if isinstance(s, int) else dyn for s in shape], elem)
        return rewriter.aten("aten.expand", x, shape, results=[t])

    return expand(x1, rewriter.sizes(x1)), expand(x2, rewriter.sizes(x2))


@register_decomposition("aten.cosine_similarity")
def decompose_cosine_similarity(op, rewriter):
    """aten.cosine_similarity -> aten._to_copy (integer inputs), aten.expand,
    aten.linalg_vector_norm, aten.clamp, aten.div.Tensor, aten.mul.Tensor, aten.sum.dim_IntList:
    each operand divided by its norm (at least eps) first, then the dot product, as ATen
    (bounded by 1, no overflow of the product of the norms)"""
    a = rewriter.args
    dim, eps, out = a["dim"], a["eps"], dtype(op.results[0])
    x1, x2 = (to_dtype(rewriter, a[k], out) for k in ("x1", "x2"))
    x1, x2 = _expand_together(rewriter, x1, x2)
    unit = []
    for x in (x1, x2):
        norm = rewriter.aten("aten.linalg_vector_norm", x, 2, [dim], True)
        unit.append(rewriter.aten("aten.div.Tensor", x, rewriter.aten("aten.clamp", norm, eps)))
    return rewriter.aten("aten.sum.dim_IntList", rewriter.aten("aten.mul.Tensor", *unit), [dim])


@register_decomposition("aten.cosine_embedding_loss")
def decompose_cosine_embedding_loss(op, rewriter):
    """aten.cosine_embedding_loss -> aten.mul.Tensor, aten.sum.dim_IntList, aten.add.Scalar,
    aten.sqrt, aten.div.Tensor, aten.neg, aten.sub.Scalar, aten.clamp, aten.eq.Scalar,
    aten.where.self, aten.add.Tensor, the reduction: 1 - cos where y = 1, max(cos - margin, 0)
    where y = -1, cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12)) as ATen"""
    a = rewriter.args
    x1, x2, y = a["input1"], a["input2"], a["target"]
    dim = [rank(y)]

    def dot(u, v):
        return rewriter.aten("aten.sum.dim_IntList", rewriter.aten("aten.mul.Tensor", u, v), dim)

    mag1 = rewriter.aten("aten.add.Scalar", dot(x1, x1), COSINE_EMBEDDING_EPSILON)
    mag2 = rewriter.aten("aten.add.Scalar", dot(x2, x2), COSINE_EMBEDDING_EPSILON)
    denom = rewriter.aten("aten.sqrt", rewriter.aten("aten.mul.Tensor", mag1, mag2))
    cos = rewriter.aten("aten.div.Tensor", dot(x1, x2), denom)
    zeros = _zeros(rewriter, cos)
    pos = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", cos), 1)
    neg = rewriter.aten("aten.clamp", rewriter.aten("aten.sub.Scalar", cos, a["margin"]), 0)
    loss = rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.where.self", rewriter.aten("aten.eq.Scalar", y, 1), pos, zeros),
        rewriter.aten("aten.where.self", rewriter.aten("aten.eq.Scalar", y, -1), neg, zeros),
    )
    return apply_reduction(rewriter, loss, a["reduction"])


@register_decomposition("aten.triplet_margin_loss")
def decompose_triplet_margin_loss(op, rewriter):
    """aten.triplet_margin_loss -> aten.pairwise_distance, aten.minimum (swap),
    aten.add.Scalar, aten.sub.Tensor, aten.clamp, the reduction:
    max(margin + d(a, p) - d(a, n), 0)"""
    a = rewriter.args
    anchor, pos, neg, p, eps = (a[k] for k in ("anchor", "positive", "negative", "p", "eps"))

    def distance(u, v):
        return rewriter.aten("aten.pairwise_distance", u, v, p, eps, False)

    d_pos, d_neg = distance(anchor, pos), distance(anchor, neg)
    if a["swap"]:
        d_neg = rewriter.aten("aten.minimum", d_neg, distance(pos, neg))
    loss = rewriter.aten("aten.add.Scalar", d_pos, a["margin"])
    loss = rewriter.aten("aten.clamp", rewriter.aten("aten.sub.Tensor", loss, d_neg), 0)
    return apply_reduction(rewriter, loss, a["reduction"])

"""Backward of `pdist` -> core aten: `_pdist_backward`, what AOTAutograd leaves in a training
graph for `F.pdist` / `torch.pdist` (before this rule it ran eagerly between native segments).

ATen's kernel (`aten/src/ATen/native/cpu/DistanceOpsKernel.cpp`) walks the pairs i < j of the
condensed distance vector, adding F(x_i - x_j, grad_k, dist_k) to row i and subtracting it from
row j, where F is the derivative of the p-norm (zero where the pair's distance is 0, and for
p = 0 everywhere). F is odd in the difference, so row r's gradient is the sum over all s of
F(x_r - x_s, G[r, s], D[r, s]) with G and D the gradient and distances spread to symmetric
n x n matrices (0 on the diagonal, where the difference is 0 and so is every term): one
parallel reduction over s instead of the kernel's serial scatter, summed in the kernel's order.
"""

from __future__ import annotations

import math

from .common import dtype, rank, tensor_of
from .registry import register_decomposition
from .views import arange, result_type


def _pair_index(rewriter, n):
    """(n, n) int64: k(min(r, s), max(r, s)) where r != s, the position of pair (r, s) in the
    condensed vector, and on the diagonal n (n - 1) / 2, one past its end (where a 0 is padded
    on). k(i, j) = i n - i (i + 1) / 2 + j - i - 1 = i (2 n - 3 - i) / 2 - 1 + j for i < j."""
    r = arange(rewriter, 0, n)
    rows = rewriter.aten("aten.unsqueeze", r, 1)
    cols = rewriter.aten("aten.unsqueeze", r, 0)
    lo = rewriter.aten("aten.minimum", rows, cols)
    hi = rewriter.aten("aten.maximum", rows, cols)
    # n as a 0-d tensor, a runtime size included
    count = rewriter.aten("aten.sum.dim_IntList", rewriter.aten("aten.ones_like", r), None)
    span = rewriter.aten("aten.sub.Scalar", rewriter.aten("aten.mul.Scalar", count, 2), 3)
    twice = rewriter.aten("aten.mul.Tensor", lo, rewriter.aten("aten.sub.Tensor", span, lo))
    k = rewriter.aten("aten.div.Scalar_mode", twice, 2, rounding_mode="floor")
    k = rewriter.aten("aten.add.Tensor", rewriter.aten("aten.sub.Scalar", k, 1), hi)
    pairs = rewriter.aten("aten.mul.Tensor", count, rewriter.aten("aten.sub.Scalar", count, 1))
    pairs = rewriter.aten("aten.div.Scalar_mode", pairs, 2, rounding_mode="floor")
    diagonal = rewriter.aten("aten.eq.Tensor", rows, cols)
    return rewriter.aten("aten.where.self", diagonal, pairs, k)


def _spread(rewriter, v, k):
    """v (the condensed vector) with a 0 appended, gathered at the pair positions `k`, as
    (n, n, 1). Gathered at k viewed as (n, n, 1) rather than unsqueezed after: an (n, n)
    buffer has the output's type when n = m, and `cpu-reuse-dead-rows` then writes the
    output's zero fill over it before the sum reads it (p = 1 gave wrong gradients)."""
    padded = rewriter.aten("aten.constant_pad_nd", v, [0, 1], 0)
    return rewriter.aten("aten.index.Tensor", padded, [rewriter.aten("aten.unsqueeze", k, 2)])


def _sign(rewriter, x):
    """ATen's vectorized sign: 1, -1 or 0 (also for NaN)."""
    pos = rewriter.aten("aten._to_copy", rewriter.aten("aten.gt.Scalar", x, 0), dtype=dtype(x))
    neg = rewriter.aten("aten._to_copy", rewriter.aten("aten.lt.Scalar", x, 0), dtype=dtype(x))
    return rewriter.aten("aten.sub.Tensor", pos, neg)


def _unless_zero_distance(rewriter, dist, term):
    zero = rewriter.aten("aten.scalar_tensor", 0, dtype=dtype(term))
    return rewriter.aten("aten.where.self", rewriter.aten("aten.eq.Scalar", dist, 0), zero, term)


def _term(rewriter, p: float, diff, g, dist):
    """ATen's F(diff, grad, dist) per branch of `apply_backward_pdist`, in its operation order."""
    a = lambda *args: rewriter.aten(*args)  # noqa: E731
    if p == 1:
        return a("aten.mul.Tensor", g, _sign(rewriter, diff))
    if math.isinf(p):
        # grad * sign(diff) * (1 - min(1, ceil(| |diff| - dist |))): only where |diff| is the max
        gap = a("aten.ceil", a("aten.abs", a("aten.sub.Tensor", a("aten.abs", diff), dist)))
        keep = a("aten.rsub.Scalar", a("aten.clamp", gap, None, 1), 1)
        return a("aten.mul.Tensor", a("aten.mul.Tensor", g, _sign(rewriter, diff)), keep)
    if p == 2:
        term = a("aten.div.Tensor", a("aten.mul.Tensor", g, diff), dist)
        return _unless_zero_distance(rewriter, dist, term)
    root = a("aten.pow.Tensor_Scalar", dist, p - 1)
    if p < 2:
        up = a("aten.pow.Tensor_Scalar", a("aten.abs", diff), p - 1)
        term = a("aten.mul.Tensor", a("aten.mul.Tensor", _sign(rewriter, diff), up), g)
        term = _unless_zero_distance(rewriter, dist, a("aten.div.Tensor", term, root))
        if p < 1:  # 0 * inf where diff == 0: ATen blends those to 0
            zero = rewriter.aten("aten.scalar_tensor", 0, dtype=dtype(term))
            term = a("aten.where.self", a("aten.eq.Scalar", diff, 0), zero, term)
        return term
    up = a("aten.pow.Tensor_Scalar", a("aten.abs", diff), p - 2)
    term = a("aten.mul.Tensor", a("aten.mul.Tensor", diff, up), g)
    return _unless_zero_distance(rewriter, dist, a("aten.div.Tensor", term, root))


@register_decomposition("aten._pdist_backward")
def decompose_pdist_backward(op, rewriter):
    """aten._pdist_backward -> aten.arange.start_step, aten.minimum, aten.maximum,
    aten.div.Scalar_mode, aten.constant_pad_nd, aten.index.Tensor, aten.sub.Tensor,
    aten.abs, aten.pow.Tensor_Scalar, aten.where.self, aten.sum.dim_IntList (p = 0:
    aten.full): row r's gradient is the sum over s of F(x_r - x_s) with the pair's gradient and
    distance (see the module docstring)"""
    a = rewriter.args
    x, grad, dist, p = a["self"], a["grad"], a["pdist"], a["p"]
    if rank(x) != 2:
        return None
    n, m = rewriter.sizes(x)
    if p == 0 or (isinstance(n, int) and n < 2):
        return rewriter.aten("aten.full", [n, m], 0, dtype=dtype(x), results=result_type(op))
    k = _pair_index(rewriter, n)
    g, d = _spread(rewriter, grad, k), _spread(rewriter, dist, k)
    diff = rewriter.aten(
        "aten.sub.Tensor",
        rewriter.aten("aten.unsqueeze", x, 1),
        rewriter.aten("aten.unsqueeze", x, 0),
        results=[tensor_of(op, [n, n, m], dtype(x))],
    )
    term = _term(rewriter, p, diff, g, d)
    return rewriter.aten("aten.sum.dim_IntList", term, [1], results=result_type(op))

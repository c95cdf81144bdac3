"""Loss functions -> core aten, each spelled out as ATen computes it (`Loss.cpp` and the fused CPU
kernels' formulas, in the same order of operations), then reduced as ATen's
`apply_loss_reduction` does (`reduction`: 0 none, 1 mean, 2 sum).

Cross entropy and the nll family are in `losses_nll`, distances and the losses built on them in
`losses_distance`.
"""

from __future__ import annotations

import math

from .losses_common import apply_reduction
from .losses_common import zeros_like as _zeros
from .registry import register_decomposition


def _diff(rewriter):
    a = rewriter.args
    return rewriter.aten("aten.sub.Tensor", a["self"], a["target"])


@register_decomposition("aten.l1_loss")
def decompose_l1_loss(op, rewriter):
    """aten.l1_loss -> aten.sub.Tensor, aten.abs, aten.mean / aten.sum.dim_IntList"""
    loss = rewriter.aten("aten.abs", _diff(rewriter))
    return apply_reduction(rewriter, loss, rewriter.args["reduction"])


@register_decomposition("aten.mse_loss")
def decompose_mse_loss(op, rewriter):
    """aten.mse_loss -> aten.sub.Tensor, aten.mul.Tensor (d * d, as the kernel),
    aten.mean / aten.sum.dim_IntList"""
    d = _diff(rewriter)
    loss = rewriter.aten("aten.mul.Tensor", d, d)
    return apply_reduction(rewriter, loss, rewriter.args["reduction"])


def _piecewise(rewriter, knot: float, inside, outside):
    """where(|x - y| < knot, inside(z), outside(z)) with z = |x - y|."""
    z = rewriter.aten("aten.abs", _diff(rewriter))
    below = rewriter.aten("aten.lt.Scalar", z, knot)
    loss = rewriter.aten("aten.where.self", below, inside(z), outside(z))
    return apply_reduction(rewriter, loss, rewriter.args["reduction"])


def _half_square(rewriter, z):
    return rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.mul.Scalar", z, 0.5), z)


@register_decomposition("aten.smooth_l1_loss")
def decompose_smooth_l1_loss(op, rewriter):
    """aten.smooth_l1_loss -> aten.l1_loss (beta 0, as ATen), else aten.sub.Tensor, aten.abs,
    aten.lt.Scalar, aten.mul.Scalar, aten.mul.Tensor, aten.div.Scalar, aten.sub.Scalar,
    aten.where.self: 0.5 * z * z / beta below beta, z - 0.5 * beta above"""
    a = rewriter.args
    beta = a["beta"]
    if beta == 0:
        return rewriter.aten("aten.l1_loss", a["self"], a["target"], a["reduction"])
    return _piecewise(
        rewriter,
        beta,
        lambda z: rewriter.aten("aten.div.Scalar", _half_square(rewriter, z), beta),
        lambda z: rewriter.aten("aten.sub.Scalar", z, 0.5 * beta),
    )


@register_decomposition("aten.huber_loss")
def decompose_huber_loss(op, rewriter):
    """aten.huber_loss -> aten.sub.Tensor, aten.abs, aten.lt.Scalar, aten.mul.Scalar,
    aten.mul.Tensor, aten.sub.Scalar, aten.where.self: 0.5 * z * z below delta,
    delta * (z - 0.5 * delta) above"""
    delta = rewriter.args["delta"]
    return _piecewise(
        rewriter,
        delta,
        lambda z: _half_square(rewriter, z),
        lambda z: rewriter.aten(
            "aten.mul.Scalar", rewriter.aten("aten.sub.Scalar", z, 0.5 * delta), delta
        ),
    )


@register_decomposition("aten.soft_margin_loss")
def decompose_soft_margin_loss(op, rewriter):
    """aten.soft_margin_loss -> aten.neg, aten.mul.Tensor, aten.exp, aten.log1p,
    aten.mean / aten.sum.dim_IntList: log1p(exp(-x * y))"""
    a = rewriter.args
    margin = rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.neg", a["self"]), a["target"])
    loss = rewriter.aten("aten.log1p", rewriter.aten("aten.exp", margin))
    return apply_reduction(rewriter, loss, a["reduction"])


@register_decomposition("aten.binary_cross_entropy")
def decompose_binary_cross_entropy(op, rewriter):
    """aten.binary_cross_entropy -> aten.neg, aten.log1p, aten.log, aten.clamp, aten.sub.Scalar,
    aten.mul.Tensor, aten.sub.Tensor (+ aten.mul.Tensor by the weight), the reduction:
    (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100), as ATen's CPU kernel"""
    a = rewriter.args
    x, y = a["self"], a["target"]
    log_1mx = rewriter.aten("aten.log1p", rewriter.aten("aten.neg", x))
    log_1mx = rewriter.aten("aten.clamp", log_1mx, -100)
    log_x = rewriter.aten("aten.clamp", rewriter.aten("aten.log", x), -100)
    loss = rewriter.aten(
        "aten.sub.Tensor",
        rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.sub.Scalar", y, 1), log_1mx),
        rewriter.aten("aten.mul.Tensor", y, log_x),
    )
    if a["weight"] is not None:
        loss = rewriter.aten("aten.mul.Tensor", loss, a["weight"])
    return apply_reduction(rewriter, loss, a["reduction"])


@register_decomposition("aten.binary_cross_entropy_with_logits")
def decompose_binary_cross_entropy_with_logits(op, rewriter):
    """aten.binary_cross_entropy_with_logits -> aten.log_sigmoid, aten.neg, aten.add.Scalar,
    aten.mul.Tensor, aten.sub.Tensor (+ aten.sub.Scalar, aten.mul.Tensor for the weights), the
    reduction: (1 - y) * x - log_sigmoid(x) * ((pos_weight - 1) * y + 1), as ATen"""
    a = rewriter.args
    x, y = a["self"], a["target"]
    log_sig = rewriter.aten("aten.log_sigmoid", x)
    if a["pos_weight"] is not None:
        log_weight = rewriter.aten("aten.sub.Scalar", a["pos_weight"], 1)
        log_weight = rewriter.aten("aten.mul.Tensor", log_weight, y)
        log_weight = rewriter.aten("aten.add.Scalar", log_weight, 1)
        log_sig = rewriter.aten("aten.mul.Tensor", log_sig, log_weight)
    one_minus_y = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", y), 1)
    loss = rewriter.aten(
        "aten.sub.Tensor", rewriter.aten("aten.mul.Tensor", one_minus_y, x), log_sig
    )
    if a["weight"] is not None:
        loss = rewriter.aten("aten.mul.Tensor", loss, a["weight"])
    return apply_reduction(rewriter, loss, a["reduction"])


@register_decomposition("aten.margin_ranking_loss")
def decompose_margin_ranking_loss(op, rewriter):
    """aten.margin_ranking_loss -> aten.neg, aten.sub.Tensor, aten.mul.Tensor, aten.add.Scalar,
    aten.clamp, the reduction: max(-y * (x1 - x2) + margin, 0)"""
    a = rewriter.args
    gap = rewriter.aten("aten.sub.Tensor", a["input1"], a["input2"])
    loss = rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.neg", a["target"]), gap)
    loss = rewriter.aten("aten.clamp", rewriter.aten("aten.add.Scalar", loss, a["margin"]), 0)
    return apply_reduction(rewriter, loss, a["reduction"])


@register_decomposition("aten.hinge_embedding_loss")
def decompose_hinge_embedding_loss(op, rewriter):
    """aten.hinge_embedding_loss -> aten.neg, aten.add.Scalar, aten.clamp, aten.ne.Scalar,
    aten.full_like, aten.where.self, aten.add.Tensor, the reduction: max(margin - x, 0) where
    y != 1, plus x where y != -1"""
    a = rewriter.args
    x, y = a["self"], a["target"]
    zeros = _zeros(rewriter, x)
    margin = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", x), a["margin"])
    margin = rewriter.aten("aten.clamp", margin, 0)
    loss = rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.where.self", rewriter.aten("aten.ne.Scalar", y, 1), margin, zeros),
        rewriter.aten("aten.where.self", rewriter.aten("aten.ne.Scalar", y, -1), x, zeros),
    )
    return apply_reduction(rewriter, loss, a["reduction"])


@register_decomposition("aten.poisson_nll_loss")
def decompose_poisson_nll_loss(op, rewriter):
    """aten.poisson_nll_loss -> aten.exp, aten.mul.Tensor, aten.sub.Tensor (log input) or
    aten.add.Scalar, aten.log, aten.mul.Tensor, aten.sub.Tensor; the Stirling term (full) adds
    aten.mul.Scalar, aten.le.Scalar, aten.where.self, aten.add.Tensor; then the reduction"""
    a = rewriter.args
    x, y = a["input"], a["target"]
    if a["log_input"]:
        loss = rewriter.aten(
            "aten.sub.Tensor", rewriter.aten("aten.exp", x), rewriter.aten("aten.mul.Tensor", y, x)
        )
    else:
        log_x = rewriter.aten("aten.log", rewriter.aten("aten.add.Scalar", x, a["eps"]))
        loss = rewriter.aten("aten.sub.Tensor", x, rewriter.aten("aten.mul.Tensor", y, log_x))
    if a["full"]:
        loss = rewriter.aten("aten.add.Tensor", loss, _stirling(rewriter, y))
    return apply_reduction(rewriter, loss, a["reduction"])


def _stirling(rewriter, y):
    """y * log(y) - y + 0.5 * log(2 * pi * y), 0 where y <= 1."""
    term = rewriter.aten(
        "aten.sub.Tensor",
        rewriter.aten("aten.mul.Tensor", y, rewriter.aten("aten.log", y)),
        y,
    )
    log_2pi_y = rewriter.aten("aten.log", rewriter.aten("aten.mul.Scalar", y, 2 * math.pi))
    term = rewriter.aten("aten.add.Tensor", term, rewriter.aten("aten.mul.Scalar", log_2pi_y, 0.5))
    small = rewriter.aten("aten.le.Scalar", y, 1)
    return rewriter.aten("aten.where.self", small, _zeros(rewriter, term), term)


@register_decomposition("aten.kl_div")
def decompose_kl_div(op, rewriter):
    """aten.kl_div -> aten.exp, aten.sub.Tensor, aten.mul.Tensor (log target) or aten.log,
    aten.mul.Tensor, aten.eq.Scalar, aten.where.self, aten.sub.Tensor (xlogy(y, y) - y * x, with
    xlogy(0, 0) = 0 and NaN kept), then the reduction (`mean` over every element, as ATen)"""
    a = rewriter.args
    x, y = a["self"], a["target"]
    if a["log_target"]:
        loss = rewriter.aten(
            "aten.mul.Tensor", rewriter.aten("aten.exp", y), rewriter.aten("aten.sub.Tensor", y, x)
        )
    else:
        y_log_y = rewriter.aten("aten.mul.Tensor", y, rewriter.aten("aten.log", y))
        zero = rewriter.aten("aten.eq.Scalar", y, 0)
        y_log_y = rewriter.aten("aten.where.self", zero, _zeros(rewriter, y_log_y), y_log_y)
        loss = rewriter.aten("aten.sub.Tensor", y_log_y, rewriter.aten("aten.mul.Tensor", y, x))
    return apply_reduction(rewriter, loss, a["reduction"])

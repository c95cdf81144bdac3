"""Dropout variants, randomized leaky ReLU and multinomial sampling -> core random ops.

Dropout stops at core `native_dropout` where that computes the same thing; the feature and alpha
variants follow ATen's `_dropout_impl` (a Bernoulli(1 - p) mask per element or per channel,
scaled by 1 / (1 - p); alpha dropout's affine correction keeps mean and variance).
"""

from __future__ import annotations

import math

import torch
from mlir import ir

from .common import dtype, rank, tensor_of, to_dtype
from .registry import register_decomposition

# ATen's `_dropout_impl`: SELU's alpha * scale, the value alpha dropout drops to (negated).
_ALPHA = 1.7580993408473766


def _rand(rewriter, sizes, elem):
    return rewriter.aten(
        "aten.rand", list(sizes), dtype=elem, results=[tensor_of(rewriter.op, sizes, elem)]
    )


def _unchanged(p: float, train) -> bool:
    return not train or p == 0


@register_decomposition("aten.dropout")
def decompose_dropout(op, rewriter):
    """aten.dropout -> aten.native_dropout (when training with p > 0; else the input)"""
    a = rewriter.args
    x, p = a["input"], a["p"]
    if _unchanged(p, a["train"]):
        return x
    return rewriter.build("aten.native_dropout", x, p, a["train"]).results[0]


def _keep_mask(rewriter, x: ir.Value, p: float, per_channel: bool) -> ir.Value:
    """Bernoulli(1 - p) as x's dtype: per element, or per (batch, channel) broadcast over the
    rest (`make_feature_noise`)."""
    sizes = rewriter.sizes(x)
    if per_channel:
        sizes = sizes[:2] + [1] * (len(sizes) - 2)
    u = _rand(rewriter, sizes, dtype(x))
    return to_dtype(rewriter, rewriter.aten("aten.lt.Scalar", u, 1 - p), dtype(x))


def _dropout_impl(op, rewriter, per_channel: bool, alpha: bool):
    a = rewriter.args
    x, p = a["input"], a["p"]
    if _unchanged(p, a["train"]):
        return x
    if per_channel and rank(x) < 2:
        return None  # ATen rejects it: feature dropout needs (N, C, ...)
    if p == 1:  # x * 0, not zeros: NaN and inf stay NaN as in ATen
        return rewriter.aten("aten.mul.Scalar", x, 0)
    keep = _keep_mask(rewriter, x, p, per_channel)
    if not alpha:
        return rewriter.aten("aten.mul.Tensor", x, rewriter.aten("aten.div.Scalar", keep, 1 - p))
    scale = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    # b = (keep - 1) * alpha * scale + alpha * scale * p: where dropped, x's value becomes b.
    b = rewriter.aten(
        "aten.add.Scalar",
        rewriter.aten("aten.mul.Scalar", rewriter.aten("aten.sub.Scalar", keep, 1), _ALPHA * scale),
        _ALPHA * scale * p,
    )
    kept = rewriter.aten("aten.mul.Tensor", x, rewriter.aten("aten.mul.Scalar", keep, scale))
    return rewriter.aten("aten.add.Tensor", kept, b)


_DROPOUT_DOCS = {
    "aten.feature_dropout": (False, "aten.rand, aten.lt.Scalar, aten._to_copy, aten.div.Scalar"),
    "aten.alpha_dropout": (True, "aten.rand, aten.lt.Scalar, aten._to_copy, aten.sub.Scalar"),
    "aten.feature_alpha_dropout": (
        True,
        "aten.rand, aten.lt.Scalar, aten._to_copy, aten.sub.Scalar",
    ),
}
for _name, (_alpha, _targets) in _DROPOUT_DOCS.items():

    def _rule(op, rewriter, _alpha=_alpha, _feature="feature" in _name):
        return _dropout_impl(op, rewriter, per_channel=_feature, alpha=_alpha)

    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    _rule.__doc__ = (
        f"{_name} -> {_targets}, aten.mul.Scalar, aten.add.Scalar, aten.mul.Tensor"
        + (", aten.add.Tensor" if _alpha else "")
        + ": ATen's _dropout_impl"
        + (" with one mask per (batch, channel)" if "feature" in _name else "")
    )
    register_decomposition(_name)(_rule)


@register_decomposition("aten.native_dropout_backward")
def decompose_native_dropout_backward(op, rewriter):
    """aten.native_dropout_backward -> aten._to_copy, aten.mul.Scalar, aten.mul.Tensor:
    grad * (mask * scale)"""
    a = rewriter.args
    grad = a["grad_output"]
    mask = to_dtype(rewriter, a["mask"], dtype(grad))
    return rewriter.aten(
        "aten.mul.Tensor", grad, rewriter.aten("aten.mul.Scalar", mask, a["scale"])
    )


def _rrelu_training(rewriter, x: ir.Value, lower, upper) -> ir.Value:
    """The slope per element: U[lower, upper) where x <= 0, else 1 (ATen's noise)."""
    u = _rand(rewriter, rewriter.sizes(x), dtype(x))
    slope = rewriter.aten(
        "aten.add.Scalar", rewriter.aten("aten.mul.Scalar", u, upper - lower), lower
    )
    nonpositive = rewriter.aten("aten.le.Scalar", x, 0)
    return rewriter.aten(
        "aten.where.self", nonpositive, slope, rewriter.aten("aten.full_like", x, 1)
    )


def _rrelu_eval(rewriter, x, lower, upper):
    return rewriter.aten("aten.leaky_relu", x, (lower + upper) / 2)


@register_decomposition("aten.rrelu")
def decompose_rrelu(op, rewriter):
    """aten.rrelu -> aten.leaky_relu (eval: slope (lower + upper) / 2), or in training aten.rand,
    aten.mul.Scalar, aten.add.Scalar, aten.le.Scalar, aten.full_like, aten.where.self,
    aten.mul.Tensor"""
    a = rewriter.args
    if a.get("generator") is not None:
        return None
    x, lower, upper = a["self"], a["lower"], a["upper"]
    if not a["training"]:
        return _rrelu_eval(rewriter, x, lower, upper)
    return rewriter.aten("aten.mul.Tensor", x, _rrelu_training(rewriter, x, lower, upper))


@register_decomposition("aten.rrelu_with_noise")
def decompose_rrelu_with_noise(op, rewriter):
    """aten.rrelu_with_noise -> aten.leaky_relu, in eval mode only: in training the op writes
    its `noise` operand, which a value-semantics rewrite cannot (its functional form,
    rrelu_with_noise_functional, is decomposed)"""
    a = rewriter.args
    if a["training"]:
        return None
    return _rrelu_eval(rewriter, a["self"], a["lower"], a["upper"])


@register_decomposition("aten.rrelu_with_noise_functional")
def decompose_rrelu_with_noise_functional(op, rewriter):
    """aten.rrelu_with_noise_functional -> aten.leaky_relu (eval; the noise passes through), or
    in training aten.rand, aten.mul.Scalar, aten.add.Scalar, aten.le.Scalar, aten.full_like,
    aten.where.self, aten.mul.Tensor (the slopes are the new noise)"""
    a = rewriter.args
    if a.get("generator") is not None:
        return None
    x, lower, upper = a["self"], a["lower"], a["upper"]
    if not a["training"]:
        return [_rrelu_eval(rewriter, x, lower, upper), a["noise"]]
    noise = _rrelu_training(rewriter, x, lower, upper)
    return [
        rewriter.aten("aten.mul.Tensor", x, noise),
        to_dtype(rewriter, noise, dtype(a["noise"])),
    ]


def _with_replacement(op, rewriter, probs: ir.Value, count: int) -> ir.Value:
    """Inverse CDF: the number of cumulative probabilities <= u for each sample u, at most the
    last category (rounding can leave the last cumulative probability below u)."""
    total = rewriter.aten("aten.sum.dim_IntList", probs, [-1], True)
    cdf = rewriter.aten("aten.cumsum", rewriter.aten("aten.div.Tensor", probs, total), -1)
    sizes = rewriter.sizes(probs)[:-1] + [count]
    u = _rand(rewriter, sizes, dtype(probs))
    below = rewriter.aten(
        "aten.le.Tensor",
        rewriter.aten("aten.unsqueeze", cdf, -2),
        rewriter.aten("aten.unsqueeze", u, -1),
    )
    picked = rewriter.aten("aten.sum.dim_IntList", below, [-1], dtype=torch.int64)
    ones = rewriter.aten("aten.full_like", probs, 1, dtype=torch.int64)
    categories = rewriter.aten("aten.sum.dim_IntList", ones, [-1], True)
    return rewriter.aten("aten.minimum", picked, rewriter.aten("aten.sub.Scalar", categories, 1))


@register_decomposition("aten.multinomial")
def decompose_multinomial(op, rewriter):
    """aten.multinomial -> aten.rand, aten.neg, aten.log1p, aten.div.Tensor, aten.topk (without
    replacement: the k largest p / E with E ~ Exp(1), as ATen samples it), or aten.sum.dim_IntList,
    aten.div.Tensor, aten.cumsum, aten.rand, aten.unsqueeze, aten.le.Tensor, aten.full_like,
    aten.sub.Scalar, aten.minimum (with replacement: the inverse CDF)"""
    a = rewriter.args
    probs, count = a["self"], a["num_samples"]
    if a.get("generator") is not None or not isinstance(count, int):
        return None
    if a["replacement"]:
        return _with_replacement(op, rewriter, probs, count)
    u = _rand(rewriter, rewriter.sizes(probs), dtype(probs))
    exp = rewriter.aten("aten.neg", rewriter.aten("aten.log1p", rewriter.aten("aten.neg", u)))
    keys = rewriter.aten("aten.div.Tensor", probs, exp)
    return rewriter.build("aten.topk", keys, count, -1).results[1]

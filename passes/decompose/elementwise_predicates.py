"""Elementwise predicates and value replacement -> core aten: isclose (ATen's composite, op for
op), isfinite, isposinf/isneginf, isreal, nan_to_num. Integer and bool inputs have no nan or
infinity, so their results are constant (or the input itself)."""

from __future__ import annotations

import math

import torch

from .common import dtype, to_dtype
from .elementwise_common import is_complex, scalar
from .registry import register_decomposition


def _constant_bool(rewriter, like, value: bool):
    return rewriter.aten("aten.full_like", like, value, dtype=torch.bool)


@register_decomposition("aten.isfinite")
def decompose_isfinite(op, rewriter):
    """aten.isfinite -> aten.abs, aten.lt.Scalar: |x| < inf is false for inf and nan (integer and
    bool inputs: aten.full_like true)"""
    x = rewriter.args["self"]
    if is_complex(x):
        return None  # finite real and imag parts: needs real/imag views, not core
    if not dtype(x).is_floating_point:
        return _constant_bool(rewriter, x, True)
    return rewriter.aten("aten.lt.Scalar", rewriter.aten("aten.abs", x), math.inf)


@register_decomposition("aten.isposinf")
def decompose_isposinf(op, rewriter):
    """aten.isposinf -> aten.eq.Scalar (x == inf; never true for integers)"""
    return rewriter.aten("aten.eq.Scalar", rewriter.args["self"], math.inf)


@register_decomposition("aten.isneginf")
def decompose_isneginf(op, rewriter):
    """aten.isneginf -> aten.eq.Scalar (x == -inf; never true for integers)"""
    return rewriter.aten("aten.eq.Scalar", rewriter.args["self"], -math.inf)


@register_decomposition("aten.isreal")
def decompose_isreal(op, rewriter):
    """aten.isreal -> aten.full_like (true: a real input; a complex one needs imag, not core)"""
    x = rewriter.args["self"]
    return None if is_complex(x) else _constant_bool(rewriter, x, True)


@register_decomposition("aten.nan_to_num")
def decompose_nan_to_num(op, rewriter):
    """aten.nan_to_num -> aten.isnan, aten.eq.Scalar, aten.scalar_tensor, aten.where.self: nan,
    +inf, -inf replaced (defaults 0 and the dtype's largest/lowest finite values); integer and
    bool inputs are returned as they are"""
    a = rewriter.args
    x = a["self"]
    elem = dtype(x)
    if elem.is_complex:
        return None  # ATen replaces in the real and imaginary parts separately
    if not elem.is_floating_point:
        return x
    info = torch.finfo(elem)
    replacements = (
        (
            rewriter.aten("aten.eq.Scalar", x, -math.inf),
            info.min if a["neginf"] is None else a["neginf"],
        ),
        (
            rewriter.aten("aten.eq.Scalar", x, math.inf),
            info.max if a["posinf"] is None else a["posinf"],
        ),
        (rewriter.aten("aten.isnan", x), 0.0 if a["nan"] is None else a["nan"]),
    )
    out = x
    for where, value in replacements:
        out = rewriter.aten("aten.where.self", where, scalar(rewriter, value, elem), out)
    return out


@register_decomposition("aten.isclose")
def decompose_isclose(op, rewriter):
    """aten.isclose -> aten.eq.Tensor, aten.isnan, aten.logical_and, aten.logical_or, aten._to_copy,
    aten.mul.Scalar, aten.abs, aten.add.Scalar, aten.sub.Tensor, aten.isfinite, aten.le.Tensor:
    ATen's composite, op for op: a == b, or (with equal_nan) both nan, or a finite |a - b| within
    atol + |rtol * b|; bool operands (and an integer `other`) computed in the default dtype"""
    a = rewriter.args
    x, other = a["self"], a["other"]
    close = rewriter.aten("aten.eq.Tensor", x, other)
    floating = dtype(x).is_floating_point or dtype(x).is_complex
    if a["equal_nan"] and floating:
        both_nan = rewriter.aten(
            "aten.logical_and", rewriter.aten("aten.isnan", x), rewriter.aten("aten.isnan", other)
        )
        close = rewriter.aten("aten.logical_or", close, both_nan)
    if a["rtol"] == 0 and a["atol"] == 0:
        return close
    default = torch.get_default_dtype()
    if dtype(x) == torch.bool:
        x = to_dtype(rewriter, x, default)
    if not (dtype(other).is_floating_point or dtype(other).is_complex):
        other = to_dtype(rewriter, other, default)
    allowed = rewriter.aten(
        "aten.add.Scalar",
        rewriter.aten("aten.abs", rewriter.aten("aten.mul.Scalar", other, a["rtol"])),
        a["atol"],
    )
    actual = rewriter.aten("aten.abs", rewriter.aten("aten.sub.Tensor", x, other))
    within = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.isfinite", actual),
        rewriter.aten("aten.le.Tensor", actual, allowed),
    )
    return rewriter.aten("aten.logical_or", close, within)

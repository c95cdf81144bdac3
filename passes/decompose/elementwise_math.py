"""Elementwise formulas -> core aten, spelled as ATen's CPU kernels compute them (same branches,
same operation order), in the op's opmath dtype (float32 for half/bfloat16) and cast back once.

Kept whole: `signbit` (the sign of a NaN needs a bitcast), `nextafter`, `frexp` (bit-level).
`complex` has no rule: no core op assembles a complex tensor (torch's decomposition writes through
view_as_real; functionalized, it is view_as_complex of a stack, neither of them core).
"""

from __future__ import annotations

import functools
import math

import torch

from .common import to_dtype
from .elementwise_common import (
    cast_all,
    compute_dtype,
    finish,
    is_complex,
    result_dtype,
    scalar,
)
from .registry import keep_whole, register_decomposition

keep_whole(
    "aten.signbit",
    "the sign bit of a NaN (x86 makes -nan from inf - inf) is invisible to comparisons and core "
    "has no bitcast; torch lowers it only to prims.signbit",
)
keep_whole(
    "aten.nextafter",
    "steps one ulp through the bit pattern; core has no bitcast and torch lowers it only to "
    "prims.nextafter",
)
keep_whole(
    "aten.complex",
    "core ATen has no op that makes a complex tensor from real ones; torch's decomposition "
    "writes through view_as_real of an empty complex tensor, a view core lacks",
)
keep_whole(
    "aten.frexp.Tensor",
    "mantissa/exponent extraction is bit-level (log2 misrounds next to powers of two, subnormals); "
    "torch lowers it only to prims.frexp",
)


def _addc(op, rewriter, combine: str):
    """self + value * (t1 `combine` t2), in ATen's order and compute dtype."""
    a = rewriter.args
    x, t1, t2 = cast_all(rewriter, compute_dtype(op), a["self"], a["tensor1"], a["tensor2"])
    if a["value"] != 1:
        t1 = rewriter.aten("aten.mul.Scalar", t1, a["value"])
    return finish(rewriter, op, rewriter.aten("aten.add.Tensor", x, rewriter.aten(combine, t1, t2)))


@register_decomposition("aten.addcmul")
def decompose_addcmul(op, rewriter):
    """aten.addcmul -> aten.mul.Scalar, aten.mul.Tensor, aten.add.Tensor: self + value * t1 * t2
    in ATen's order"""
    return _addc(op, rewriter, "aten.mul.Tensor")


@register_decomposition("aten.addcdiv")
def decompose_addcdiv(op, rewriter):
    """aten.addcdiv -> aten.mul.Scalar, aten.div.Tensor, aten.add.Tensor: self + value * t1 / t2
    in ATen's order"""
    return _addc(op, rewriter, "aten.div.Tensor")


def _scale(factor, op, rewriter):
    (x,) = cast_all(rewriter, result_dtype(op), rewriter.args["self"])
    return rewriter.aten("aten.mul.Scalar", x, factor)


for _name, _factor in (("aten.deg2rad", math.pi / 180), ("aten.rad2deg", 180 / math.pi)):
    _rule = functools.partial(_scale, _factor)
    _rule.__doc__ = f"{_name} -> aten.mul.Scalar (ATen multiplies by the constant)"
    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    register_decomposition(_name)(_rule)


@register_decomposition("aten.frac")
def decompose_frac(op, rewriter):
    """aten.frac -> aten.trunc, aten.sub.Tensor: x - trunc(x) (exact; inf gives nan as in ATen)"""
    x = rewriter.args["self"]
    return rewriter.aten("aten.sub.Tensor", x, rewriter.aten("aten.trunc", x))


@register_decomposition("aten.exp2")
def decompose_exp2(op, rewriter):
    """aten.exp2 -> aten.pow.Scalar: 2 ** x (exact at integers, no exp(x * ln2) error growth)"""
    (x,) = cast_all(rewriter, result_dtype(op), rewriter.args["self"])
    return rewriter.aten("aten.pow.Scalar", 2.0, x)


@register_decomposition("aten.ldexp.Tensor")
def decompose_ldexp(op, rewriter):
    """aten.ldexp.Tensor -> aten.pow.Scalar, aten.mul.Tensor: x * 2.0 ** e, ATen's own body"""
    two_pow = rewriter.aten("aten.pow.Scalar", 2.0, rewriter.args["other"])
    out = rewriter.aten("aten.mul.Tensor", rewriter.args["self"], two_pow)
    return finish(rewriter, op, out)


@register_decomposition("aten.round.decimals")
def decompose_round_decimals(op, rewriter):
    """aten.round.decimals -> aten.mul.Scalar, aten.round, aten.div.Scalar: ATen's kernel, which
    scales by 10**|decimals| (dividing first for negative decimals), rounds half to even
    and unscales"""
    decimals = rewriter.args["decimals"]
    (x,) = cast_all(rewriter, compute_dtype(op), rewriter.args["self"])
    if decimals == 0:
        return finish(rewriter, op, rewriter.aten("aten.round", x))
    ten_pow = 10.0 ** abs(decimals)
    first, second = ("aten.mul.Scalar", "aten.div.Scalar")[:: 1 if decimals > 0 else -1]
    rounded = rewriter.aten("aten.round", rewriter.aten(first, x, ten_pow))
    return finish(rewriter, op, rewriter.aten(second, rounded, ten_pow))


@register_decomposition("aten.lerp.Scalar")
def decompose_lerp_scalar(op, rewriter):
    """aten.lerp.Scalar -> aten.sub.Tensor, aten.add.Tensor: ATen's two branches, chosen by the
    constant weight: start + w * (end - start) for |w| < 0.5, else end + (w - 1) * (end - start)
    (exact at w = 1)"""
    a = rewriter.args
    start, end = cast_all(rewriter, compute_dtype(op), a["self"], a["end"])
    weight = a["weight"]
    diff = rewriter.aten("aten.sub.Tensor", end, start)
    if abs(weight) < 0.5:
        out = rewriter.aten("aten.add.Tensor", start, diff, alpha=weight)
    else:
        out = rewriter.aten("aten.add.Tensor", end, diff, alpha=weight - 1)
    return finish(rewriter, op, out)


@register_decomposition("aten.lerp.Tensor")
def decompose_lerp_tensor(op, rewriter):
    """aten.lerp.Tensor -> aten.sub.Tensor, aten.mul.Tensor, aten.add.Tensor, aten.sub.Scalar,
    aten.abs, aten.lt.Scalar, aten.where.self: ATen's two branches, selected per element by
    |weight| < 0.5"""
    a = rewriter.args
    start, end, w = cast_all(rewriter, compute_dtype(op), a["self"], a["end"], a["weight"])
    diff = rewriter.aten("aten.sub.Tensor", end, start)
    low = rewriter.aten("aten.add.Tensor", start, rewriter.aten("aten.mul.Tensor", w, diff))
    w_minus_1 = rewriter.aten("aten.sub.Scalar", w, 1)
    high = rewriter.aten("aten.add.Tensor", end, rewriter.aten("aten.mul.Tensor", w_minus_1, diff))
    small = rewriter.aten("aten.lt.Scalar", rewriter.aten("aten.abs", w), 0.5)
    return finish(rewriter, op, rewriter.aten("aten.where.self", small, low, high))


def _logaddexp(base2, op, rewriter):
    a, b = rewriter.args["self"], rewriter.args["other"]
    if is_complex(a) or is_complex(b):
        return None  # ATen's complex kernel is a different formula
    a, b = cast_all(rewriter, compute_dtype(op), a, b)
    big = rewriter.aten("aten.maximum", a, b)
    gap = rewriter.aten(
        "aten.neg", rewriter.aten("aten.abs", rewriter.aten("aten.sub.Tensor", a, b))
    )
    if base2:
        tail = rewriter.aten("aten.log1p", rewriter.aten("aten.pow.Scalar", 2.0, gap))
        tail = rewriter.aten("aten.mul.Scalar", tail, 1 / math.log(2))
    else:
        tail = rewriter.aten("aten.log1p", rewriter.aten("aten.exp", gap))
    out = rewriter.aten("aten.add.Tensor", big, tail)
    # Equal infinities: inf - inf would be nan; ATen returns the infinity.
    same_inf = rewriter.aten(
        "aten.logical_and", rewriter.aten("aten.isinf", a), rewriter.aten("aten.eq.Tensor", a, b)
    )
    return finish(rewriter, op, rewriter.aten("aten.where.self", same_inf, a, out))


for _name, _base2, _targets in (
    ("aten.logaddexp", False, "aten.exp, aten.log1p"),
    ("aten.logaddexp2", True, "aten.pow.Scalar, aten.log1p, aten.mul.Scalar"),
):
    _rule = functools.partial(_logaddexp, _base2)
    _rule.__doc__ = (
        f"{_name} -> aten.maximum, aten.sub.Tensor, aten.abs, aten.neg, {_targets}, "
        "aten.add.Tensor, aten.isinf, aten.eq.Tensor, aten.logical_and, aten.where.self: "
        "max + log1p(exp(-|a - b|)) as ATen, equal infinities passed through"
    )
    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    register_decomposition(_name)(_rule)


@register_decomposition("aten.sinc")
def decompose_sinc(op, rewriter):
    """aten.sinc -> aten.mul.Scalar, aten.sin, aten.div.Tensor, aten.eq.Scalar, aten.scalar_tensor,
    aten.where.self: sin(pi x) / (pi x), 1 at x == 0"""
    c = compute_dtype(op)
    (x,) = cast_all(rewriter, c, rewriter.args["self"])
    product = rewriter.aten("aten.mul.Scalar", x, math.pi)
    ratio = rewriter.aten("aten.div.Tensor", rewriter.aten("aten.sin", product), product)
    at_zero = rewriter.aten("aten.eq.Scalar", x, 0)
    return finish(
        rewriter, op, rewriter.aten("aten.where.self", at_zero, scalar(rewriter, 1, c), ratio)
    )


@register_decomposition("aten.logit")
def decompose_logit(op, rewriter):
    """aten.logit -> aten.clamp, aten.neg, aten.add.Scalar, aten.div.Tensor, aten.log:
    log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given (ATen ignores eps < 0)"""
    eps = rewriter.args["eps"]
    (x,) = cast_all(rewriter, compute_dtype(op), rewriter.args["self"])
    if eps is not None and eps >= 0:
        x = rewriter.aten("aten.clamp", x, eps, 1 - eps)
    one_minus = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", x), 1)
    return finish(
        rewriter, op, rewriter.aten("aten.log", rewriter.aten("aten.div.Tensor", x, one_minus))
    )


@register_decomposition("aten.heaviside")
def decompose_heaviside(op, rewriter):
    """aten.heaviside -> aten.eq.Scalar, aten.gt.Scalar, aten._to_copy, aten.where.self:
    values where x == 0, else (x > 0) (so nan gives 0, as ATen)"""
    x, values = rewriter.args["self"], rewriter.args["values"]
    positive = to_dtype(rewriter, rewriter.aten("aten.gt.Scalar", x, 0), result_dtype(op))
    return rewriter.aten("aten.where.self", rewriter.aten("aten.eq.Scalar", x, 0), values, positive)


@register_decomposition("aten.copysign.Tensor")
def decompose_copysign_tensor(op, rewriter):
    """aten.copysign.Tensor -> aten.abs, aten.neg, aten.signbit, aten.where.self (signbit is kept
    whole: it alone sees the sign of a nan)"""
    x, sign = cast_all(rewriter, result_dtype(op), rewriter.args["self"], rewriter.args["other"])
    magnitude = rewriter.aten("aten.abs", x)
    negative = rewriter.aten("aten.signbit", sign)
    return rewriter.aten(
        "aten.where.self", negative, rewriter.aten("aten.neg", magnitude), magnitude
    )


@register_decomposition("aten.copysign.Scalar")
def decompose_copysign_scalar(op, rewriter):
    """aten.copysign.Scalar -> aten.abs, aten.neg: the number's sign (a Python float keeps even a
    nan's sign) is known now"""
    (x,) = cast_all(rewriter, result_dtype(op), rewriter.args["self"])
    magnitude = rewriter.aten("aten.abs", x)
    if math.copysign(1.0, rewriter.args["other"]) < 0:
        return rewriter.aten("aten.neg", magnitude)
    return magnitude


def _fmax_fmin(core_name, op, rewriter):
    a, b = cast_all(rewriter, result_dtype(op), rewriter.args["self"], rewriter.args["other"])
    out = rewriter.aten(core_name, a, b)
    if not result_dtype(op).is_floating_point:
        return out
    # maximum/minimum propagate nan; fmax/fmin take the other operand instead.
    out = rewriter.aten("aten.where.self", rewriter.aten("aten.isnan", b), a, out)
    return rewriter.aten("aten.where.self", rewriter.aten("aten.isnan", a), b, out)


for _name, _core in (("aten.fmax", "aten.maximum"), ("aten.fmin", "aten.minimum")):
    _rule = functools.partial(_fmax_fmin, _core)
    _rule.__doc__ = (
        f"{_name} -> {_core}, aten.isnan, aten.where.self: a nan operand yields the other"
    )
    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    register_decomposition(_name)(_rule)


@register_decomposition("aten.hypot")
def decompose_hypot(op, rewriter):
    """aten.hypot -> aten._to_copy, aten.mul.Tensor, aten.add.Tensor, aten.sqrt, aten.abs,
    aten.maximum, aten.minimum, aten.div.Tensor, aten.add.Scalar, aten.eq.Scalar, aten.isinf,
    aten.logical_or, aten.where.self. Up to float32: sqrt(a*a + b*b) in float64, which neither
    overflows nor underflows there and rounds once. float64: max * sqrt(1 + (min/max)**2)
    (within about an ulp of libm's hypot). Either way an infinity wins over a nan."""
    out_dtype = result_dtype(op)
    a, b = cast_all(rewriter, out_dtype, rewriter.args["self"], rewriter.args["other"])
    mag_a, mag_b = rewriter.aten("aten.abs", a), rewriter.aten("aten.abs", b)
    if out_dtype != torch.float64:
        wide_a, wide_b = cast_all(rewriter, torch.float64, a, b)
        squares = rewriter.aten(
            "aten.add.Tensor",
            rewriter.aten("aten.mul.Tensor", wide_a, wide_a),
            rewriter.aten("aten.mul.Tensor", wide_b, wide_b),
        )
        out = to_dtype(rewriter, rewriter.aten("aten.sqrt", squares), out_dtype)
    else:
        big = rewriter.aten("aten.maximum", mag_a, mag_b)
        ratio = rewriter.aten("aten.div.Tensor", rewriter.aten("aten.minimum", mag_a, mag_b), big)
        root = rewriter.aten(
            "aten.sqrt",
            rewriter.aten("aten.add.Scalar", rewriter.aten("aten.mul.Tensor", ratio, ratio), 1),
        )
        out = rewriter.aten("aten.mul.Tensor", big, root)
        out = rewriter.aten("aten.where.self", rewriter.aten("aten.eq.Scalar", big, 0), big, out)
    infinite = rewriter.aten(
        "aten.logical_or", rewriter.aten("aten.isinf", mag_a), rewriter.aten("aten.isinf", mag_b)
    )
    return rewriter.aten("aten.where.self", infinite, scalar(rewriter, math.inf, out_dtype), out)


@register_decomposition("aten.angle")
def decompose_angle(op, rewriter):
    """aten.angle -> aten.lt.Scalar, aten.scalar_tensor, aten.isnan, aten.where.self (real
    inputs: pi below zero, else 0, nan kept; a complex input needs imag, which is not core)"""
    x = rewriter.args["self"]
    if is_complex(x):
        return None
    out_dtype = result_dtype(op)
    (x,) = cast_all(rewriter, out_dtype, x)
    pi, zero = scalar(rewriter, math.pi, out_dtype), scalar(rewriter, 0, out_dtype)
    signed = rewriter.aten("aten.where.self", rewriter.aten("aten.lt.Scalar", x, 0), pi, zero)
    return rewriter.aten("aten.where.self", rewriter.aten("aten.isnan", x), x, signed)


@register_decomposition("aten.polar")
def decompose_polar(op, rewriter):
    """aten.polar -> aten.cos, aten.sin, aten.mul.Tensor, aten.complex: (r cos t, r sin t)"""
    radius, theta = rewriter.args["abs"], rewriter.args["angle"]
    real = rewriter.aten("aten.mul.Tensor", radius, rewriter.aten("aten.cos", theta))
    imag = rewriter.aten("aten.mul.Tensor", radius, rewriter.aten("aten.sin", theta))
    return rewriter.aten("aten.complex", real, imag)


@register_decomposition("aten.sgn")
def decompose_sgn(op, rewriter):
    """aten.sgn -> aten.sign (real); aten.abs, aten.div.Tensor, aten.eq.Scalar,
    aten.scalar_tensor, aten.where.self (complex: z / |z|, 0 at 0)"""
    x = rewriter.args["self"]
    if not is_complex(x):
        return rewriter.aten("aten.sign", x)
    c = compute_dtype(op)
    (x,) = cast_all(rewriter, c, x)
    magnitude = rewriter.aten("aten.abs", x)
    unit = rewriter.aten("aten.div.Tensor", x, magnitude)
    at_zero = rewriter.aten("aten.eq.Scalar", magnitude, 0)
    return finish(
        rewriter, op, rewriter.aten("aten.where.self", at_zero, scalar(rewriter, 0, c), unit)
    )

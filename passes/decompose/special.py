"""Special functions -> core aten where an exact formula exists (xlogy, xlog1py, entr, ndtr,
mvlgamma over lgamma, log_ndtr over erfc/erfcx), `special_*` aliases -> the ops they forward to,
Python-number overloads -> the Tensor overload.

The rest (gamma family, erfc/erfcx/erfinv, Bessel functions, orthogonal polynomials) are kept
whole: ATen evaluates them with series and rational approximations, torch lowers them only to
prims, and core has nothing to spell them with; the nearest core formulas (1 - erf(x) for erfc)
cancel catastrophically.
"""

from __future__ import annotations

import functools
import math

from .elementwise_common import (
    cast_all,
    compute_dtype,
    finish,
    register_renamed,
    register_scalar_overload,
    result_dtype,
    scalar,
)
from .registry import keep_whole, register_decomposition

_PRIMS_ONLY = "torch lowers it only to prims.{}; core has no op to build it from"
_KEPT = {
    "aten.erfc": "1 - erf(x) cancels to 0 for x >~ 4 (erfc(10) = 2e-45); "
    + _PRIMS_ONLY.format("erfc"),
    "aten.special_erfcx": "exp(x*x) * erfc(x) overflows and cancels for large x; "
    + _PRIMS_ONLY.format("erfcx"),
    "aten.erfinv": _PRIMS_ONLY.format("erf_inv"),
    "aten.special_ndtri": _PRIMS_ONLY.format("ndtri"),
    "aten.lgamma": _PRIMS_ONLY.format("lgamma"),
    "aten.digamma": _PRIMS_ONLY.format("digamma"),
    "aten.polygamma": "torch has no decomposition (ATen dispatches on n to digamma, trigamma or "
    "a Hurwitz-zeta series); core has no op to build it from",
    "aten.igamma": _PRIMS_ONLY.format("igamma"),
    "aten.igammac": _PRIMS_ONLY.format("igammac"),
    "aten.special_zeta": _PRIMS_ONLY.format("zeta"),
    "aten.i0": _PRIMS_ONLY.format("bessel_i0"),
    "aten.special_i0e": _PRIMS_ONLY.format("bessel_i0e"),
    "aten.special_i1": _PRIMS_ONLY.format("bessel_i1"),
    "aten.special_i1e": _PRIMS_ONLY.format("bessel_i1e"),
    "aten.special_bessel_j0": _PRIMS_ONLY.format("bessel_j0"),
    "aten.special_bessel_j1": _PRIMS_ONLY.format("bessel_j1"),
    "aten.special_spherical_bessel_j0": _PRIMS_ONLY.format("spherical_bessel_j0"),
}
_CEPHES = (
    "ATen evaluates it with Cephes-style rational approximations per range; torch has no "
    "decomposition and core has no op to build it from"
)
for _name in (
    "aten.special_bessel_y0",
    "aten.special_bessel_y1",
    "aten.special_modified_bessel_i0",
    "aten.special_modified_bessel_i1",
    "aten.special_modified_bessel_k0",
    "aten.special_modified_bessel_k1",
    "aten.special_scaled_modified_bessel_k0",
    "aten.special_scaled_modified_bessel_k1",
    "aten.special_airy_ai",
):
    _KEPT[_name] = _CEPHES
# each polynomial (kept whole) with its overloads taking a Python number for x and for n
_POLYNOMIALS = (
    (
        "aten.special_chebyshev_polynomial_t",
        "aten.special_chebyshev_polynomial_t.x_scalar",
        "aten.special_chebyshev_polynomial_t.n_scalar",
    ),
    (
        "aten.special_chebyshev_polynomial_u",
        "aten.special_chebyshev_polynomial_u.x_scalar",
        "aten.special_chebyshev_polynomial_u.n_scalar",
    ),
    (
        "aten.special_chebyshev_polynomial_v",
        "aten.special_chebyshev_polynomial_v.x_scalar",
        "aten.special_chebyshev_polynomial_v.n_scalar",
    ),
    (
        "aten.special_chebyshev_polynomial_w",
        "aten.special_chebyshev_polynomial_w.x_scalar",
        "aten.special_chebyshev_polynomial_w.n_scalar",
    ),
    (
        "aten.special_shifted_chebyshev_polynomial_t",
        "aten.special_shifted_chebyshev_polynomial_t.x_scalar",
        "aten.special_shifted_chebyshev_polynomial_t.n_scalar",
    ),
    (
        "aten.special_shifted_chebyshev_polynomial_u",
        "aten.special_shifted_chebyshev_polynomial_u.x_scalar",
        "aten.special_shifted_chebyshev_polynomial_u.n_scalar",
    ),
    (
        "aten.special_shifted_chebyshev_polynomial_v",
        "aten.special_shifted_chebyshev_polynomial_v.x_scalar",
        "aten.special_shifted_chebyshev_polynomial_v.n_scalar",
    ),
    (
        "aten.special_shifted_chebyshev_polynomial_w",
        "aten.special_shifted_chebyshev_polynomial_w.x_scalar",
        "aten.special_shifted_chebyshev_polynomial_w.n_scalar",
    ),
    (
        "aten.special_hermite_polynomial_h",
        "aten.special_hermite_polynomial_h.x_scalar",
        "aten.special_hermite_polynomial_h.n_scalar",
    ),
    (
        "aten.special_hermite_polynomial_he",
        "aten.special_hermite_polynomial_he.x_scalar",
        "aten.special_hermite_polynomial_he.n_scalar",
    ),
    (
        "aten.special_laguerre_polynomial_l",
        "aten.special_laguerre_polynomial_l.x_scalar",
        "aten.special_laguerre_polynomial_l.n_scalar",
    ),
    (
        "aten.special_legendre_polynomial_p",
        "aten.special_legendre_polynomial_p.x_scalar",
        "aten.special_legendre_polynomial_p.n_scalar",
    ),
)
for _name, _, _ in _POLYNOMIALS:
    _KEPT[_name] = (
        "a recurrence whose trip count is the runtime tensor n (with closed forms for some x); "
        "torch has no decomposition and core has no loop"
    )
for _op, _reason in _KEPT.items():
    keep_whole(_op, _reason)

# Overloads taking a Python number: ATen wraps it into a tensor and calls the Tensor overload.
for _source, _target, _arg in (
    ("aten.special_zeta.self_scalar", "aten.special_zeta", "self"),
    ("aten.special_zeta.other_scalar", "aten.special_zeta", "other"),
    ("aten.xlogy.Scalar_Self", "aten.xlogy.Tensor", "self"),
    ("aten.xlogy.Scalar_Other", "aten.xlogy.Tensor", "other"),
    ("aten.special_xlog1py.self_scalar", "aten.special_xlog1py", "self"),
    ("aten.special_xlog1py.other_scalar", "aten.special_xlog1py", "other"),
    *(
        row
        for name, x_scalar, n_scalar in _POLYNOMIALS
        for row in ((x_scalar, name, "x"), (n_scalar, name, "n"))
    ),
):
    register_scalar_overload(_source, _target, _arg)

# `special_*` names ATen forwards to another op unchanged (CompositeImplicitAutograd).
for _source, _target in (
    ("aten.special_expit", "aten.sigmoid"),
    ("aten.special_exp2", "aten.exp2"),
    ("aten.special_expm1", "aten.expm1"),
    ("aten.special_log1p", "aten.log1p"),
    ("aten.special_round", "aten.round.decimals"),
    ("aten.special_sinc", "aten.sinc"),
    ("aten.special_logit", "aten.logit"),
    ("aten.special_erf", "aten.erf"),
    ("aten.special_erfc", "aten.erfc"),
    ("aten.special_erfinv", "aten.erfinv"),
    ("aten.special_gammaln", "aten.lgamma"),
    ("aten.special_digamma", "aten.digamma"),
    ("aten.special_psi", "aten.digamma"),
    ("aten.special_i0", "aten.i0"),
    ("aten.special_multigammaln", "aten.mvlgamma"),
    ("aten.special_polygamma", "aten.polygamma"),
    ("aten.special_gammainc", "aten.igamma"),
    ("aten.special_gammaincc", "aten.igammac"),
    ("aten.special_xlogy", "aten.xlogy.Tensor"),
    ("aten.special_xlogy.self_scalar", "aten.xlogy.Scalar_Self"),
    ("aten.special_xlogy.other_scalar", "aten.xlogy.Scalar_Other"),
    ("aten.special_log_softmax", "aten.log_softmax.int"),
    ("aten.special_softmax", "aten.softmax.int"),
    ("aten.special_logsumexp", "aten.logsumexp"),
):
    register_renamed(_source, _target)


def _x_log(log_name, op, rewriter):
    c = compute_dtype(op)
    x, y = cast_all(rewriter, c, rewriter.args["self"], rewriter.args["other"])
    product = rewriter.aten("aten.mul.Tensor", x, rewriter.aten(log_name, y))
    zero = rewriter.aten("aten.eq.Scalar", x, 0)
    out = rewriter.aten("aten.where.self", zero, scalar(rewriter, 0, c), product)
    out = rewriter.aten("aten.where.self", rewriter.aten("aten.isnan", y), y, out)
    return finish(rewriter, op, out)


for _source, _log in (("aten.xlogy.Tensor", "aten.log"), ("aten.special_xlog1py", "aten.log1p")):
    _rule = functools.partial(_x_log, _log)
    _rule.__doc__ = (
        f"{_source} -> {_log}, aten.mul.Tensor, aten.eq.Scalar, aten.isnan, aten.scalar_tensor, "
        f"aten.where.self: ATen's kernel: nan if y is nan, else 0 if x == 0, else x * {_log[5:]}(y)"
    )
    _rule.__name__ = f"decompose_{_source[5:].replace('.', '_')}"
    register_decomposition(_source)(_rule)


@register_decomposition("aten.special_entr")
def decompose_special_entr(op, rewriter):
    """aten.special_entr -> aten.neg, aten.log, aten.mul.Tensor, aten.eq.Scalar, aten.lt.Scalar,
    aten.scalar_tensor, aten.where.self: -x log x, 0 at 0, -inf below 0, nan kept"""
    c = compute_dtype(op)
    (x,) = cast_all(rewriter, c, rewriter.args["self"])
    out = rewriter.aten(
        "aten.mul.Tensor", rewriter.aten("aten.neg", x), rewriter.aten("aten.log", x)
    )
    out = rewriter.aten(
        "aten.where.self", rewriter.aten("aten.eq.Scalar", x, 0), scalar(rewriter, 0, c), out
    )
    below = rewriter.aten("aten.lt.Scalar", x, 0)
    return finish(
        rewriter, op, rewriter.aten("aten.where.self", below, scalar(rewriter, -math.inf, c), out)
    )


@register_decomposition("aten.special_ndtr")
def decompose_special_ndtr(op, rewriter):
    """aten.special_ndtr -> aten.mul.Scalar, aten.erf, aten.add.Scalar: (1 + erf(x / sqrt 2)) / 2,
    ATen's own composite op for op (so it matches eager, including its loss far below zero)"""
    scaled = rewriter.aten("aten.mul.Scalar", rewriter.args["self"], math.sqrt(0.5))
    shifted = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.erf", scaled), 1)
    return rewriter.aten("aten.mul.Scalar", shifted, 0.5)


@register_decomposition("aten.special_log_ndtr")
def decompose_special_log_ndtr(op, rewriter):
    """aten.special_log_ndtr -> aten.mul.Scalar, aten.neg, aten.special_erfcx, aten.erfc,
    aten.div.Scalar, aten.log, aten.log1p, aten.mul.Tensor, aten.sub.Tensor, aten.lt.Scalar,
    aten.where.self: ATen's two branches, log(erfcx(-t) / 2) - t*t below x = -1, else
    log1p(-erfc(t) / 2), t = x / sqrt 2 (erfc and erfcx are kept whole)"""
    c = compute_dtype(op)
    (x,) = cast_all(rewriter, c, rewriter.args["self"])
    t = rewriter.aten("aten.mul.Scalar", x, math.sqrt(0.5))
    scaled = rewriter.aten("aten.special_erfcx", rewriter.aten("aten.neg", t))
    low = rewriter.aten(
        "aten.sub.Tensor",
        rewriter.aten("aten.log", rewriter.aten("aten.div.Scalar", scaled, 2)),
        rewriter.aten("aten.mul.Tensor", t, t),
    )
    tail = rewriter.aten("aten.div.Scalar", rewriter.aten("aten.erfc", t), 2)
    high = rewriter.aten("aten.log1p", rewriter.aten("aten.neg", tail))
    below = rewriter.aten("aten.lt.Scalar", x, -1)
    return finish(rewriter, op, rewriter.aten("aten.where.self", below, low, high))


@register_decomposition("aten.mvlgamma")
def decompose_mvlgamma(op, rewriter):
    """aten.mvlgamma -> aten.arange.start_step, aten.unsqueeze, aten.add.Tensor, aten.lgamma,
    aten.sum.dim_IntList, aten.add.Scalar: ATen's body, sum_j lgamma(x - j/2) + p(p-1)/4 log(pi)
    (eager's check that x > (p-1)/2 reads the data; a compiled program cannot raise)"""
    p = rewriter.args["p"]
    out_dtype = result_dtype(op)  # as ATen: no opmath upcast here
    (x,) = cast_all(rewriter, out_dtype, rewriter.args["self"])
    offsets = rewriter.aten("aten.arange.start_step", -p * 0.5 + 0.5, 0.5, 0.5, dtype=out_dtype)
    shifted = rewriter.aten("aten.add.Tensor", offsets, rewriter.aten("aten.unsqueeze", x, -1))
    terms = rewriter.aten("aten.sum.dim_IntList", rewriter.aten("aten.lgamma", shifted), [-1])
    return rewriter.aten("aten.add.Scalar", terms, p * (p - 1) * math.log(math.pi) * 0.25)

"""Activations and clamps -> one `linalg.generic` each, with ATen's CPU kernel formulas.

Clamps are compare-and-select rather than max/min so that they keep ATen's answers exactly: a NaN
input stays NaN, a NaN bound gives NaN, and a signed zero equal to the bound is kept (relu(-0.0)
is -0.0). Scalar bounds are first rounded to the result dtype, as `Scalar::to<scalar_t>` does.
"""

from __future__ import annotations

import math as pymath

import torch
from mlir import ir
from mlir.dialects import arith, math

from .builder import convert, is_float
from .elementwise_core import elementwise, opmath
from .registry import register_lowering
from .unary import arg
from .unary_pow import result_dtype, rounded

F = arith.CmpFPredicate


def _clamp_body(lo, hi):
    """Scalar bounds (Python numbers, symbolic scalars or None) -> the body clamping one
    element."""
    nan_bound = any(isinstance(b, float) and pymath.isnan(b) for b in (lo, hi))

    def body(x):
        t = x.type
        low, high = _bound(lo, t), _bound(hi, t)
        if not is_float(t):
            return _int_clamp(x, low, high)
        if nan_bound:
            return arith.constant(t, float("nan"))
        r = x
        if low is not None:
            r = arith.select(arith.cmpf(F.OLT, r, low), low, r)
        if high is not None:
            r = arith.select(arith.cmpf(F.OGT, r, high), high, r)
        return r

    return body


def _int_clamp(x, low, high):
    """min(max(x, low), high) on integers; bools (i1) order false < true (unsigned)."""
    bool_ = ir.IntegerType(x.type).width == 1
    r = x if low is None else (arith.maxui if bool_ else arith.maxsi)(x, low)
    return r if high is None else (arith.minui if bool_ else arith.minsi)(r, high)


def _bound(b, t: ir.Type):
    """Bound `b` as a scalar of type `t` (inside the body: a symbolic one is converted there,
    where the compiled loop does it, not in @main)."""
    if b is None:
        return None
    if not isinstance(b, ir.Value):
        return arith.constant(t, float(b) if is_float(t) else int(b))
    if isinstance(b.type, ir.IndexType):
        b = arith.index_cast(ir.IntegerType.get_signless(64), b)
    return convert(b, t)


def _scalar_bounds(rw, *bounds):
    """The bounds as ATen reads them in the result dtype (`Scalar::to<scalar_t>`); None where
    the result is complex."""
    out = result_dtype(rw)
    if out.is_complex:
        return None
    return [b if b is None or isinstance(b, ir.Value) else rounded(b, out) for b in bounds]


@register_lowering("aten.clamp")
def lower_clamp(op, rw):
    """aten.clamp -> linalg.generic(arith.cmpf, arith.select / arith.maxsi, arith.minsi)"""
    bounds = _scalar_bounds(rw, rw.args.get("min"), rw.args.get("max"))
    if bounds is None:
        return None
    return elementwise(rw, [rw.args["self"]], _clamp_body(*bounds))


@register_lowering("aten.hardtanh")
def lower_hardtanh(op, rw):
    """aten.hardtanh -> linalg.generic(arith.cmpf, arith.select / arith.maxsi, arith.minsi)"""
    bounds = _scalar_bounds(rw, arg(rw, "min_val"), arg(rw, "max_val"))
    if bounds is None:
        return None
    return elementwise(rw, [rw.args["self"]], _clamp_body(*bounds))


@register_lowering("aten.relu")
def lower_relu(op, rw):
    """aten.relu -> linalg.generic(arith.cmpf, arith.select / arith.maxsi)"""
    if result_dtype(rw) == torch.bool or result_dtype(rw).is_complex:
        return None
    return elementwise(rw, [rw.args["self"]], _clamp_body(0, None))


@register_lowering("aten.clamp.Tensor")
def lower_clamp_tensor(op, rw):
    """aten.clamp.Tensor -> linalg.generic(arith.cmpf, arith.select / arith.maxsi, arith.minsi)"""
    a = rw.args
    if result_dtype(rw).is_complex:
        return None
    lo, hi = a.get("min"), a.get("max")
    operands = [a["self"]] + [b for b in (lo, hi) if b is not None]

    def body(x, *bounds):
        it = iter(bounds)
        low = next(it) if lo is not None else None
        high = next(it) if hi is not None else None
        if not is_float(x.type):
            return _int_clamp(x, low, high)
        # ATen's scalar kernel: NaN if a bound is NaN, else min(max(x, lo), hi) (NaN x stays)
        r = x
        if low is not None:
            take = arith.ori(arith.cmpf(F.OLT, r, low), arith.cmpf(F.UNO, low, low))
            r = arith.select(take, low, r)
        if high is not None:
            take = arith.ori(arith.cmpf(F.OGT, r, high), arith.cmpf(F.UNO, high, high))
            r = arith.select(take, high, r)
        return r

    return elementwise(rw, operands, body)


def _float_only(rw) -> bool:
    return is_float(rw.result_type().element_type)


def _in_compute(rw, value) -> float:
    """`value` as ATen's kernel holds it: in the opmath type of the result."""
    return rounded(value, opmath(result_dtype(rw)))


@register_lowering("aten.leaky_relu")
def lower_leaky_relu(op, rw):
    """aten.leaky_relu -> linalg.generic(arith.cmpf, arith.mulf, arith.select)"""
    if not _float_only(rw) or isinstance(arg(rw, "negative_slope"), ir.Value):
        return None
    slope = _in_compute(rw, arg(rw, "negative_slope"))

    def body(x):
        scaled = arith.mulf(x, arith.constant(x.type, float(slope)))
        return arith.select(arith.cmpf(F.OGT, x, arith.constant(x.type, 0.0)), x, scaled)

    return elementwise(rw, [rw.args["self"]], body)


@register_lowering("aten.elu")
def lower_elu(op, rw):
    """aten.elu -> linalg.generic(math.exp, math.log, arith)"""
    a = {k: arg(rw, k) for k in ("self", "alpha", "scale", "input_scale")}
    if not _float_only(rw) or any(
        isinstance(a[k], ir.Value) for k in ("alpha", "scale", "input_scale")
    ):
        return None
    cdt = opmath(result_dtype(rw))
    # ATen: negcoef = alpha * scale, formed in the compute type
    negcoef = (torch.tensor(float(a["alpha"]), dtype=cdt) * float(a["scale"])).item()
    poscoef, inscale = _in_compute(rw, a["scale"]), _in_compute(rw, a["input_scale"])

    def body(x):
        t = x.type
        neg = arith.mulf(
            math.expm1(arith.mulf(x, arith.constant(t, inscale))), arith.constant(t, negcoef)
        )
        pos = arith.mulf(x, arith.constant(t, poscoef))
        return arith.select(arith.cmpf(F.OLE, x, arith.constant(t, 0.0)), neg, pos)

    return elementwise(rw, [a["self"]], body)


_SQRT1_2 = 0.70710678118654752440
_CONTRACT = "#arith.fastmath<contract>"
_TANH_BETA = 1.41421356237309504880 * 1.12837916709551257390 * 0.5  # sqrt(2) * 2/sqrt(pi) / 2
_TANH_KAPPA = 0.044715


@register_lowering("aten.gelu")
def lower_gelu(op, rw):
    """aten.gelu -> linalg.generic(math.erf / math.tanh, arith)"""
    approximate = arg(rw, "approximate")
    if not _float_only(rw) or approximate not in ("none", "tanh"):
        return None

    def body(x):
        t = x.type

        def c(v):
            return arith.constant(t, v)

        half_x = arith.mulf(x, c(0.5))
        if approximate == "none":
            # h + h erf as one FMA (ATen: h (1 + erf), two roundings; this is as close or
            # closer, and saves an add per register in the row loops)
            e = math.erf(arith.mulf(x, c(_SQRT1_2)))
            contract = ir.Attribute.parse(_CONTRACT)
            return arith.addf(arith.mulf(half_x, e, fastmath=contract), half_x, fastmath=contract)
        cube = arith.mulf(arith.mulf(x, x), x)
        inner = arith.mulf(c(_TANH_BETA), arith.addf(x, arith.mulf(c(_TANH_KAPPA), cube)))
        return arith.mulf(half_x, arith.addf(c(1.0), math.tanh(inner)))

    return elementwise(rw, [rw.args["self"]], body)

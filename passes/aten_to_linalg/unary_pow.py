"""pow (all three overloads) and atan2 -> one `linalg.generic` each.

pow follows ATen's CPU kernel: a Scalar exponent of 2, 3, -2, 0.5, -0.5 or -1 becomes
multiplications, sqrt or a division, 0 gives ones and 1 a copy; other float exponents call
math.powf. Integer powers use math.ipowi guarded for negative exponents (ATen's powi gives 0,
or +-1 for bases +-1; MLIR's ipowi divides by zero there).
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith, math

from aten_mlir.dialects import dtype_of

from .builder import elem, is_float
from .elementwise_core import elementwise, float_compute, opmath
from .registry import register_lowering

I = arith.CmpIPredicate  # noqa: E741


def rounded(value, dtype: torch.dtype):
    """The Python number `value` as torch stores it in `dtype` (ATen's `Scalar::to<T>`)."""
    if isinstance(value, bool) or not dtype.is_floating_point:
        return value
    return torch.tensor(float(value), dtype=torch.float64).to(dtype).item()


def result_dtype(rw) -> torch.dtype:
    return dtype_of(elem(rw.op.results[0].type))


def ipow(a: ir.Value, b: ir.Value) -> ir.Value:
    """ATen's powi: a ** b on integers; b < 0 gives 0 except for bases 1 and -1."""
    t = a.type
    zero, one = arith.constant(t, 0), arith.constant(t, 1)
    minus_one = arith.constant(t, -1)
    power = math.ipowi(a, arith.maxsi(b, zero))
    odd = arith.cmpi(I.ne, arith.andi(b, one), zero)
    for_minus_one = arith.select(odd, minus_one, one)
    negative = arith.select(
        arith.cmpi(I.eq, a, one),
        one,
        arith.select(arith.cmpi(I.eq, a, minus_one), for_minus_one, zero),
    )
    return arith.select(arith.cmpi(I.slt, b, zero), negative, power)


def _pow(a: ir.Value, b: ir.Value) -> ir.Value:
    return math.powf(a, b) if is_float(a.type) else ipow(a, b)


def _scalar_exponent_body(exponent):
    """The body of x ** exponent for a constant exponent, with ATen's special cases."""

    def one_over(x, y):
        return arith.divf(arith.constant(x.type, 1.0), y)

    def body(x):
        t = x.type
        if exponent == 0:
            return arith.constant(t, 1.0 if is_float(t) else 1)
        if exponent == 1:
            return x
        if not is_float(t):
            return ipow(x, arith.constant(t, int(exponent)))
        if exponent == 2:
            return arith.mulf(x, x)
        if exponent == 3:
            return arith.mulf(arith.mulf(x, x), x)
        if exponent == -2:
            return one_over(x, arith.mulf(x, x))
        if exponent == 0.5:
            return math.sqrt(x)
        if exponent == -0.5:
            return one_over(x, math.sqrt(x))
        if exponent == -1:
            return one_over(x, x)
        return math.powf(x, arith.constant(t, float(exponent)))

    return body


@register_lowering("aten.pow.Tensor_Scalar")
def lower_pow_tensor_scalar(op, rw):
    """aten.pow.Tensor_Scalar -> linalg.generic(arith.mulf/divf, math.sqrt/powf/ipowi)"""
    exponent = rw.args["exponent"]
    out = result_dtype(rw)
    if out == torch.bool or out.is_complex:
        return None
    if isinstance(exponent, ir.Value):
        return None  # a symbolic exponent (from a fallback's scalar): left to eager
    if isinstance(exponent, bool):
        exponent = int(exponent)
    if out.is_floating_point:
        exponent = rounded(exponent, out) if out in (torch.float16, torch.bfloat16) else exponent
    elif not isinstance(exponent, int):
        return None  # an int result has an int exponent (torch promotes otherwise)
    return elementwise(rw, [rw.args["self"]], _scalar_exponent_body(exponent))


@register_lowering("aten.pow.Tensor_Tensor")
def lower_pow_tensor_tensor(op, rw):
    """aten.pow.Tensor_Tensor -> linalg.generic(math.powf / math.ipowi)"""
    if result_dtype(rw) == torch.bool or result_dtype(rw).is_complex:
        return None
    return elementwise(rw, [rw.args["self"], rw.args["exponent"]], _pow)


@register_lowering("aten.pow.Scalar")
def lower_pow_scalar(op, rw):
    """aten.pow.Scalar -> linalg.generic(math.powf / math.ipowi)"""
    base = rw.args["self"]
    out = result_dtype(rw)
    if out == torch.bool or out.is_complex or isinstance(base, ir.Value):
        return None
    if isinstance(base, bool):
        base = int(base)
    if base == 1:  # ATen: ones, whatever the exponent (NaN included)
        return elementwise(rw, [rw.args["exponent"]], lambda e: _one(e.type))
    base = rounded(base, out)  # the base is wrapped as a tensor of the result dtype
    if not out.is_floating_point:
        base = int(base)
    return elementwise(rw, [base, rw.args["exponent"]], _pow)


def _one(t):
    return arith.constant(t, 1.0 if is_float(t) else 1)


def _atan2(rw, result=None):
    a = rw.args
    compute = opmath(float_compute(a["self"], a["other"]))
    return elementwise(rw, [a["self"], a["other"]], math.atan2, compute=compute, result=result)


@register_lowering("aten.atan2")
def lower_atan2(op, rw):
    """aten.atan2 -> linalg.generic(math.atan2)"""
    if not is_float(rw.result_type().element_type):
        return None
    return _atan2(rw)


@register_lowering("aten.atan2.out")
def lower_atan2_out(op, rw):
    """aten.atan2.out -> linalg.generic(math.atan2)"""
    # out= only fixes the result type: its contents are overwritten, never read
    if not is_float(rw.result_type().element_type):
        return None
    return _atan2(rw, result=rw.result_type())

"""Elementwise variants -> core aten: scalar forms of `where`, `rsub`, aliases and dunder
spellings, float_power, and the bitwise overloads. Formulas live in `elementwise_math`,
predicates (isclose, isfinite, nan_to_num...) in `elementwise_predicates`.

The result dtype of a rewritten op is the one the imported op already carries (promotion was
resolved by export); rules that materialise a scalar give it that dtype explicitly.
"""

from __future__ import annotations

import functools

import torch

from aten_mlir.dialects import dtype_of

from .common import to_dtype
from .elementwise_common import register_renamed, register_scalar_overload, result_dtype
from .registry import keep_whole, register_decomposition


def _result_dtype(op):
    return dtype_of(op.results[0].type.element_type)


@register_decomposition("aten.where.ScalarSelf")
def decompose_where_scalar_self(op, rewriter):
    """aten.where.ScalarSelf -> aten.full_like, aten.where.self"""
    cond, value, other = (rewriter.args[k] for k in ("condition", "self", "other"))
    filled = rewriter.aten("aten.full_like", other, value, dtype=_result_dtype(op))
    return rewriter.aten("aten.where.self", cond, filled, other)


@register_decomposition("aten.where.ScalarOther")
def decompose_where_scalar_other(op, rewriter):
    """aten.where.ScalarOther -> aten.full_like, aten.where.self"""
    cond, x, value = (rewriter.args[k] for k in ("condition", "self", "other"))
    filled = rewriter.aten("aten.full_like", x, value, dtype=_result_dtype(op))
    return rewriter.aten("aten.where.self", cond, x, filled)


@register_decomposition("aten.where.Scalar")
def decompose_where_scalar(op, rewriter):
    """aten.where.Scalar -> aten.full_like, aten.where.self"""
    cond, a, b = (rewriter.args[k] for k in ("condition", "self", "other"))
    dtype = _result_dtype(op)
    filled_a = rewriter.aten("aten.full_like", cond, a, dtype=dtype)
    filled_b = rewriter.aten("aten.full_like", cond, b, dtype=dtype)
    return rewriter.aten("aten.where.self", cond, filled_a, filled_b)


@register_decomposition("aten.rsub.Tensor")
def decompose_rsub_tensor(op, rewriter):
    """aten.rsub.Tensor -> aten.sub.Tensor (operands swapped)"""
    x, other, alpha = (rewriter.args[k] for k in ("self", "other", "alpha"))
    if not hasattr(other, "type"):
        return None  # a wrapped-number `other`: rsub.Scalar's form, handled there
    return rewriter.aten("aten.sub.Tensor", other, x, alpha=alpha)


@register_decomposition("aten.rsub.Scalar")
def decompose_rsub_scalar(op, rewriter):
    """aten.rsub.Scalar -> aten.mul.Scalar, aten.add.Scalar: (-alpha * x) + other, which IEEE
    arithmetic rounds exactly as other - alpha * x"""
    x, other, alpha = (rewriter.args[k] for k in ("self", "other", "alpha"))
    return rewriter.aten("aten.add.Scalar", rewriter.aten("aten.mul.Scalar", x, -alpha), other)


# Aliases and spellings ATen forwards verbatim (`floor_divide` is `div_floor`: Python semantics,
# ints and signed zeros included; `square` is `pow(x, 2)`, so bool squares to int64).
for _source, _target, _fixed in (
    ("aten.true_divide.Tensor", "aten.div.Tensor", {}),
    ("aten.true_divide.Scalar", "aten.div.Scalar", {}),
    ("aten.floor_divide", "aten.div.Tensor_mode", {"rounding_mode": "floor"}),
    ("aten.floor_divide.Scalar", "aten.div.Scalar_mode", {"rounding_mode": "floor"}),
    ("aten.clamp_min.Tensor", "aten.clamp.Tensor", {}),
    ("aten.clamp_max.Tensor", "aten.clamp.Tensor", {}),
    ("aten.square", "aten.pow.Tensor_Scalar", {"exponent": 2}),
    ("aten.__and__.Tensor", "aten.bitwise_and.Tensor", {}),
    ("aten.__and__.Scalar", "aten.bitwise_and.Scalar", {}),
    ("aten.__or__.Tensor", "aten.bitwise_or.Tensor", {}),
    ("aten.__or__.Scalar", "aten.bitwise_or.Scalar", {}),
    ("aten.__xor__.Tensor", "aten.bitwise_xor.Tensor", {}),
    ("aten.__xor__.Scalar", "aten.bitwise_xor.Scalar", {}),
    ("aten.__lshift__.Tensor", "aten.bitwise_left_shift.Tensor", {}),
    ("aten.__lshift__.Scalar", "aten.bitwise_left_shift.Tensor_Scalar", {}),
    ("aten.__rshift__.Tensor", "aten.bitwise_right_shift.Tensor", {}),
    ("aten.__rshift__.Scalar", "aten.bitwise_right_shift.Tensor_Scalar", {}),
):
    register_renamed(_source, _target, **_fixed)

for _shift, _tensor_scalar, _scalar_tensor in (
    (
        "aten.bitwise_left_shift.Tensor",
        "aten.bitwise_left_shift.Tensor_Scalar",
        "aten.bitwise_left_shift.Scalar_Tensor",
    ),
    (
        "aten.bitwise_right_shift.Tensor",
        "aten.bitwise_right_shift.Tensor_Scalar",
        "aten.bitwise_right_shift.Scalar_Tensor",
    ),
):
    keep_whole(
        _shift,
        "core has no shift op and arithmetic cannot spell ATen's out-of-range rule (0, or the sign "
        "fill, for shifts < 0 or >= the bit width) without overflow; torch lowers it only to "
        "prims.shift_left/shift_right_arithmetic",
    )
    register_scalar_overload(_tensor_scalar, _shift, "other")
    register_scalar_overload(_scalar_tensor, _shift, "self")


def _bitwise_scalar_tensor(core_name, op, rewriter):
    # and/or/xor commute, and `number op tensor` promotes exactly as `tensor op number`.
    return rewriter.aten(core_name, rewriter.args["other"], rewriter.args["self"])


for _op_name, _core_name in (
    ("aten.bitwise_and.Scalar_Tensor", "aten.bitwise_and.Scalar"),
    ("aten.bitwise_or.Scalar_Tensor", "aten.bitwise_or.Scalar"),
    ("aten.bitwise_xor.Scalar_Tensor", "aten.bitwise_xor.Scalar"),
):
    _rule = functools.partial(_bitwise_scalar_tensor, _core_name)
    _rule.__doc__ = f"{_op_name} -> {_core_name} (operands swapped)"
    _rule.__name__ = "decompose_" + _op_name.removeprefix("aten.").replace(".", "_").lower()
    register_decomposition(_op_name)(_rule)


def _float_power_operand(rewriter, value, target):
    if hasattr(value, "type"):
        return to_dtype(rewriter, value, target)
    return complex(value) if target.is_complex else float(value)


def _float_power(core_name, op, rewriter):
    target = result_dtype(op)  # float64, or complex128 when an operand is complex
    base = _float_power_operand(rewriter, rewriter.args["self"], target)
    exponent = _float_power_operand(rewriter, rewriter.args["exponent"], target)
    return rewriter.aten(core_name, base, exponent)


for _op_name, _core_name in (
    ("aten.float_power.Tensor_Tensor", "aten.pow.Tensor_Tensor"),
    ("aten.float_power.Tensor_Scalar", "aten.pow.Tensor_Scalar"),
    ("aten.float_power.Scalar", "aten.pow.Scalar"),
):
    _rule = functools.partial(_float_power, _core_name)
    _rule.__doc__ = (
        f"{_op_name} -> aten._to_copy, {_core_name}: pow with both "
        "operands in float64 (complex128), as ATen computes it"
    )
    _rule.__name__ = "decompose_" + _op_name.removeprefix("aten.").replace(".", "_").lower()
    register_decomposition(_op_name)(_rule)


@register_decomposition("aten.chalf")
def decompose_chalf(op, rewriter):
    """aten.chalf -> aten._to_copy (complex32)"""
    return rewriter.aten("aten._to_copy", rewriter.args["self"], dtype=torch.complex32)


def _register_to(op_name: str) -> None:
    def decompose_to(op, rewriter):
        # `to` aliases its input when nothing changes and copies otherwise; values do not alias,
        # so only a dtype change needs an op (devices and memory formats never reach the IR)
        return to_dtype(rewriter, rewriter.args["self"], _result_dtype(op))

    decompose_to.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    decompose_to.__doc__ = f"{op_name} -> aten._to_copy (a dtype change; else the input)"
    register_decomposition(op_name)(decompose_to)


for _op_name in ("aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other"):
    _register_to(_op_name)

"""Elementwise variants -> core aten: scalar forms of `where`, `rsub`.

The result dtype of a rewritten op is the one the imported op already carries (promotion was
resolved by export); rules that materialise a scalar give it that dtype explicitly.
"""

from __future__ import annotations

from aten_mlir.dialects import dtype_of

from .registry import register_decomposition


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

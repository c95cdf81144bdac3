"""Reductions -> core aten: overload variants stop at the core overload (`sum.dim_IntList`,
`var.correction`, `amax`, `any.dims`), composite reductions (logsumexp, norms, nan-aware and
counting reductions) are spelled out as ATen's kernels compute them.

`var_mean.correction`, `std.correction` and `std_mean.correction` are kept whole by default
(one pass; the root taken in the f64 accumulator, as ATen does: the variance of f32 values near
1e30 overflows where their std does not), so the var_mean/std/std_mean variants stop there.
"""

from __future__ import annotations

import functools
import math

from mlir import ir

from .common import dtype, to_dtype
from .common import rank as _rank
from .registry import keep_whole, register_decomposition


def _result_dtype(op):
    return dtype(op.results[0])


@register_decomposition("aten.sum")
def decompose_sum(op, rewriter):
    """aten.sum -> aten.sum.dim_IntList (over every dim)"""
    x = rewriter.args["self"]
    return rewriter.aten("aten.sum.dim_IntList", x, None, dtype=rewriter.args["dtype"])


def _extreme(core_name, op, rewriter):
    return rewriter.aten(core_name, rewriter.args["self"], [])


for _name, _core in (("aten.max", "aten.amax"), ("aten.min", "aten.amin")):
    _rule = functools.partial(_extreme, _core)
    _rule.__doc__ = f"{_name} -> {_core} (over every dim)"
    _rule.__name__ = f"decompose_{_name[5:]}"
    register_decomposition(_name)(_rule)

for _name, _core in (("aten.max.other", "aten.maximum"), ("aten.min.other", "aten.minimum")):

    def _binary(op, rewriter, _core=_core):
        return rewriter.aten(_core, rewriter.args["self"], rewriter.args["other"])

    _binary.__doc__ = f"{_name} -> {_core}"
    _binary.__name__ = f"decompose_{_name[5:].replace('.', '_')}"
    register_decomposition(_name)(_binary)


def _correction(args) -> int:
    return 1 if args["unbiased"] else 0


@register_decomposition("aten.var")
def decompose_var(op, rewriter):
    """aten.var -> aten.var.correction"""
    a = rewriter.args
    return rewriter.aten("aten.var.correction", a["self"], None, correction=_correction(a))


@register_decomposition("aten.std")
def decompose_std(op, rewriter):
    """aten.std -> aten.std.correction"""
    a = rewriter.args
    return rewriter.aten("aten.std.correction", a["self"], None, correction=_correction(a))


@register_decomposition("aten.std.dim")
def decompose_std_dim(op, rewriter):
    """aten.std.dim -> aten.std.correction"""
    a = rewriter.args
    return rewriter.aten(
        "aten.std.correction", a["self"], a["dim"], correction=_correction(a), keepdim=a["keepdim"]
    )


def _register_correction_form(op_name: str, target: str) -> None:
    """`var_mean`/`std_mean` overloads taking `unbiased` or `dim` -> their `.correction` form."""

    def rule(op, rewriter):
        a = rewriter.args
        out = rewriter.build(
            target,
            a["self"],
            a.get("dim"),
            correction=_correction(a),
            keepdim=a.get("keepdim", False),
        )
        return list(out.results)

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {target}"
    register_decomposition(op_name)(rule)


for _name, _target in {
    "aten.var_mean": "aten.var_mean.correction",
    "aten.var_mean.dim": "aten.var_mean.correction",
    "aten.std_mean": "aten.std_mean.correction",
    "aten.std_mean.dim": "aten.std_mean.correction",
}.items():
    _register_correction_form(_name, _target)


def _all(op, rewriter, *dim_args, **kwargs):
    """all(x) = not any(not x); for uint8 inputs ATen's all/any return uint8."""
    x = rewriter.args["self"]
    name = "aten.any.dims" if dim_args or kwargs else "aten.any"
    inverted = rewriter.aten("aten.logical_not", x)
    any_false = rewriter.aten(name, inverted, *dim_args, **kwargs)
    return to_dtype(rewriter, rewriter.aten("aten.logical_not", any_false), _result_dtype(op))


@register_decomposition("aten.all")
def decompose_all(op, rewriter):
    """aten.all -> aten.logical_not, aten.any, aten._to_copy (uint8 inputs)"""
    return _all(op, rewriter)


@register_decomposition("aten.all.dim")
def decompose_all_dim(op, rewriter):
    """aten.all.dim -> aten.logical_not, aten.any.dims, aten._to_copy (uint8 inputs)"""
    a = rewriter.args
    return _all(op, rewriter, [a["dim"]], a["keepdim"])


@register_decomposition("aten.all.dims")
def decompose_all_dims(op, rewriter):
    """aten.all.dims -> aten.logical_not, aten.any.dims, aten._to_copy (uint8 inputs)"""
    a = rewriter.args
    return _all(op, rewriter, a["dim"], a["keepdim"])


def _count_nonzero(op, rewriter, dims):
    nonzero = rewriter.aten("aten.ne.Scalar", rewriter.args["self"], 0)
    return rewriter.aten("aten.sum.dim_IntList", nonzero, dims, dtype=_result_dtype(op))


@register_decomposition("aten.count_nonzero")
def decompose_count_nonzero(op, rewriter):
    """aten.count_nonzero -> aten.ne.Scalar, aten.sum.dim_IntList"""
    dim = rewriter.args["dim"]
    return _count_nonzero(op, rewriter, None if dim is None else [dim])


@register_decomposition("aten.count_nonzero.dim_IntList")
def decompose_count_nonzero_dims(op, rewriter):
    """aten.count_nonzero.dim_IntList -> aten.ne.Scalar, aten.sum.dim_IntList"""
    return _count_nonzero(op, rewriter, rewriter.args["dim"])


def _zero_nans(rewriter, x: ir.Value) -> ir.Value:
    if not dtype(x).is_floating_point:
        return x
    zeros = rewriter.aten("aten.full_like", x, 0)
    return rewriter.aten("aten.where.self", rewriter.aten("aten.isnan", x), zeros, x)


@register_decomposition("aten.nansum")
def decompose_nansum(op, rewriter):
    """aten.nansum -> aten.isnan, aten.full_like, aten.where.self, aten.sum.dim_IntList"""
    a = rewriter.args
    x = _zero_nans(rewriter, a["self"])
    return rewriter.aten("aten.sum.dim_IntList", x, a["dim"], a["keepdim"], dtype=a["dtype"])


@register_decomposition("aten.nanmean")
def decompose_nanmean(op, rewriter):
    """aten.nanmean -> aten.nansum, aten.isnan, aten.logical_not, aten.sum.dim_IntList,
    aten.div.Tensor: the sum of the non-NaN elements over their count, as ATen"""
    a = rewriter.args
    x, dims, keepdim = a["self"], a["dim"], a["keepdim"]
    total = rewriter.aten("aten.nansum", x, dims, keepdim, dtype=a["dtype"])
    present = rewriter.aten("aten.logical_not", rewriter.aten("aten.isnan", x))
    count = rewriter.aten("aten.sum.dim_IntList", present, dims, keepdim)
    return rewriter.aten("aten.div.Tensor", total, count)


@register_decomposition("aten.logsumexp")
def decompose_logsumexp(op, rewriter):
    """aten.logsumexp -> aten.amax, aten.isinf, aten.where.self, aten.sub.Tensor, aten.exp,
    aten.sum.dim_IntList, aten.log, aten.add.Tensor (+ aten.squeeze.dims). As ATen: the max is
    subtracted for stability, an infinite max is replaced by 0 (so all -inf gives -inf, an
    inf gives inf, not NaN); integer inputs are first cast to the result's float type."""
    a = rewriter.args
    x, keepdim = to_dtype(rewriter, a["self"], _result_dtype(op)), a["keepdim"]
    rank = _rank(x)
    dims = sorted({d % max(rank, 1) for d in a["dim"]}) if a["dim"] else list(range(rank))
    maxes = rewriter.aten("aten.amax", x, dims, True)
    finite = rewriter.aten(
        "aten.where.self",
        rewriter.aten("aten.isinf", maxes),
        rewriter.aten("aten.full_like", maxes, 0),
        maxes,
    )
    shifted = rewriter.aten("aten.exp", rewriter.aten("aten.sub.Tensor", x, finite))
    logs = rewriter.aten("aten.log", rewriter.aten("aten.sum.dim_IntList", shifted, dims, keepdim))
    if not keepdim and rank:
        finite = rewriter.aten("aten.squeeze.dims", finite, dims)
    return rewriter.aten("aten.add.Tensor", logs, finite)


@register_decomposition("aten.linalg_vector_norm")
def decompose_linalg_vector_norm(op, rewriter):
    """aten.linalg_vector_norm -> aten.abs, aten.amax / aten.amin (ord +-inf), aten.ne.Scalar
    (ord 0), aten.mul.Tensor, aten.sum.dim_IntList, aten.sqrt (ord 2), aten.pow.Tensor_Scalar
    (other ords), in the result's dtype, as torch._refs.linalg.vector_norm"""
    a = rewriter.args
    ord_, dims, keepdim = float(a["ord"]), a["dim"], a["keepdim"]
    out_dtype = _result_dtype(op)
    if dtype(a["self"]).is_complex:
        return None  # |z| first: not spelled out here
    x = to_dtype(rewriter, a["self"], out_dtype)
    if ord_ == 0:
        nonzero = rewriter.aten("aten.ne.Scalar", x, 0)
        return rewriter.aten("aten.sum.dim_IntList", nonzero, dims, keepdim, dtype=out_dtype)
    if math.isinf(ord_):
        extreme = "aten.amax" if ord_ > 0 else "aten.amin"
        return rewriter.aten(extreme, rewriter.aten("aten.abs", x), dims or [], keepdim)
    if ord_ == 2:
        squares = rewriter.aten("aten.mul.Tensor", x, x)
        return rewriter.aten(
            "aten.sqrt", rewriter.aten("aten.sum.dim_IntList", squares, dims, keepdim)
        )
    x = rewriter.aten("aten.abs", x)
    if ord_ == 1:
        return rewriter.aten("aten.sum.dim_IntList", x, dims, keepdim)
    powers = rewriter.aten("aten.pow.Tensor_Scalar", x, a["ord"])
    total = rewriter.aten("aten.sum.dim_IntList", powers, dims, keepdim)
    return rewriter.aten("aten.pow.Tensor_Scalar", total, 1.0 / ord_)


@register_decomposition("aten.linalg_norm")
def decompose_linalg_norm(op, rewriter):
    """aten.linalg_norm -> aten.linalg_matrix_norm when an ord is given with two dims (or no dim
    and a 2-D input), else aten.linalg_vector_norm (ord 2 by default), as ATen's linalg_norm"""
    a = rewriter.args
    x, ord_, dims = a["self"], a["ord"], a["dim"]
    is_matrix = ord_ is not None and (
        (dims is not None and len(dims) == 2) or (dims is None and _rank(x) == 2)
    )
    if is_matrix:
        return rewriter.aten(
            "aten.linalg_matrix_norm",
            x,
            ord_,
            dims if dims is not None else [0, 1],
            a["keepdim"],
            dtype=a["dtype"],
        )
    return rewriter.aten(
        "aten.linalg_vector_norm",
        x,
        2 if ord_ is None else ord_,
        dims,
        a["keepdim"],
        dtype=a["dtype"],
    )


@register_decomposition("aten.aminmax")
def decompose_aminmax(op, rewriter):
    """aten.aminmax -> aten.amin, aten.amax"""
    a = rewriter.args
    x, dim, keepdim = a["self"], a["dim"], a["keepdim"]
    dims = [] if dim is None else [dim]
    return [rewriter.aten(name, x, dims, keepdim) for name in ("aten.amin", "aten.amax")]


keep_whole(
    "aten.hash_tensor",
    "XOR of the elements' 64-bit patterns into a uint64: needs a bitcast (view.dtype) that no "
    "core op provides; torch has no decomposition",
)
keep_whole(
    "aten.segment_reduce",
    "segments sized by the lengths/offsets data (empty ones take `initial`); torch has no "
    "decomposition; a scatter_reduce.two form over cumsum(lengths) segment ids is not written yet",
)

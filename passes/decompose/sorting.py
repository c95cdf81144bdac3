"""Sorting and order statistics -> core aten (`sort`, `gather`, `cumsum`, comparisons).

Core `aten.sort` promises no order among equal elements, so a stable sort is spelled as two
sorts: the first finds the runs of equal values, the second orders every run by original index
(keys `run * 2**32 + index` are unique, so the second sort's own stability does not matter).
`kthvalue`, `median` and `mode` read their answers off a sorted copy: NaN sorts last, as these
ops order it; median and nanmedian take the lower median, as ATen documents.
"""

from __future__ import annotations

from mlir import ir

from .common import dtype, rank
from .registry import register_decomposition

# The second sort's key: run number in the high half, original index in the low one (dims
# shorter than 2**31 elements).
_RUN_STRIDE = 2**32


def pad_dim(rewriter, x: ir.Value, dim: int, front, back, value) -> ir.Value:
    """`x` padded along `dim` with `front`/`back` copies of `value` (constant_pad_nd's pad list
    starts at the last dim)."""
    pad = [0, 0] * (rank(x) - 1 - dim) + [front, back]
    return rewriter.aten("aten.constant_pad_nd", x, pad, value)


def shift(rewriter, x: ir.Value, dim: int, steps: int, fill) -> ir.Value:
    """`x` moved `steps` places up along `dim` (element j holds x[j - steps]; `fill` in front)."""
    padded = pad_dim(rewriter, x, dim, steps, 0, fill)
    return rewriter.aten("aten.slice.Tensor", padded, dim, 0, -steps)


def _sorted_runs(rewriter, values: ir.Value, dim: int, nan_equal: bool) -> ir.Value:
    """Run number (int64, non-decreasing, + a constant) of each element of a sorted `values`."""
    prev = shift(rewriter, values, dim, 1, 0)
    new_run = rewriter.aten("aten.ne.Tensor", values, prev)
    if nan_equal and dtype(values).is_floating_point:
        both_nan = rewriter.aten(
            "aten.logical_and",
            rewriter.aten("aten.isnan", values),
            rewriter.aten("aten.isnan", prev),
        )
        new_run = rewriter.aten(
            "aten.logical_and", new_run, rewriter.aten("aten.logical_not", both_nan)
        )
    return rewriter.aten("aten.cumsum", new_run, dim)


def stable_sort(rewriter, x: ir.Value, dim: int, descending: bool) -> list[ir.Value]:
    """Values and indices of a stable sort of `x` along `dim`, from two core sorts."""
    values, indices = rewriter.build("aten.sort", x, dim, descending).results
    if rank(x) == 0:
        return [values, indices]
    dim %= rank(x)
    runs = _sorted_runs(rewriter, values, dim, nan_equal=True)
    keys = rewriter.aten(
        "aten.add.Tensor", rewriter.aten("aten.mul.Scalar", runs, _RUN_STRIDE), indices
    )
    ordered = rewriter.build("aten.sort", keys, dim).results[0]
    indices = rewriter.aten("aten.remainder.Scalar", ordered, _RUN_STRIDE)
    # Gathered, not the first sort's values: equal values can differ in their bits (-0.0, 0.0).
    return [rewriter.aten("aten.gather", x, dim, indices), indices]


@register_decomposition("aten.sort.stable")
def decompose_sort_stable(op, rewriter):
    """aten.sort.stable -> aten.sort (stable=False), or for stable=True aten.sort, aten.ne.Tensor,
    aten.isnan, aten.logical_and, aten.logical_not, aten.cumsum, aten.mul.Scalar, aten.add.Tensor,
    aten.sort, aten.remainder.Scalar, aten.gather: equal values keep their original order"""
    a = rewriter.args
    if not a["stable"]:
        return list(rewriter.build("aten.sort", a["self"], a["dim"], a["descending"]).results)
    return stable_sort(rewriter, a["self"], a["dim"], a["descending"])


@register_decomposition("aten.argsort")
def decompose_argsort(op, rewriter):
    """aten.argsort -> aten.sort (its indices)"""
    a = rewriter.args
    return rewriter.build("aten.sort", a["self"], a["dim"], a["descending"]).results[1]


@register_decomposition("aten.argsort.stable")
def decompose_argsort_stable(op, rewriter):
    """aten.argsort.stable -> aten.sort.stable (its indices)"""
    a = rewriter.args
    out = rewriter.build(
        "aten.sort.stable", a["self"], stable=a["stable"], dim=a["dim"], descending=a["descending"]
    )
    return out.results[1]


@register_decomposition("aten.msort")
def decompose_msort(op, rewriter):
    """aten.msort -> aten.sort (along dim 0, its values)"""
    return rewriter.build("aten.sort", rewriter.args["self"], 0).results[0]


def _take(rewriter, tensors, dim: int, position: ir.Value, keepdim: bool) -> list[ir.Value]:
    """`tensors` gathered at `position` (keepdim-shaped) along `dim`, squeezed unless keepdim."""
    out = [rewriter.aten("aten.gather", t, dim, position) for t in tensors]
    if keepdim:
        return out
    return [rewriter.aten("aten.squeeze.dims", t, [dim]) for t in out]


@register_decomposition("aten.kthvalue")
def decompose_kthvalue(op, rewriter):
    """aten.kthvalue -> aten.sort, aten.slice.Tensor (+ aten.squeeze.dims): the k-th smallest,
    NaN counted as the largest value, as ATen"""
    a = rewriter.args
    x, k, keepdim = a["self"], a["k"], a["keepdim"]
    if not isinstance(k, int):
        return None
    values, indices = rewriter.build("aten.sort", x, a["dim"]).results
    if rank(x) == 0:
        return [values, indices]
    dim = a["dim"] % rank(x)
    out = [rewriter.aten("aten.slice.Tensor", t, dim, k - 1, k) for t in (values, indices)]
    return out if keepdim else [rewriter.aten("aten.squeeze.dims", t, [dim]) for t in out]


def _median_dim(op, rewriter, ignore_nan: bool):
    """Lower median along a dim: position (count - 1) // 2 among the sorted non-NaN values; with
    a NaN (median) the position of the first NaN, which sorts after every number."""
    a = rewriter.args
    x, keepdim = a["self"], a["keepdim"]
    values, indices = rewriter.build("aten.sort", x, a["dim"]).results
    if rank(x) == 0:
        return [values, indices]
    dim = a["dim"] % rank(x)
    nans = rewriter.aten("aten.isnan", values)
    count = rewriter.aten(
        "aten.sum.dim_IntList", rewriter.aten("aten.logical_not", nans), [dim], True
    )
    lower = rewriter.aten(
        "aten.div.Scalar_mode", rewriter.aten("aten.sub.Scalar", count, 1), 2, rounding_mode="floor"
    )
    if ignore_nan:  # all NaN: position 0, a NaN
        position = rewriter.aten("aten.clamp", lower, 0)
    else:
        has_nan = rewriter.aten("aten.any.dims", nans, [dim], True)
        position = rewriter.aten("aten.where.self", has_nan, count, lower)
    return _take(rewriter, (values, indices), dim, position, keepdim)


@register_decomposition("aten.median.dim")
def decompose_median_dim(op, rewriter):
    """aten.median.dim -> aten.sort, aten.isnan, aten.logical_not, aten.sum.dim_IntList,
    aten.sub.Scalar, aten.div.Scalar_mode, aten.any.dims, aten.where.self, aten.gather
    (+ aten.squeeze.dims): the lower median; NaN if the slice holds one"""
    return _median_dim(op, rewriter, ignore_nan=False)


@register_decomposition("aten.nanmedian.dim")
def decompose_nanmedian_dim(op, rewriter):
    """aten.nanmedian.dim -> aten.sort, aten.isnan, aten.logical_not, aten.sum.dim_IntList,
    aten.sub.Scalar, aten.div.Scalar_mode, aten.clamp, aten.gather (+ aten.squeeze.dims): the
    lower median of the non-NaN values; NaN if all are"""
    return _median_dim(op, rewriter, ignore_nan=True)


def _flat_median(op, rewriter, dim_op: str):
    x = rewriter.args["self"]
    t = ir.RankedTensorType(x.type)
    if t.has_static_shape and 0 in t.shape:
        return None  # empty input: ATen returns NaN without a slice to sort
    flat = rewriter.aten("aten.view", x, [-1])
    return rewriter.build(dim_op, flat, 0).results[0]


@register_decomposition("aten.median")
def decompose_median(op, rewriter):
    """aten.median -> aten.view, aten.median.dim (over the flattened input)"""
    return _flat_median(op, rewriter, "aten.median.dim")


@register_decomposition("aten.nanmedian")
def decompose_nanmedian(op, rewriter):
    """aten.nanmedian -> aten.view, aten.nanmedian.dim (over the flattened input)"""
    return _flat_median(op, rewriter, "aten.nanmedian.dim")


@register_decomposition("aten.mode")
def decompose_mode(op, rewriter):
    """aten.mode -> aten.sort, aten.constant_pad_nd, aten.slice.Tensor, aten.ne.Tensor,
    aten.cumsum, aten.sub.Tensor, aten.full_like, aten.scatter_add, aten.gather, aten.amax,
    aten.eq.Tensor, aten._to_copy, aten.argmax, aten.where.self (+ aten.squeeze.dims). As ATen's
    CPU kernel: the most frequent value, the smallest among equally frequent ones, with the
    last index at which it occurs"""
    a = rewriter.args
    x, keepdim = a["self"], a["keepdim"]
    if rank(x) == 0:
        return [x, rewriter.aten("aten.full", [], 0, dtype=dtype(op.results[1]))]
    dim = a["dim"] % rank(x)
    values, indices = rewriter.build("aten.sort", x, dim).results
    runs = _sorted_runs(rewriter, values, dim, nan_equal=False)
    first = rewriter.aten("aten.slice.Tensor", runs, dim, 0, 1)
    runs = rewriter.aten("aten.sub.Tensor", runs, first)  # 0 .. n-1
    counts = rewriter.aten(
        "aten.scatter_add",
        rewriter.aten("aten.full_like", runs, 0),
        dim,
        runs,
        rewriter.aten("aten.full_like", runs, 1),
    )
    lengths = rewriter.aten("aten.gather", counts, dim, runs)
    longest = rewriter.aten(
        "aten.eq.Tensor", lengths, rewriter.aten("aten.amax", lengths, [dim], True)
    )
    # argmax takes the first maximum: the smallest value among the most frequent.
    position = rewriter.aten(
        "aten.argmax", rewriter.aten("aten._to_copy", longest, dtype=dtype(runs)), dim, True
    )
    in_run = rewriter.aten(
        "aten.eq.Tensor", runs, rewriter.aten("aten.gather", runs, dim, position)
    )
    marked = rewriter.aten(
        "aten.where.self", in_run, indices, rewriter.aten("aten.full_like", indices, -1)
    )
    last = rewriter.aten("aten.amax", marked, [dim], True)
    value = rewriter.aten("aten.gather", values, dim, position)
    out = [value, last]
    return out if keepdim else [rewriter.aten("aten.squeeze.dims", t, [dim]) for t in out]

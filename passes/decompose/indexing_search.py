"""Searching and masking ops -> core aten: searchsorted as an unrolled bisection, isin as a
broadcast compare, masked_select / argwhere / nonzero_static through `aten.nonzero`."""

from __future__ import annotations

import torch
from mlir import ir

from aten_mlir.dialects import element_type

from .common import numel, to_dtype
from .registry import register_decomposition
from .views import broadcast_size, rank, result_type, view


def _bisect_step(rewriter, seq, x, lo, hi, right):
    """One step of ATen's bisection (`start + (end - start) / 2`; go right on `!(mid >= x)`,
    or `!(mid > x)` for the right side, so a NaN value ends past every boundary as in ATen)."""
    m = rewriter.size(seq, -1)
    mid = rewriter.aten(
        "aten.div.Scalar_mode", rewriter.aten("aten.add.Tensor", lo, hi), 2, rounding_mode="floor"
    )
    at = rewriter.aten("aten.clamp", mid, None, m - 1)  # lo == hi == m: any in-range read
    if rank(seq) == 1:
        value = rewriter.aten("aten.index.Tensor", seq, [at])
    else:
        value = rewriter.aten("aten.gather", seq, -1, at)
    stop = rewriter.aten("aten.gt.Tensor" if right else "aten.ge.Tensor", value, x)
    active = rewriter.aten("aten.lt.Tensor", lo, hi)
    go_right = rewriter.aten("aten.logical_and", active, rewriter.aten("aten.logical_not", stop))
    go_left = rewriter.aten("aten.logical_and", active, stop)
    lo = rewriter.aten("aten.where.self", go_right, rewriter.aten("aten.add.Scalar", mid, 1), lo)
    hi = rewriter.aten("aten.where.self", go_left, mid, hi)
    return lo, hi


@register_decomposition("aten.searchsorted.Tensor")
def decompose_searchsorted(op, rewriter):
    """aten.searchsorted.Tensor -> aten.gather (sorter), aten.full_like, aten.add.Tensor,
    aten.div.Scalar_mode, aten.clamp, aten.index.Tensor / aten.gather, aten.ge.Tensor /
    aten.gt.Tensor, aten.lt.Tensor, aten.logical_and, aten.logical_not, aten.where.self: ATen's
    bisection unrolled (bit_length(m) steps), the same comparisons in the same order. No
    (m x n) compare matrix. Precondition: a static sequence length m."""
    seq, x, sorter = (rewriter.args[k] for k in ("sorted_sequence", "self", "sorter"))
    m = rewriter.size(seq, -1)
    if not isinstance(m, int):
        return None
    side = rewriter.args["side"]
    right = side == "right" if side is not None else rewriter.args["right"]
    if sorter is not None:
        seq = rewriter.aten("aten.gather", seq, -1, sorter)
    lo = rewriter.aten("aten.full_like", x, 0, dtype=torch.int64)
    hi = rewriter.aten("aten.full_like", x, m, dtype=torch.int64)
    for _ in range(m.bit_length()):
        lo, hi = _bisect_step(rewriter, seq, x, lo, hi, right)
    out_dtype = torch.int32 if rewriter.args["out_int32"] else torch.int64
    return to_dtype(rewriter, lo, out_dtype)


def _scalar_tensor(rewriter, value):
    """ATen's `scalar_to_tensor`: bool, int64 or float64 by the python type of `value`."""
    kind = torch.bool if isinstance(value, bool) else torch.int64
    kind = torch.float64 if isinstance(value, float) else kind
    return rewriter.aten("aten.scalar_tensor", value, dtype=kind)


@register_decomposition("aten.searchsorted.Scalar")
def decompose_searchsorted_scalar(op, rewriter):
    """aten.searchsorted.Scalar -> aten.scalar_tensor, aten.searchsorted.Tensor"""
    a = rewriter.args
    return rewriter.aten(
        "aten.searchsorted.Tensor",
        a["sorted_sequence"],
        _scalar_tensor(rewriter, a["self"]),
        out_int32=a["out_int32"],
        right=a["right"],
        side=a["side"],
        sorter=a["sorter"],
        results=result_type(op),
    )


@register_decomposition("aten.bucketize.Tensor")
def decompose_bucketize(op, rewriter):
    """aten.bucketize.Tensor -> aten.searchsorted.Tensor (the same search, arguments swapped)"""
    a = rewriter.args
    return rewriter.aten(
        "aten.searchsorted.Tensor",
        a["boundaries"],
        a["self"],
        out_int32=a["out_int32"],
        right=a["right"],
        results=result_type(op),
    )


@register_decomposition("aten.bucketize.Scalar")
def decompose_bucketize_scalar(op, rewriter):
    """aten.bucketize.Scalar -> aten.searchsorted.Scalar"""
    a = rewriter.args
    return rewriter.aten(
        "aten.searchsorted.Scalar",
        a["boundaries"],
        a["self"],
        out_int32=a["out_int32"],
        right=a["right"],
        results=result_type(op),
    )


def _maybe_invert(rewriter, found):
    return rewriter.aten("aten.logical_not", found) if rewriter.args["invert"] else found


@register_decomposition("aten.isin.Tensor_Tensor")
def decompose_isin(op, rewriter):
    """aten.isin.Tensor_Tensor -> aten.unsqueeze, aten.view, aten.eq.Tensor, aten.any.dim,
    aten.logical_not (invert): each element against every test element, as torch's own
    decomposition does for small test sets (exact; memory numel(elements) x numel(test))"""
    elements, test = rewriter.args["elements"], rewriter.args["test_elements"]
    column = rewriter.aten("aten.unsqueeze", elements, -1)
    row = view(rewriter, test, [numel(rewriter, test)])
    equal = rewriter.aten("aten.eq.Tensor", column, row)
    found = rewriter.aten("aten.any.dim", equal, -1, results=result_type(op))
    return _maybe_invert(rewriter, found)


@register_decomposition("aten.isin.Tensor_Scalar")
def decompose_isin_tensor_scalar(op, rewriter):
    """aten.isin.Tensor_Scalar -> aten.eq.Scalar / aten.ne.Scalar (invert)"""
    name = "aten.ne.Scalar" if rewriter.args["invert"] else "aten.eq.Scalar"
    elements, test = rewriter.args["elements"], rewriter.args["test_element"]
    return rewriter.aten(name, elements, test, results=result_type(op))


@register_decomposition("aten.isin.Scalar_Tensor")
def decompose_isin_scalar_tensor(op, rewriter):
    """aten.isin.Scalar_Tensor -> aten.eq.Scalar, aten.any, aten.logical_not (invert)"""
    element, test = rewriter.args["element"], rewriter.args["test_elements"]
    found = rewriter.aten("aten.any", rewriter.aten("aten.eq.Scalar", test, element))
    return _maybe_invert(rewriter, found)


def _nonzero(rewriter, x):
    """`aten.nonzero(x)`: an int64 tensor<? x rank>."""
    with rewriter.op.location:
        t = ir.RankedTensorType.get(
            [ir.ShapedType.get_dynamic_size(), rank(x)], element_type(torch.int64)
        )
    return rewriter.aten("aten.nonzero", x, results=[t])


@register_decomposition("aten.argwhere")
def decompose_argwhere(op, rewriter):
    """aten.argwhere -> aten.nonzero"""
    return rewriter.aten("aten.nonzero", rewriter.args["self"], results=result_type(op))


@register_decomposition("aten.nonzero_static")
def decompose_nonzero_static(op, rewriter):
    """aten.nonzero_static -> aten.nonzero, aten.full, aten.cat, aten.slice.Tensor: the found
    rows, then fill_value rows, cut at `size`"""
    x, size = rewriter.args["self"], rewriter.args["size"]
    if not isinstance(size, int):
        return None
    found = _nonzero(rewriter, x)
    fill = rewriter.aten(
        "aten.full", [size, rank(x)], rewriter.args["fill_value"], dtype=torch.int64
    )
    both = rewriter.aten("aten.cat", [found, fill], 0, results=[found.type])
    return rewriter.aten("aten.slice.Tensor", both, 0, 0, size, results=result_type(op))


def _broadcast(rewriter, values):
    """The values expanded to their common broadcast shape (right-aligned)."""
    n = max(rank(v) for v in values)
    padded = [[1] * (n - rank(v)) + rewriter.sizes(v) for v in values]
    shape = [broadcast_size(rewriter, list(col)) for col in zip(*padded)]
    out = []
    for v, sizes in zip(values, padded):
        same = rank(v) == n and all(a is b or a == b for a, b in zip(sizes, shape))
        out.append(v if same else rewriter.aten("aten.expand", v, shape))
    return out


@register_decomposition("aten.masked_select")
def decompose_masked_select(op, rewriter):
    """aten.masked_select -> aten.expand (broadcast), aten.nonzero, aten.select.int,
    aten.index.Tensor: the elements at the mask's nonzero positions, in row-major order"""
    x, mask = _broadcast(rewriter, [rewriter.args["self"], rewriter.args["mask"]])
    if rank(x) == 0:
        x, mask = view(rewriter, x, [1]), view(rewriter, mask, [1])
    where = _nonzero(rewriter, mask)
    with rewriter.op.location:
        column = ir.RankedTensorType.get(
            [ir.ShapedType.get_dynamic_size()], element_type(torch.int64)
        )
    indices = [
        rewriter.aten("aten.select.int", where, 1, d, results=[column]) for d in range(rank(x))
    ]
    return rewriter.aten("aten.index.Tensor", x, indices, results=result_type(op))

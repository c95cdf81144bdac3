"""Scans without a core op (cumprod, logcumsumexp, cummax, cummin) -> core aten, as a
Hillis-Steele scan: log2(n) steps, each combining every element with the one `2**k` places
before it (`constant_pad_nd` + `slice.Tensor` shift in the combine's identity). The operators
are associative, so the results are ATen's up to rounding order: exact for products of
integers and for max/min, a correctly rounded combine per step for the floating ones.
Reduced-precision floats are scanned in float32 and float32 products in float64, as ATen
accumulates them. The scanned dim must
be static (the step count depends on it).
"""

from __future__ import annotations

import torch
from mlir import ir

from .common import _UPCAST, dtype, rank, tensor_of, to_dtype
from .registry import register_decomposition
from .sorting import shift


def _scan_length(x: ir.Value, dim: int) -> int | None:
    """The scanned dim's static size (1 for a 0-d tensor), None when dynamic."""
    t = ir.RankedTensorType(x.type)
    if t.rank == 0:
        return 1
    n = t.get_dim_size(dim % t.rank)
    return None if n < 0 else n


def _steps(n: int):
    step = 1
    while step < n:
        yield step
        step *= 2


def _scan(rewriter, x: ir.Value, dim: int, identity, combine) -> ir.Value:
    n = _scan_length(x, dim)
    dim = dim % rank(x) if rank(x) else 0
    for step in _steps(n):
        x = combine(rewriter, shift(rewriter, x, dim, step, identity), x)
    return x


def _in_compute_dtype(op, rewriter, x: ir.Value):
    """The input cast to the result dtype, then to ATen's accumulation type for half floats."""
    out = dtype(op.results[0])
    return to_dtype(rewriter, to_dtype(rewriter, x, out), _UPCAST.get(out, out))


@register_decomposition("aten.cumprod")
def decompose_cumprod(op, rewriter):
    """aten.cumprod -> aten._to_copy (dtype), aten.constant_pad_nd, aten.slice.Tensor,
    aten.mul.Tensor (log2(n) times): exact for integers (no exp/log round trip); static dim"""
    a = rewriter.args
    x = a["self"]
    if _scan_length(x, a["dim"]) is None or dtype(x).is_complex:
        return None
    x = _in_compute_dtype(op, rewriter, x)
    if dtype(x) == torch.float32:
        # ATen's CPU kernel runs the product in double: a prefix that overflows float32 and
        # comes back ([1e20, 1e20, 1e-30, ...]) is finite again there; in float32 the scan's
        # partial products made inf * 0 = NaN of it
        x = to_dtype(rewriter, x, torch.float64)

    def multiply(rw, before, current):
        return rw.aten("aten.mul.Tensor", before, current)

    out = _scan(rewriter, x, a["dim"], 1, multiply)
    return to_dtype(rewriter, out, dtype(op.results[0]))


def _logaddexp(rewriter, before: ir.Value, current: ir.Value) -> ir.Value:
    """ATen's logcumsumexp step: `max + log1p(exp(min - max))`, `current` itself when both are
    the same infinity (where the formula would give NaN); NaN propagates."""
    low = rewriter.aten("aten.minimum", before, current)
    high = rewriter.aten("aten.maximum", before, current)
    gap = rewriter.aten("aten.exp", rewriter.aten("aten.sub.Tensor", low, high))
    added = rewriter.aten("aten.add.Tensor", rewriter.aten("aten.log1p", gap), high)
    usable = rewriter.aten(
        "aten.logical_or",
        rewriter.aten("aten.ne.Tensor", low, high),
        rewriter.aten("aten.logical_not", rewriter.aten("aten.isinf", low)),
    )
    return rewriter.aten("aten.where.self", usable, added, current)


@register_decomposition("aten.logcumsumexp")
def decompose_logcumsumexp(op, rewriter):
    """aten.logcumsumexp -> aten.constant_pad_nd, aten.slice.Tensor, aten.minimum, aten.maximum,
    aten.sub.Tensor, aten.exp, aten.log1p, aten.add.Tensor, aten.ne.Tensor, aten.isinf,
    aten.logical_not, aten.logical_or, aten.where.self (log2(n) times). Pairwise logaddexp as
    ATen's kernel; torch's ref subtracts one max per row and underflows to -inf for elements far
    below it, this does not. Static dim."""
    a = rewriter.args
    x = a["self"]
    if _scan_length(x, a["dim"]) is None or not dtype(op.results[0]).is_floating_point:
        return None
    x = _in_compute_dtype(op, rewriter, x)
    out = _scan(rewriter, x, a["dim"], float("-inf"), _logaddexp)
    return to_dtype(rewriter, out, dtype(op.results[0]))


def _lowest(elem: torch.dtype, largest: bool):
    """The identity of a running max (largest=True) or min."""
    if elem == torch.bool:
        return not largest
    if elem.is_floating_point:
        return float("-inf") if largest else float("inf")
    info = torch.iinfo(elem)
    return info.min if largest else info.max


def _cumulative_extreme(op, rewriter, largest: bool):
    a = rewriter.args
    x = a["self"]
    n = _scan_length(x, a["dim"])
    if n is None:
        return None
    index_dtype = dtype(op.results[1])
    if rank(x) == 0:
        return [x, rewriter.aten("aten.full", [], 0, dtype=index_dtype)]
    dim = a["dim"] % rank(x)
    positions = rewriter.aten("aten.arange.start_step", 0, n, 1, dtype=index_dtype)
    positions = rewriter.aten("aten.view", positions, [n] + [1] * (rank(x) - 1 - dim))
    sizes = rewriter.sizes(x)
    indices = rewriter.aten(
        "aten.expand", positions, sizes, results=[tensor_of(op, sizes, index_dtype)]
    )
    values, floating = x, dtype(x).is_floating_point
    compare = "aten.ge.Tensor" if largest else "aten.le.Tensor"
    for step in _steps(n):
        before = shift(rewriter, values, dim, step, _lowest(dtype(x), largest))
        before_index = shift(rewriter, indices, dim, step, 0)
        # The later element wins ties (ATen scans with >=); a NaN wins and then stays.
        later = rewriter.aten(compare, values, before)
        if floating:
            later = rewriter.aten(
                "aten.logical_or",
                rewriter.aten("aten.isnan", values),
                rewriter.aten(
                    "aten.logical_and",
                    later,
                    rewriter.aten("aten.logical_not", rewriter.aten("aten.isnan", before)),
                ),
            )
        values = rewriter.aten("aten.where.self", later, values, before)
        indices = rewriter.aten("aten.where.self", later, indices, before_index)
    return [values, indices]


@register_decomposition("aten.cummax")
def decompose_cummax(op, rewriter):
    """aten.cummax -> aten.arange.start_step, aten.view, aten.expand, aten.constant_pad_nd,
    aten.slice.Tensor, aten.ge.Tensor, aten.isnan, aten.logical_not, aten.logical_and,
    aten.logical_or, aten.where.self (log2(n) times): the last index of the running max, NaN
    once seen, as ATen; static dim"""
    return _cumulative_extreme(op, rewriter, largest=True)


@register_decomposition("aten.cummin")
def decompose_cummin(op, rewriter):
    """aten.cummin -> aten.arange.start_step, aten.view, aten.expand, aten.constant_pad_nd,
    aten.slice.Tensor, aten.le.Tensor, aten.isnan, aten.logical_not, aten.logical_and,
    aten.logical_or, aten.where.self (log2(n) times): the last index of the running min, NaN
    once seen, as ATen; static dim"""
    return _cumulative_extreme(op, rewriter, largest=False)

"""quantile / nanquantile -> core aten, as ATen's `quantile_compute`: sort along the reduced dim
(moved last), ranks `q * (n - 1)` (NaN-free count for nanquantile; the last rank when quantile
meets a NaN, so the result is NaN), then the interpolation between the two neighbouring values
with ATen's two-sided lerp formula."""

from __future__ import annotations

import torch
from mlir import ir

from .common import dtype, rank
from .registry import register_decomposition


def lerp(rewriter, start: ir.Value, end: ir.Value, weight: ir.Value) -> ir.Value:
    """ATen's lerp: `start + w * (end - start)` for |w| < 0.5, else `end - (end - start) * (1 - w)`
    (exact at both ends)."""
    diff = rewriter.aten("aten.sub.Tensor", end, start)
    small = rewriter.aten("aten.lt.Scalar", rewriter.aten("aten.abs", weight), 0.5)
    near_start = rewriter.aten(
        "aten.add.Tensor", start, rewriter.aten("aten.mul.Tensor", weight, diff)
    )
    rest = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", weight), 1)
    near_end = rewriter.aten("aten.sub.Tensor", end, rewriter.aten("aten.mul.Tensor", diff, rest))
    return rewriter.aten("aten.where.self", small, near_start, near_end)


def _sorted_last(rewriter, x: ir.Value, dim) -> ir.Value:
    """`x` sorted along `dim` moved last (flattened when `dim` is None)."""
    if dim is None or rank(x) == 0:
        x = rewriter.aten("aten.view", x, [-1])
    else:
        dim %= rank(x)
        if dim != rank(x) - 1:
            order = [d for d in range(rank(x)) if d != dim] + [dim]
            x = rewriter.aten("aten.permute", x, order)
    return rewriter.build("aten.sort", x, -1).results[0]


def _ranks(rewriter, ordered: ir.Value, q: ir.Value, ignore_nan: bool) -> ir.Value:
    """Fractional positions [..., Q] of the quantiles `q` [Q] in the sorted rows."""
    nans = rewriter.aten("aten.isnan", ordered)
    if ignore_nan:
        present = rewriter.aten("aten.logical_not", nans)
        count = rewriter.aten("aten.sum.dim_IntList", present, [-1], True)
        ranks = rewriter.aten("aten.mul.Tensor", q, rewriter.aten("aten.sub.Scalar", count, 1))
        return rewriter.aten("aten.clamp", ranks, 0)  # all NaN: rank 0, a NaN
    n = ir.RankedTensorType(ordered.type).get_dim_size(rank(ordered) - 1)
    if n >= 0:
        last = rewriter.aten("aten.scalar_tensor", n - 1, dtype=dtype(ordered))
    else:
        ones = rewriter.aten("aten.full_like", ordered, 1)
        last = rewriter.aten(
            "aten.sub.Scalar", rewriter.aten("aten.sum.dim_IntList", ones, [-1], True), 1
        )
    has_nan = rewriter.aten("aten.any.dim", nans, -1, True)
    return rewriter.aten(
        "aten.where.self", has_nan, last, rewriter.aten("aten.mul.Tensor", q, last)
    )


def _interpolate(rewriter, ordered: ir.Value, ranks: ir.Value, mode: str) -> ir.Value:
    rounding = {"lower": "aten.floor", "higher": "aten.ceil", "nearest": "aten.round"}
    if mode in rounding:
        ranks = rewriter.aten(rounding[mode], ranks)
    below = rewriter.aten("aten._to_copy", ranks, dtype=torch.int64)
    values = rewriter.aten("aten.gather", ordered, -1, below)
    if mode not in ("linear", "midpoint"):
        return values
    above = rewriter.aten("aten._to_copy", rewriter.aten("aten.ceil", ranks), dtype=torch.int64)
    if mode == "midpoint":
        weights = rewriter.aten("aten.full_like", ranks, 0.5)
    else:
        weights = rewriter.aten("aten.sub.Tensor", ranks, below)
    return lerp(rewriter, values, rewriter.aten("aten.gather", ordered, -1, above), weights)


def _quantile(op, rewriter, ignore_nan: bool):
    a = rewriter.args
    x, q, dim, keepdim = a["self"], a["q"], a["dim"], a["keepdim"]
    if rank(q) > 1 or a["interpolation"] not in (
        "linear",
        "lower",
        "higher",
        "nearest",
        "midpoint",
    ):
        return None
    ordered = _sorted_last(rewriter, x, dim)
    qs = q if rank(q) == 1 else rewriter.aten("aten.view", q, [1])
    ranks = _ranks(rewriter, ordered, qs, ignore_nan)
    out = _interpolate(rewriter, ordered, ranks, a["interpolation"])  # [..., Q]
    lead = rank(out) - 1
    if rank(q) == 0:
        out = rewriter.aten("aten.squeeze.dims", out, [lead])
    elif lead:
        out = rewriter.aten("aten.permute", out, [lead, *range(lead)])
    if keepdim and dim is None:
        out = rewriter.aten("aten.view", out, [-1] * rank(q) + [1] * rank(x))
    elif keepdim and rank(x):
        out = rewriter.aten("aten.unsqueeze", out, dim % rank(x) + rank(q))
    return out


@register_decomposition("aten.quantile")
def decompose_quantile(op, rewriter):
    """aten.quantile -> aten.view / aten.permute, aten.sort, aten.isnan, aten.any.dim,
    aten.scalar_tensor, aten.mul.Tensor, aten.where.self, aten.floor / aten.ceil / aten.round,
    aten._to_copy, aten.gather, aten.sub.Tensor, aten.abs, aten.lt.Scalar, aten.add.Tensor,
    aten.neg, aten.add.Scalar (+ aten.squeeze.dims, aten.unsqueeze): as ATen, NaN in a slice
    gives NaN"""
    return _quantile(op, rewriter, ignore_nan=False)


@register_decomposition("aten.nanquantile")
def decompose_nanquantile(op, rewriter):
    """aten.nanquantile -> aten.view / aten.permute, aten.sort, aten.isnan, aten.logical_not,
    aten.sum.dim_IntList, aten.sub.Scalar, aten.mul.Tensor, aten.clamp, aten.floor / aten.ceil /
    aten.round, aten._to_copy, aten.gather, aten.sub.Tensor, aten.abs, aten.lt.Scalar,
    aten.add.Tensor, aten.neg, aten.add.Scalar, aten.where.self (+ aten.squeeze.dims,
    aten.unsqueeze): quantiles of the non-NaN values, NaN where all are"""
    return _quantile(op, rewriter, ignore_nan=True)


def _scalar_q(op_name: str, target: str):
    def rule(op, rewriter):
        a = rewriter.args
        q = rewriter.aten("aten.scalar_tensor", a["q"], dtype=dtype(a["self"]))
        return rewriter.aten(
            target, a["self"], q, a["dim"], a["keepdim"], interpolation=a["interpolation"]
        )

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> aten.scalar_tensor, {target}"
    register_decomposition(op_name)(rule)


_scalar_q("aten.quantile.scalar", "aten.quantile")
_scalar_q("aten.nanquantile.scalar", "aten.nanquantile")

"""Stacking, flipping, rotating and unfolding -> core aten (cat, unsqueeze, flip, permute,
index gathers)."""

from __future__ import annotations

import torch
from mlir import ir

from .registry import register_decomposition
from .views import permute, rank, result_type, transposed_dims, view

# -- stacking and flipping ------------------------------------------------------------------------


@register_decomposition("aten.stack")
def decompose_stack(op, rewriter):
    """aten.stack -> aten.unsqueeze, aten.cat"""
    tensors, dim = rewriter.args["tensors"], rewriter.args["dim"]
    dim %= rank(tensors[0]) + 1
    parts = [rewriter.aten("aten.unsqueeze", t, dim) for t in tensors]
    return rewriter.aten("aten.cat", parts, dim, results=result_type(op))


def _at_least(rewriter, x: ir.Value, n: int) -> ir.Value:
    """torch.atleast_{1,2,3}d: 0-d -> [1]*n, 1-d (k) -> [1, k] / [1, k, 1], 2-d (m, k) ->
    [m, k, 1] for n = 3; views (`aten.view`, `aten.unsqueeze`)."""
    r = rank(x)
    if r >= n:
        return x
    if r == 0:
        return view(rewriter, x, [1] * n)
    if r == 1:
        x = rewriter.aten("aten.unsqueeze", x, 0)
    return rewriter.aten("aten.unsqueeze", x, -1) if n == 3 else x


def _cat(op, rewriter, tensors, dim):
    return rewriter.aten("aten.cat", tensors, dim, results=result_type(op))


@register_decomposition("aten.hstack")
def decompose_hstack(op, rewriter):
    """aten.hstack -> aten.view, aten.cat (along dim 0 for vectors, else 1)"""
    tensors = [_at_least(rewriter, t, 1) for t in rewriter.args["tensors"]]
    return _cat(op, rewriter, tensors, 0 if rank(tensors[0]) == 1 else 1)


@register_decomposition("aten.vstack")
def decompose_vstack(op, rewriter):
    """aten.vstack -> aten.view, aten.unsqueeze, aten.cat"""
    return _cat(op, rewriter, [_at_least(rewriter, t, 2) for t in rewriter.args["tensors"]], 0)


@register_decomposition("aten.dstack")
def decompose_dstack(op, rewriter):
    """aten.dstack -> aten.view, aten.unsqueeze, aten.cat"""
    return _cat(op, rewriter, [_at_least(rewriter, t, 3) for t in rewriter.args["tensors"]], 2)


@register_decomposition("aten.column_stack")
def decompose_column_stack(op, rewriter):
    """aten.column_stack -> aten.view, aten.cat (scalars and vectors become columns)"""
    columns = [
        view(rewriter, t, [rewriter.size(t, 0) if rank(t) else 1, 1]) if rank(t) <= 1 else t
        for t in rewriter.args["tensors"]
    ]
    return _cat(op, rewriter, columns, 1)


@register_decomposition("aten.fliplr")
def decompose_fliplr(op, rewriter):
    """aten.fliplr -> aten.flip"""
    return rewriter.aten("aten.flip", rewriter.args["self"], [1], results=result_type(op))


@register_decomposition("aten.flipud")
def decompose_flipud(op, rewriter):
    """aten.flipud -> aten.flip"""
    return rewriter.aten("aten.flip", rewriter.args["self"], [0], results=result_type(op))


@register_decomposition("aten.rot90")
def decompose_rot90(op, rewriter):
    """aten.rot90 -> aten.flip, aten.permute (aten.clone for a multiple of four turns)"""
    x, k, dims = (rewriter.args[k] for k in ("self", "k", "dims"))
    n = rank(x)
    d0, d1 = (d % n for d in dims)
    k %= 4
    if k == 0:
        return rewriter.aten("aten.clone", x, results=result_type(op))
    if k == 2:
        return rewriter.aten("aten.flip", x, [d0, d1], results=result_type(op))
    flipped = rewriter.aten("aten.flip", x, [d1 if k == 1 else d0])
    return permute(rewriter, flipped, transposed_dims(n, d0, d1), results=result_type(op))


def _register_at_least_sequence(name: str, n: int) -> None:
    def decompose_at_least_sequence(op, rewriter):
        return [_at_least(rewriter, t, n) for t in rewriter.args["tensors"]]

    decompose_at_least_sequence.__name__ = f"decompose_atleast_{n}d_sequence"
    decompose_at_least_sequence.__doc__ = f"{name} -> aten.view, aten.unsqueeze"
    register_decomposition(name)(decompose_at_least_sequence)


def _register_at_least(name: str, n: int) -> None:
    def decompose_at_least(op, rewriter):
        out = _at_least(rewriter, rewriter.args["self"], n)
        return out if out is not rewriter.args["self"] else rewriter.aten("aten.alias", out)

    decompose_at_least.__name__ = f"decompose_atleast_{n}d"
    decompose_at_least.__doc__ = f"{name} -> aten.view, aten.unsqueeze (aten.alias when ranked)"
    register_decomposition(name)(decompose_at_least)


for _n, _sequence_name, _name in (
    (1, "aten.atleast_1d.Sequence", "aten.atleast_1d"),
    (2, "aten.atleast_2d.Sequence", "aten.atleast_2d"),
    (3, "aten.atleast_3d.Sequence", "aten.atleast_3d"),
):
    _register_at_least_sequence(_sequence_name, _n)
    _register_at_least(_name, _n)


@register_decomposition("aten.unfold")
def decompose_unfold(op, rewriter):
    """aten.unfold -> aten.arange.start_step, aten.mul.Scalar, aten.unsqueeze, aten.add.Tensor,
    aten.index.Tensor, aten.permute: window w, offset j reads x[w * step + j] along `dim`"""
    x, dim, size, step = (rewriter.args[k] for k in ("self", "dimension", "size", "step"))
    n = rank(x)
    if n == 0:
        return view(rewriter, x, [1], results=result_type(op))
    dim %= n
    windows = ir.RankedTensorType(op.results[0].type).get_dim_size(dim)
    if windows < 0:
        return None  # a dynamic window count: kept until a rule needs it
    starts = rewriter.aten("aten.arange.start_step", 0, windows, dtype=torch.int64)
    starts = rewriter.aten("aten.mul.Scalar", starts, step)
    offsets = rewriter.aten("aten.arange.start_step", 0, size, dtype=torch.int64)
    index = rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.unsqueeze", starts, 1),
        rewriter.aten("aten.unsqueeze", offsets, 0),
    )
    gathered = rewriter.aten("aten.index.Tensor", x, [None] * dim + [index])
    dims = [d for d in range(n + 1) if d != dim + 1] + [dim + 1]
    return permute(rewriter, gathered, dims, results=result_type(op))

"""unique / unique_consecutive -> a stable sort (unique only), a "first of its run" mask,
`aten.masked_select` (-> `aten.nonzero`) for the values, `aten.cumsum` for the inverse and an
accumulating `aten.index_put` for the counts. The result sizes depend on the data: `?`."""

from __future__ import annotations

import torch

from .common import numel
from .registry import keep_whole, register_decomposition
from .views import rank, view


def _run_starts(rewriter, values, n: int):
    """True where values[i] != values[i - 1] (and at i = 0): NaNs never equal, so each NaN
    starts its own run, as in ATen."""
    before = max(n - 1, 0)
    previous = rewriter.aten(
        "aten.cat",
        [
            rewriter.aten("aten.slice.Tensor", values, 0, 0, 1),
            rewriter.aten("aten.slice.Tensor", values, 0, 0, before),
        ],
        results=[values.type],
    )
    differs = rewriter.aten("aten.ne.Tensor", values, previous)
    positions = rewriter.aten("aten.arange.start_step", 0, n, 1, dtype=torch.int64)
    first = rewriter.aten("aten.eq.Scalar", positions, 0)
    return rewriter.aten("aten.logical_or", differs, first)


def _unique_results(op, rewriter, values, order, starts, x):
    """(the run firsts, inverse or [0], counts or [0]) with the op's result types; `order[i]` is
    the flat position of values[i] (None: the identity)."""
    types = [r.type for r in op.results]
    out = rewriter.aten("aten.masked_select", values, starts, results=[types[0]])
    empty = rewriter.aten("aten.full", [0], 0, dtype=torch.int64)
    inverse = counts = empty
    group = None
    if rewriter.args["return_inverse"] or rewriter.args["return_counts"]:
        group = rewriter.aten("aten.cumsum", starts, 0, dtype=torch.int64)
        group = rewriter.aten("aten.sub.Scalar", group, 1)
    if rewriter.args["return_inverse"]:
        inverse = group
        if order is not None:
            inverse = rewriter.aten(
                "aten.index_put", rewriter.aten("aten.full_like", group, 0), [order], group
            )
        inverse = view(rewriter, inverse, rewriter.sizes(x), results=[types[1]])
    if rewriter.args["return_counts"]:
        zeros = rewriter.aten(
            "aten.full", [rewriter.size(out, 0)], 0, dtype=torch.int64, results=[types[2]]
        )
        ones = rewriter.aten("aten.full_like", group, 1)
        counts = rewriter.aten("aten.index_put", zeros, [group], ones, True)
    return out, inverse, counts


@register_decomposition("aten._unique2")
def decompose_unique2(op, rewriter):
    """aten._unique2 -> aten.view, aten.sort.stable, aten.slice.Tensor, aten.cat, aten.ne.Tensor,
    aten.arange.start_step, aten.eq.Scalar, aten.logical_or, aten.masked_select, aten.cumsum,
    aten.index_put: ATen sorts whatever `sorted` says on CPU, and so does this. The sort is
    stable, so that of equal values (-0.0, 0.0) the first one stands for them. Precondition: a
    static numel."""
    x = rewriter.args["self"]
    n = numel(rewriter, x)
    if not isinstance(n, int):
        return None
    sort = rewriter.build(
        "aten.sort.stable", x if rank(x) == 1 else view(rewriter, x, [n]), stable=True, dim=0
    )
    values, order = sort.results
    starts = _run_starts(rewriter, values, n)
    return _unique_results(op, rewriter, values, order, starts, x)


@register_decomposition("aten.unique_consecutive")
def decompose_unique_consecutive(op, rewriter):
    """aten.unique_consecutive -> aten.view, aten.slice.Tensor, aten.cat, aten.ne.Tensor,
    aten.arange.start_step, aten.eq.Scalar, aten.logical_or, aten.masked_select, aten.cumsum,
    aten.index_put. Preconditions: dim=None (runs of elements, not of slices), a static numel."""
    x = rewriter.args["self"]
    n = numel(rewriter, x)
    if rewriter.args["dim"] is not None or not isinstance(n, int):
        return None
    values = x if rank(x) == 1 else view(rewriter, x, [n])
    return _unique_results(op, rewriter, values, None, _run_starts(rewriter, values, n), x)


keep_whole(
    "aten.unique_dim",
    "unique slices along a dim: a lexicographic sort of whole slices, which no core op does; "
    "torch has no decomposition either",
)

"""Histograms -> core aten: each element's bin found on the bin edges, then counted with an
accumulating `aten.index_put` into a zero histogram.

ATen finds bins three ways, and each is kept: `histogram` / `histogramdd` with tensor edges use
a binary search (here `aten.searchsorted`), with a bin count they interpolate linearly and
correct by a local search on the edges (the same bin as the binary search), and `histc`
interpolates without the local search (here the same float expression, in the input dtype).
"""

from __future__ import annotations

import torch
from mlir.dialects import arith

from .common import dtype
from .common import numel as _numel
from .registry import register_decomposition
from .views import rank, view


def _scalar(rewriter, value, like):
    return rewriter.aten("aten.scalar_tensor", value, dtype=dtype(like))


def _outer_edges(rewriter, x, lo, hi, widen):
    """ATen's `select_outer_bin_edges`: [lo, hi] as given, or the data's min and max when not
    given (None), widened by `widen` each way when equal. 0-d tensors of x's dtype."""
    if lo is None:
        lo = rewriter.aten("aten.amin", x) if rank(x) else x
        hi = rewriter.aten("aten.amax", x) if rank(x) else x
    elif lo != hi:
        return _scalar(rewriter, lo, x), _scalar(rewriter, hi, x)
    else:
        return _scalar(rewriter, lo - widen, x), _scalar(rewriter, hi + widen, x)
    same = rewriter.aten("aten.eq.Tensor", lo, hi)
    lo = rewriter.aten("aten.where.self", same, rewriter.aten("aten.sub.Scalar", lo, widen), lo)
    hi = rewriter.aten("aten.where.self", same, rewriter.aten("aten.add.Scalar", hi, widen), hi)
    return lo, hi


def _in_range(rewriter, x, lo, hi):
    """`lo <= x <= hi` (False for NaN)."""
    return rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.ge.Tensor", x, lo),
        rewriter.aten("aten.le.Tensor", x, hi),
    )


def _count(rewriter, bins, n_bins, inside, weight, like):
    """A histogram of `n_bins`: `weight` (or 1) added at `bins` where `inside`."""
    zero = _scalar(rewriter, 0, like)
    one = weight if weight is not None else _scalar(rewriter, 1, like)
    counts = rewriter.aten("aten.where.self", inside, one, zero)
    no_bin = rewriter.aten("aten.scalar_tensor", 0, dtype=torch.int64)
    bins = rewriter.aten("aten.where.self", inside, bins, no_bin)
    hist = rewriter.aten("aten.full", [n_bins], 0, dtype=dtype(like))
    return rewriter.aten("aten.index_put", hist, [bins], counts, True)


def _searched_bins(rewriter, x, edges):
    """The bin of each element of x: upper_bound(edges, x) - 1, the last edge in the last bin."""
    n_bins = rewriter.size(edges, 0) - 1
    after = rewriter.aten("aten.searchsorted.Tensor", edges, x, right=True)
    return rewriter.aten("aten.clamp", rewriter.aten("aten.sub.Scalar", after, 1), 0, n_bins - 1)


def _density(rewriter, hist, edges_per_dim):
    """hist / hist.sum() / the bin lengths of each dim, in ATen's order."""
    hist = rewriter.aten("aten.div.Tensor", hist, rewriter.aten("aten.sum.dim_IntList", hist, None))
    for d, edges in enumerate(edges_per_dim):
        n = rewriter.size(edges, 0)
        lengths = rewriter.aten(
            "aten.sub.Tensor",
            rewriter.aten("aten.slice.Tensor", edges, 0, 1, n),
            rewriter.aten("aten.slice.Tensor", edges, 0, 0, n - 1),
        )
        shape = [1] * len(edges_per_dim)
        shape[d] = n - 1
        hist = rewriter.aten("aten.div.Tensor", hist, view(rewriter, lengths, shape))
    return hist


def _histogramdd(rewriter, points, edges_per_dim, weight, density):
    """The D-dim histogram of `points` ([N, D]) on static-length edges: (hist, edges...)."""
    flat_bin, inside, n_total = 0, None, 1
    for d, edges in enumerate(edges_per_dim):
        x = rewriter.aten("aten.select.int", points, 1, d)
        n = rewriter.size(edges, 0)
        lo = rewriter.aten("aten.select.int", edges, 0, 0)
        hi = rewriter.aten("aten.select.int", edges, 0, n - 1)
        ok = _in_range(rewriter, x, lo, hi)
        inside = ok if inside is None else rewriter.aten("aten.logical_and", inside, ok)
        bins = _searched_bins(rewriter, x, edges)
        flat_bin = bins if d == 0 else rewriter.aten("aten.add.Tensor", flat_bin, bins)
        n_total *= n - 1
        if d + 1 < len(edges_per_dim):
            flat_bin = rewriter.aten(
                "aten.mul.Scalar", flat_bin, rewriter.size(edges_per_dim[d + 1], 0) - 1
            )
    hist = _count(rewriter, flat_bin, n_total, inside, weight, points)
    hist = view(rewriter, hist, [rewriter.size(e, 0) - 1 for e in edges_per_dim])
    if density:
        hist = _density(rewriter, hist, edges_per_dim)
    return hist


def _rows(rewriter, x, d):
    """_numel(x) / d: the number of D-dim points."""
    numel = _numel(rewriter, x)
    return numel // d if isinstance(numel, int) else rewriter.index_arith(arith.DivSIOp, numel, d)


def _static(rewriter, *values):
    return all(isinstance(rewriter.size(v, 0), int) for v in values)


def _flat_weight(rewriter, weight):
    if weight is None or rank(weight) == 1:
        return weight
    return view(rewriter, weight, [_numel(rewriter, weight)])


@register_decomposition("aten.histogram.bins_tensor")
def decompose_histogram_bins_tensor(op, rewriter):
    """aten.histogram.bins_tensor -> aten.view, aten.searchsorted.Tensor, aten.index_put
    (accumulate), aten.div.Tensor (density). Precondition: a static number of edges."""
    x, edges, weight = (rewriter.args[k] for k in ("self", "bins", "weight"))
    if not _static(rewriter, edges):
        return None
    points = view(rewriter, x, [_numel(rewriter, x), 1])
    hist = _histogramdd(
        rewriter, points, [edges], _flat_weight(rewriter, weight), rewriter.args["density"]
    )
    return hist, edges


def _linspace_edges(rewriter, x, n_bins, range_, widen):
    if range_ is None and _numel(rewriter, x) == 0:
        range_ = (0.0, 1.0)  # ATen's edges of an empty input
    lo, hi = _outer_edges(rewriter, x, *(range_ or (None, None)), widen)
    return rewriter.aten("aten.linspace.Tensor_Tensor", lo, hi, n_bins + 1, dtype=dtype(x))


@register_decomposition("aten.histogram.bin_ct")
def decompose_histogram_bin_ct(op, rewriter):
    """aten.histogram.bin_ct -> aten.amin, aten.amax (no range), aten.where.self,
    aten.linspace.Tensor_Tensor, aten.histogram.bins_tensor: ATen's edges, then its bins (its
    interpolation plus local search lands in the bin the binary search finds)"""
    x, n_bins = rewriter.args["self"], rewriter.args["bins"]
    edges = _linspace_edges(rewriter, x, n_bins, rewriter.args["range"], 0.5)
    out = rewriter.build(
        "aten.histogram.bins_tensor",
        x,
        edges,
        weight=rewriter.args["weight"],
        density=rewriter.args["density"],
        results=[r.type for r in op.results],
    )
    return list(out.results)


@register_decomposition("aten.histogramdd")
def decompose_histogramdd(op, rewriter):
    """aten.histogramdd -> aten.select.int, aten.amin, aten.amax (no range), aten.where.self,
    aten.linspace.Tensor_Tensor, aten.searchsorted.Tensor, aten.index_put (accumulate),
    aten.view, aten.div.Tensor (density). Precondition: a static number of dims D."""
    x, bins, range_ = (rewriter.args[k] for k in ("self", "bins", "range"))
    d = rewriter.size(x, -1)
    if not isinstance(d, int):
        return None
    points = view(rewriter, x, [_rows(rewriter, x, d), d])
    bins = list(bins) * d if len(bins) == 1 else list(bins)
    edges = []
    for i in range(d):
        column = rewriter.aten("aten.select.int", points, 1, i)
        pair = None if range_ is None else range_[2 * i : 2 * i + 2]
        edges.append(_linspace_edges(rewriter, column, bins[i], pair, 0.5))
    weight = _flat_weight(rewriter, rewriter.args["weight"])
    hist = _histogramdd(rewriter, points, edges, weight, rewriter.args["density"])
    return [hist, *edges]


@register_decomposition("aten.histogramdd.TensorList_bins")
def decompose_histogramdd_tensor_bins(op, rewriter):
    """aten.histogramdd.TensorList_bins -> aten.select.int, aten.searchsorted.Tensor,
    aten.index_put (accumulate), aten.view, aten.div.Tensor (density). Precondition: static
    numbers of edges and dims."""
    x, edges = rewriter.args["self"], list(rewriter.args["bins"])
    d = rewriter.size(x, -1)
    if not isinstance(d, int) or not _static(rewriter, *edges):
        return None
    points = view(rewriter, x, [_rows(rewriter, x, d), d])
    weight = _flat_weight(rewriter, rewriter.args["weight"])
    return [_histogramdd(rewriter, points, edges, weight, rewriter.args["density"]), *edges]


@register_decomposition("aten.histc")
def decompose_histc(op, rewriter):
    """aten.histc -> aten.amin, aten.amax (min == max), aten.where.self, aten.sub.Tensor,
    aten.mul.Scalar, aten.div.Tensor, aten._to_copy, aten.clamp, aten.index_put (accumulate):
    ATen's `(x - lo) * bins / (hi - lo)` truncated, in the input dtype, no local search"""
    x, n_bins, lo, hi = (rewriter.args[k] for k in ("self", "bins", "min", "max"))
    numel = _numel(rewriter, x)
    flat = x if rank(x) == 1 else view(rewriter, x, [numel])
    if lo == hi and numel != 0:
        # Not applicable to a `?`-sized input that may be empty at run time, where ATen uses
        # [lo - 1, hi + 1] and amin would raise.
        lo = hi = None
        if not isinstance(numel, int):
            return None
    lo, hi = _outer_edges(rewriter, flat, lo, hi, 1)
    scaled = rewriter.aten("aten.mul.Scalar", rewriter.aten("aten.sub.Tensor", flat, lo), n_bins)
    position = rewriter.aten("aten.div.Tensor", scaled, rewriter.aten("aten.sub.Tensor", hi, lo))
    bins = rewriter.aten(
        "aten.clamp", rewriter.aten("aten._to_copy", position, dtype=torch.int64), None, n_bins - 1
    )
    return _count(rewriter, bins, n_bins, _in_range(rewriter, flat, lo, hi), None, flat)

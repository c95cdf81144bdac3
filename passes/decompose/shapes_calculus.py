"""Differences, grids, sums to a size, integrals and gradients -> core aten, each written
with the operations (and so the roundings) of its ATen kernel."""

from __future__ import annotations

import math

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype
from .registry import register_decomposition
from .views import as_result, rank, reshape, result_type, slice_dim, view

# -- differences, grids, sums to a size, chunk_cat, resize_as -------------------------------------


@register_decomposition("aten.diff")
def decompose_diff(op, rewriter):
    """aten.diff -> aten.cat (prepend, append), aten.slice.Tensor, aten.sub.Tensor
    (aten.logical_xor for bool), n times"""
    x, n, dim = (rewriter.args[k] for k in ("self", "n", "dim"))
    dim %= rank(x)
    if n == 0:  # ATen returns the input, prepend and append ignored
        return rewriter.aten("aten.clone", x)
    parts = [rewriter.args["prepend"], x, rewriter.args["append"]]
    parts = [p for p in parts if p is not None]
    if len(parts) > 1:
        x = rewriter.aten("aten.cat", parts, dim)
    subtract = "aten.logical_xor" if dtype(x) == torch.bool else "aten.sub.Tensor"
    for _ in range(n):
        size = rewriter.size(x, dim)
        if isinstance(size, int) and size == 0:
            break
        end = rewriter.index_arith(arith.SubIOp, size, 1)
        x = rewriter.aten(
            subtract, slice_dim(rewriter, x, dim, 1, size), slice_dim(rewriter, x, dim, 0, end)
        )
    return as_result(rewriter, op, x)


def _meshgrid(op, rewriter, indexing: str):
    tensors = rewriter.args["tensors"]
    sizes = [rewriter.size(t, 0) if rank(t) else 1 for t in tensors]
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axes[0], axes[1] = 1, 0
    shape = [sizes[axes.index(a)] for a in range(len(tensors))]
    out = []
    for t, axis, r in zip(tensors, axes, op.results):
        column = [1] * len(tensors)
        column[axis] = sizes[axes.index(axis)]
        out.append(rewriter.aten("aten.expand", view(rewriter, t, column), shape, results=[r.type]))
    return out


@register_decomposition("aten.meshgrid")
def decompose_meshgrid(op, rewriter):
    """aten.meshgrid -> aten.view, aten.expand (matrix "ij" indexing)"""
    return _meshgrid(op, rewriter, "ij")


@register_decomposition("aten.meshgrid.indexing")
def decompose_meshgrid_indexing(op, rewriter):
    """aten.meshgrid.indexing -> aten.view, aten.expand ("xy" swaps the first two axes)"""
    return _meshgrid(op, rewriter, rewriter.args["indexing"])


@register_decomposition("aten.sum_to_size")
def decompose_sum_to_size(op, rewriter):
    """aten.sum_to_size -> aten.sum.dim_IntList (leading dims and dims broadcast from 1),
    aten.view"""
    x, size = rewriter.args["self"], list(rewriter.args["size"])
    lead = rank(x) - len(size)
    t = ir.RankedTensorType(x.type)
    dims = list(range(lead)) + [
        lead + i for i, s in enumerate(size) if s == 1 and t.get_dim_size(lead + i) != 1
    ]
    if not dims:
        return x
    summed = rewriter.aten("aten.sum.dim_IntList", x, dims, True, dtype=dtype(op.results[0]))
    if summed.type == op.results[0].type:
        return summed
    return view(rewriter, summed, size, results=result_type(op))


@register_decomposition("aten._chunk_cat")
def decompose_chunk_cat(op, rewriter):
    """aten._chunk_cat -> aten.constant_pad_nd (to a multiple of num_chunks), aten.clone,
    aten.view (num_chunks, -1), aten.cat (torch's own decomposition)"""
    tensors, dim, chunks = (rewriter.args[k] for k in ("tensors", "dim", "num_chunks"))
    if any(not ir.RankedTensorType(t.type).has_static_shape for t in tensors):
        return None
    dim %= rank(tensors[0])
    parts = []
    for t in tensors:
        shape = ir.RankedTensorType(t.type).shape
        padded = -(-shape[dim] // chunks) * chunks
        if padded != shape[dim]:
            pad = [0] * 2 * (len(shape) - dim - 1) + [0, padded - shape[dim]]
            t = rewriter.aten("aten.constant_pad_nd", t, pad, 0)
        numel = padded
        for s in shape[dim + 1 :]:
            numel *= s
        parts.append(reshape(rewriter, t, shape[:dim] + [chunks, numel // chunks]))
    return rewriter.aten("aten.cat", parts, dim + 1, results=result_type(op))


@register_decomposition("aten.resize_as")
def decompose_resize_as(op, rewriter):
    """aten.resize_as -> aten.clone, aten.view, aten.slice.Tensor / aten.constant_pad_nd: the
    first elements of `self` in the template's shape (ATen leaves the elements past `self`'s
    uninitialised; these are zeros)"""
    x, template = rewriter.args["self"], rewriter.args["the_template"]
    types = [ir.RankedTensorType(v.type) for v in (x, template)]
    if not all(t.has_static_shape for t in types):
        return None
    have, want = (math.prod(t.shape) for t in types)
    flat = reshape(rewriter, x, [have])
    if want < have:
        flat = rewriter.aten("aten.slice.Tensor", flat, 0, 0, want)
    elif want > have:
        flat = rewriter.aten("aten.constant_pad_nd", flat, [0, want - have], 0)
    return reshape(rewriter, flat, types[1].shape, results=result_type(op))


# -- trapezoid rules (ATen's Integration.cpp) -----------------------------------------------------


def _spacing_along(rewriter, y: ir.Value, x: ir.Value, dim: int) -> ir.Value:
    """The differences of sample points `x` along `dim` of `y`: a vector x is viewed along
    `dim`, a lower-rank x gets leading unit dims (ATen's `trapezoid(y, x)`)."""
    n = rank(y)
    if rank(x) == 1:
        sizes = [1] * n
        sizes[dim] = rewriter.size(x, 0)
        x = view(rewriter, x, sizes)
    elif rank(x) < n:
        x = view(rewriter, x, [1] * (n - rank(x)) + rewriter.sizes(x))
    right = rewriter.aten("aten.slice.Tensor", x, dim, 1, None)
    left = rewriter.aten("aten.slice.Tensor", x, dim, 0, -1)
    return rewriter.aten("aten.sub.Tensor", right, left)


def _pair_sums(rewriter, y: ir.Value, dim: int) -> ir.Value:
    """`y[1:] + y[:-1]` along dim, as ATen adds them."""
    return rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.slice.Tensor", y, dim, 1, None),
        rewriter.aten("aten.slice.Tensor", y, dim, 0, -1),
    )


def _empty_integral(op, rewriter, y, dim):
    """ATen's answer for no samples: zeros of the reduced shape (numpy's)."""
    if ir.RankedTensorType(y.type).get_dim_size(dim) != 0:
        return None
    shape = ir.RankedTensorType(op.results[0].type).shape
    return rewriter.aten("aten.full", shape, 0, dtype=dtype(op.results[0]), results=result_type(op))


def _trapezoid(op, rewriter, y, spacing, dim):
    dim %= rank(y)
    empty = _empty_integral(op, rewriter, y, dim)
    if empty is not None:
        return empty
    if isinstance(spacing, ir.Value):  # ((dx * (y[1:] + y[:-1])) * 0.5).sum(dim)
        areas = rewriter.aten("aten.mul.Tensor", spacing, _pair_sums(rewriter, y, dim))
        areas = rewriter.aten("aten.mul.Scalar", areas, 0.5)
        return rewriter.aten("aten.sum.dim_IntList", areas, [dim], results=result_type(op))
    # (y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx
    ends = rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.select.int", y, dim, 0),
        rewriter.aten("aten.select.int", y, dim, -1),
    )
    total = rewriter.aten("aten.sum.dim_IntList", y, [dim])
    inner = rewriter.aten("aten.sub.Tensor", total, rewriter.aten("aten.mul.Scalar", ends, 0.5))
    return rewriter.aten("aten.mul.Scalar", inner, spacing, results=result_type(op))


def _cumulative_trapezoid(op, rewriter, y, spacing, dim):
    """`(dx / 2 * (y[:-1] + y[1:])).cumsum(dim)`"""
    dim %= rank(y)
    pairs = rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.slice.Tensor", y, dim, 0, -1),
        rewriter.aten("aten.slice.Tensor", y, dim, 1, None),
    )
    if isinstance(spacing, ir.Value):
        half = rewriter.aten("aten.div.Scalar", spacing, 2.0)
        areas = rewriter.aten("aten.mul.Tensor", half, pairs)
    else:
        areas = rewriter.aten("aten.mul.Scalar", pairs, float(spacing) / 2.0)
    return rewriter.aten("aten.cumsum", areas, dim, results=result_type(op))


def _register_integral(op_name: str, integrate, spacing_arg: str, docstring: str) -> None:
    def rule(op, rewriter):
        a = rewriter.args
        spacing = a[spacing_arg]
        if isinstance(spacing, ir.Value):
            spacing = _spacing_along(rewriter, a["y"], spacing, a["dim"] % rank(a["y"]))
        return integrate(op, rewriter, a["y"], spacing, a["dim"])

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {docstring}"
    register_decomposition(op_name)(rule)


_TRAPEZOID_X = (
    "aten.slice.Tensor, aten.sub.Tensor, aten.add.Tensor, aten.mul.Tensor, aten.mul.Scalar, "
    "aten.sum.dim_IntList (ATen's trapezoid with sample points)"
)
_TRAPEZOID_DX = (
    "aten.select.int, aten.add.Tensor, aten.sum.dim_IntList, aten.mul.Scalar, aten.sub.Tensor "
    "(ATen's trapezoid with constant spacing)"
)
_CUMULATIVE = (
    "aten.slice.Tensor, aten.sub.Tensor, aten.add.Tensor, aten.div.Scalar, aten.mul.Tensor, "
    "aten.mul.Scalar, aten.cumsum"
)
for _name, _fn, _arg, _doc in (
    ("aten.trapezoid.x", _trapezoid, "x", _TRAPEZOID_X),
    ("aten.trapezoid.dx", _trapezoid, "dx", _TRAPEZOID_DX),
    ("aten.trapz.x", _trapezoid, "x", _TRAPEZOID_X),
    ("aten.trapz.dx", _trapezoid, "dx", _TRAPEZOID_DX),
    ("aten.cumulative_trapezoid.x", _cumulative_trapezoid, "x", _CUMULATIVE),
    ("aten.cumulative_trapezoid.dx", _cumulative_trapezoid, "dx", _CUMULATIVE),
):
    _register_integral(_name, _fn, _arg, _doc)


# -- gradient (ATen's ReduceOps.cpp: central differences inside, one-sided at the edges) ----------


def _cut(rewriter, x, dim, start, end=None):
    return rewriter.aten("aten.slice.Tensor", x, dim, start, end)


def _gradient_uniform(rewriter, x, dim: int, dx, edge_order: int) -> ir.Value:
    """`gradient_helper_float`: constant spacing dx along dim."""
    center = rewriter.aten(
        "aten.sub.Tensor", _cut(rewriter, x, dim, 2), _cut(rewriter, x, dim, 0, -2)
    )
    center = rewriter.aten("aten.div.Scalar", rewriter.aten("aten.div.Scalar", center, dx), 2)
    if edge_order == 1:
        first = rewriter.aten(
            "aten.sub.Tensor", _cut(rewriter, x, dim, 1, 2), _cut(rewriter, x, dim, 0, 1)
        )
        last = rewriter.aten(
            "aten.sub.Tensor", _cut(rewriter, x, dim, -1), _cut(rewriter, x, dim, -2, -1)
        )
    else:
        first = _weighted(rewriter, x, dim, [(0, 1, -1.5), (1, 2, 2), (2, 3, -0.5)])
        last = _weighted(rewriter, x, dim, [(-3, -2, 0.5), (-2, -1, -2), (-1, None, 1.5)])
    first, last = (rewriter.aten("aten.div.Scalar", e, dx) for e in (first, last))
    return rewriter.aten("aten.cat", [first, center, last], dim)


def _weighted(rewriter, x, dim, terms):
    """sum of `x[start:end] * weight` along dim, added left to right as ATen writes it."""
    out = None
    for start, end, weight in terms:
        term = rewriter.aten("aten.mul.Scalar", _cut(rewriter, x, dim, start, end), weight)
        out = term if out is None else rewriter.aten("aten.add.Tensor", out, term)
    return out


def _gradient_coordinates(rewriter, x, dim: int, coords: ir.Value, edge_order: int) -> ir.Value:
    """`gradient_helper`: sample coordinates along dim (a vector)."""
    shape = [1] * rank(x)
    shape[dim] = -1
    t = rewriter.aten
    dx = t("aten.sub.Tensor", _cut(rewriter, coords, 0, 1), _cut(rewriter, coords, 0, 0, -1))
    dx1, dx2 = _cut(rewriter, dx, 0, 0, -1), _cut(rewriter, dx, 0, 1)
    both = t("aten.add.Tensor", dx1, dx2)
    a = t("aten.div.Tensor", t("aten.neg", dx2), t("aten.mul.Tensor", dx1, both))
    b = t("aten.div.Tensor", t("aten.sub.Tensor", dx2, dx1), t("aten.mul.Tensor", dx1, dx2))
    c = t("aten.div.Tensor", dx1, t("aten.mul.Tensor", dx2, both))
    a, b, c = (reshape(rewriter, v, shape) for v in (a, b, c))
    center = t(
        "aten.add.Tensor",
        t(
            "aten.add.Tensor",
            t("aten.mul.Tensor", a, _cut(rewriter, x, dim, 0, -2)),
            t("aten.mul.Tensor", b, _cut(rewriter, x, dim, 1, -1)),
        ),
        t("aten.mul.Tensor", c, _cut(rewriter, x, dim, 2)),
    )
    d0, d1 = (t("aten.select.int", dx, 0, i) for i in (0, 1))
    dl, dm = (t("aten.select.int", dx, 0, i) for i in (-1, -2))
    if edge_order == 1:
        first = t(
            "aten.div.Tensor",
            t("aten.sub.Tensor", _cut(rewriter, x, dim, 1, 2), _cut(rewriter, x, dim, 0, 1)),
            d0,
        )
        last = t(
            "aten.div.Tensor",
            t("aten.sub.Tensor", _cut(rewriter, x, dim, -1), _cut(rewriter, x, dim, -2, -1)),
            dl,
        )
    else:
        first = _edge2(rewriter, x, dim, d0, d1, [(0, 1), (1, 2), (2, 3)], head=True)
        last = _edge2(rewriter, x, dim, dl, dm, [(-3, -2), (-2, -1), (-1, None)], head=False)
    return t("aten.cat", [first, center, last], dim)


def _edge2(rewriter, x, dim, d0, d1, cuts, head: bool):
    """Second-order one-sided weights at an edge (d0: the outer spacing, d1: the next)."""
    t = rewriter.aten
    both = t("aten.add.Tensor", d0, d1)
    if head:  # -(2 d0 + d1) / (d0 (d0 + d1)), (d0 + d1) / (d0 d1), -d0 / (d1 (d0 + d1))
        wa = t(
            "aten.div.Tensor",
            t("aten.neg", t("aten.add.Tensor", t("aten.mul.Scalar", d0, 2.0), d1)),
            t("aten.mul.Tensor", d0, both),
        )
        wb = t("aten.div.Tensor", both, t("aten.mul.Tensor", d0, d1))
        wc = t("aten.div.Tensor", t("aten.neg", d0), t("aten.mul.Tensor", d1, both))
    else:  # d0 / (d1 (d0 + d1)), -(d0 + d1) / (d0 d1), (2 d0 + d1) / (d0 (d0 + d1))
        both = t("aten.add.Tensor", d0, d1)
        wa = t("aten.div.Tensor", d0, t("aten.mul.Tensor", d1, both))
        wb = t("aten.div.Tensor", t("aten.neg", both), t("aten.mul.Tensor", d0, d1))
        wc = t(
            "aten.div.Tensor",
            t("aten.add.Tensor", t("aten.mul.Scalar", d0, 2), d1),
            t("aten.mul.Tensor", d0, both),
        )
    out = None
    for w, (start, end) in zip((wa, wb, wc), cuts):
        term = t("aten.mul.Tensor", w, _cut(rewriter, x, dim, start, end))
        out = term if out is None else t("aten.add.Tensor", out, term)
    return out


def _gradient(op, rewriter, spacing, dims):
    """One result per dim; `spacing`: one scalar or tensor per dim."""
    x, edge_order = rewriter.args["self"], rewriter.args["edge_order"]
    n = rank(x)
    dims = list(range(n)) if dims is None else [d % n for d in dims]
    if not isinstance(spacing, (list, tuple)):
        spacing = [1.0 if spacing is None else spacing] * len(dims)
    if len(spacing) != len(dims) or edge_order not in (1, 2):
        return None
    outs = []
    for dim, dx, r in zip(dims, spacing, op.results):
        if isinstance(dx, ir.Value) and rank(dx) == 1:
            g = _gradient_coordinates(rewriter, x, dim, dx, edge_order)
        elif isinstance(dx, ir.Value):
            return None  # a 0-d tensor spacing: kept
        else:
            g = _gradient_uniform(rewriter, x, dim, dx, edge_order)
        outs.append(
            g if g.type == r.type else view(rewriter, g, rewriter.sizes(g), results=[r.type])
        )
    return outs


def _as_list(v):
    return v if v is None or isinstance(v, (list, tuple)) else [v]


_GRADIENT_DOC = (
    "aten.slice.Tensor, aten.sub.Tensor, aten.div.Scalar, aten.mul.Scalar, aten.add.Tensor, "
    "aten.cat; with coordinates also aten.mul.Tensor, aten.div.Tensor, aten.neg, aten.select.int, "
    "aten.view"
)


def _register_gradient(op_name: str) -> None:
    def rule(op, rewriter):
        a = rewriter.args
        return _gradient(op, rewriter, a.get("spacing"), _as_list(a.get("dim")))

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {_GRADIENT_DOC}"
    register_decomposition(op_name)(rule)


for _op_name in (
    "aten.gradient.scalarint",
    "aten.gradient.scalararray",
    "aten.gradient.array",
    "aten.gradient.scalarrayint",
    "aten.gradient.scalarrayarray",
    "aten.gradient.tensorarrayint",
    "aten.gradient.tensorarray",
):
    _register_gradient(_op_name)

"""`grid_sampler_2d_backward` / `grid_sampler_3d_backward` (what AOTAutograd leaves for
`F.grid_sample`) -> core aten: gathers, scatter-adds and elementwise ops over the flattened
planes, as ATen's CPU kernels compute them (GridSamplerKernel.cpp for 2-d, GridSampler.cpp for
3-d, GridSamplerUtils.h).

Everything works on [N, C, L] (L = the grid's output points) against the input flattened to
[N, C, P] (P = its plane): each tap (a bilinear corner, the nearest pixel or one of the 16
bicubic taps) is a flat index [N, 1, L], an in-bounds mask and a weight. grad_input is a
`scatter_add` of `weight * grad_output` at each tap that lies inside the input (a tap outside
adds nothing); grad_grid is the derivative of the interpolation w.r.t. each coordinate, summed
over channels, times the derivative of the unnormalise / clip / reflect chain
(`apply_get_grad`: clipping passes a gradient only strictly inside, borders count as outside;
reflection flips its sign), zero for nearest. Bicubic unnormalises without padding and pads each
tap on its own, so its chain factor is the scaling factor alone.

Precondition: static input plane sizes (they enter the coordinate arithmetic as numbers, as in
the forward rules); batch, channels and output points may be dynamic.
"""

from __future__ import annotations

import functools
import itertools

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .registry import register_decomposition
from .upsample_grid import (
    BICUBIC,
    BILINEAR,
    BORDER,
    INT_MAX,
    NEAREST,
    REFLECTION,
    ZEROS,
    _corner,
    _unnormalize,
)
from .views import aten_sized, rank, reshape, view

CUBIC_A = -0.75  # ATen's bicubic convolution constant


def _where(rewriter, cond, value, other: float):
    return rewriter.aten(
        "aten.where.self", cond, value, rewriter.aten("aten.full_like", value, other)
    )


def _clip_get_grad(rewriter, c, size: int):
    """`clip_coordinates_get_grad`: c clamped into [0, size - 1] and whether it was strictly
    inside (the gradient passes only there)."""
    inside = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.gt.Scalar", c, 0),
        rewriter.aten("aten.lt.Scalar", c, size - 1),
    )
    return rewriter.aten("aten.clamp", c, 0, size - 1), inside


def _reflect_get_grad(rewriter, c, size: int, align: bool):
    """`reflect_coordinates_get_grad` of the vectorised kernel: c folded into the span by
    mirroring, and the sign (+1 / -1) of d(folded) / dc. An empty span (align_corners, size 1)
    gives (0, 0)."""
    twice_span = 2 * (size - 1) if align else 2 * size
    if twice_span == 0:
        zero = rewriter.aten("aten.full_like", c, 0)
        return zero, zero
    shifted = c if align else rewriter.aten("aten.add.Scalar", c, 0.5)
    negative = rewriter.aten("aten.lt.Scalar", shifted, 0)
    dist = rewriter.aten("aten.abs", shifted)
    flips = rewriter.aten("aten.trunc", rewriter.aten("aten.div.Scalar", dist, twice_span))
    extra = rewriter.aten(
        "aten.sub.Tensor", dist, rewriter.aten("aten.mul.Scalar", flips, twice_span)
    )
    mirrored = rewriter.aten("aten.rsub.Scalar", extra, twice_span)
    one_more = rewriter.aten("aten.gt.Tensor", extra, mirrored)
    folded = rewriter.aten("aten.where.self", one_more, mirrored, extra)
    if not align:
        folded = rewriter.aten("aten.sub.Scalar", folded, 0.5)
    flip = rewriter.aten("aten.logical_xor", one_more, negative)
    sign = _where(rewriter, flip, rewriter.aten("aten.full_like", c, -1), 1)
    return folded, sign


def _pad(rewriter, c, size: int, padding: int, align: bool):
    """`compute_coordinates` with its gradient factor: (coordinate, factor tensor or None = 1)."""
    if padding == BORDER:
        c, inside = _clip_get_grad(rewriter, c, size)
        return c, to_dtype(rewriter, inside, dtype(c))
    if padding == REFLECTION:
        c, sign = _reflect_get_grad(rewriter, c, size, align)
        c, inside = _clip_get_grad(rewriter, c, size)
        return c, rewriter.aten("aten.mul.Tensor", sign, to_dtype(rewriter, inside, dtype(c)))
    return c, None


def _int_safe(rewriter, c):
    """c where an int conversion is defined, else -100 (outside any input: masked)."""
    in_range = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.le.Scalar", c, INT_MAX - 1),
        rewriter.aten("aten.ge.Scalar", c, -(2**31)),
    )  # NaN compares false
    return _where(rewriter, in_range, c, -100)


class _Taps:
    """The input plane's static sizes, listed in grid coordinate order (x first), and the taps
    a mode reads: (flat index [N, 1, L] int64, inside [N, 1, L] bool). Bounds of an index
    several taps share (a corner's column) are built once."""

    def __init__(self, spatial: list[int]):
        k = len(spatial)
        self.sizes = spatial[::-1]
        self.strides = [functools.reduce(int.__mul__, spatial[k - d :], 1) for d in range(k)]
        self.taps = []
        self._bounds = []  # (index, size, (inside, clamped))

    def _corner(self, rewriter, idx, size: int):
        for value, extent, bounds in self._bounds:
            if value == idx and extent == size:
                return bounds
        bounds = _corner(rewriter, idx, size)
        self._bounds.append((idx, size, bounds))
        return bounds

    def add(self, rewriter, indices) -> None:
        """A tap at one int64 index per coordinate."""
        inside, flat = None, None
        for idx, size, stride in zip(indices, self.sizes, self.strides):
            ok, safe = self._corner(rewriter, idx, size)
            inside = ok if inside is None else rewriter.aten("aten.logical_and", inside, ok)
            term = rewriter.aten("aten.mul.Scalar", safe, stride) if stride != 1 else safe
            flat = term if flat is None else rewriter.aten("aten.add.Tensor", flat, term)
        self.taps.append((flat, inside))


def _bilinear(rewriter, coords, taps: _Taps, padding: int, align: bool):
    """The 2^k corners (x innermost) with weights prod(w_d); per coordinate the derivative
    factor and the pairs (low corner, high corner, weight of the other coordinates) whose value
    difference it multiplies (`(ne - nw) * s + (se - sw) * n` for x in 2-d)."""
    axes, factors = [], []
    for c, size in zip(coords, taps.sizes):
        u = _unnormalize(rewriter, c, size, align)
        u, gate = _pad(rewriter, u, size, padding, align)
        u = _int_safe(rewriter, u)
        scale = (size - 1) / 2 if align else size / 2
        factors.append(scale if gate is None else rewriter.aten("aten.mul.Scalar", gate, scale))
        low = rewriter.aten("aten.floor", u)
        frac = rewriter.aten("aten.sub.Tensor", u, low)
        lo = to_dtype(rewriter, low, torch.int64)
        hi = rewriter.aten("aten.add.Scalar", lo, 1)
        axes.append(((lo, hi), (rewriter.aten("aten.rsub.Scalar", frac, 1), frac)))
    k = len(coords)
    corners = [choice[::-1] for choice in itertools.product((0, 1), repeat=k)]
    weights = []
    for choice in corners:
        taps.add(rewriter, [axes[d][0][choice[d]] for d in range(k)])
        weights.append(_product(rewriter, [axes[d][1][choice[d]] for d in range(k)]))
    pairs = []
    for d in range(k):
        lows = [i for i, ch in enumerate(corners) if ch[d] == 0]
        pairs.append(
            [
                (
                    i,
                    corners.index(corners[i][:d] + (1,) + corners[i][d + 1 :]),
                    _product(rewriter, [axes[e][1][corners[i][e]] for e in range(k) if e != d]),
                )
                for i in lows
            ]
        )
    return weights, factors, pairs


def _product(rewriter, values):
    out = values[0]
    for v in values[1:]:
        out = rewriter.aten("aten.mul.Tensor", out, v)
    return out


def _cubic(rewriter, t, derivative: bool):
    """`get_cubic_coefficients` of t in [0, 1) (A = -0.75), or their derivatives d/dt."""
    a = CUBIC_A

    def poly(x, coefficients):  # Horner: coefficients from the highest power
        out = rewriter.aten("aten.mul.Scalar", x, coefficients[0])
        for coef in coefficients[1:-1]:
            out = rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.add.Scalar", out, coef), x)
        return rewriter.aten("aten.add.Scalar", out, coefficients[-1])

    outer = (a, -5 * a, 8 * a, -4 * a)  # 1 < |x| < 2
    inner = (a + 2, -(a + 3), 0, 1)  # |x| <= 1
    if derivative:
        outer = (3 * a, -10 * a, 8 * a)
        inner = (3 * (a + 2), -2 * (a + 3), 0)
    xs = (
        rewriter.aten("aten.add.Scalar", t, 1),
        t,
        rewriter.aten("aten.rsub.Scalar", t, 1),
        rewriter.aten("aten.rsub.Scalar", t, 2),
    )
    coefs = [poly(xs[0], outer), poly(xs[1], inner), poly(xs[2], inner), poly(xs[3], outer)]
    if derivative:  # x = 1 - t and x = 2 - t run against t
        coefs[2:] = [rewriter.aten("aten.neg", v) for v in coefs[2:]]
    return coefs


def _bicubic(rewriter, coords, taps: _Taps, padding: int, align: bool):
    """The 16 taps around floor(unnormalised) (x innermost), each padded on its own; weights
    cx * cy, and per coordinate the per-tap derivative weights (dcx * cy, cx * dcy)."""
    axes, factors = [], []
    for c, size in zip(coords, taps.sizes):
        u = _int_safe(rewriter, _unnormalize(rewriter, c, size, align))
        factors.append((size - 1) / 2 if align else size / 2)
        base = rewriter.aten("aten.floor", u)
        t = rewriter.aten("aten.sub.Tensor", u, base)
        indices = []
        for j in range(4):
            tap, _ = _pad(
                rewriter, rewriter.aten("aten.add.Scalar", base, j - 1), size, padding, align
            )
            # integral already: the conversion is exact
            indices.append(to_dtype(rewriter, _int_safe(rewriter, tap), torch.int64))
        axes.append((indices, _cubic(rewriter, t, False), _cubic(rewriter, t, True)))
    (ix, cx, dx), (iy, cy, dy) = axes
    weights, dweights = [], ([], [])
    for i in range(4):
        for j in range(4):
            taps.add(rewriter, [ix[j], iy[i]])
            weights.append(rewriter.aten("aten.mul.Tensor", cx[j], cy[i]))
            dweights[0].append(rewriter.aten("aten.mul.Tensor", dx[j], cy[i]))
            dweights[1].append(rewriter.aten("aten.mul.Tensor", cx[j], dy[i]))
    return weights, factors, dweights


def _nearest(rewriter, coords, taps: _Taps, padding: int, align: bool):
    """One tap at the rounded (half to even) location; no grid gradient."""
    indices = []
    for c, size in zip(coords, taps.sizes):
        u, _ = _pad(rewriter, _unnormalize(rewriter, c, size, align), size, padding, align)
        rounded = rewriter.aten("aten.round", _int_safe(rewriter, u))
        indices.append(to_dtype(rewriter, rounded, torch.int64))
    taps.add(rewriter, indices)
    return [None], None, None


def _expand_index(rewriter, idx, n, c, points):
    """idx [N, 1, L] broadcast over the channels (gather and scatter_add take one index per
    element)."""
    return aten_sized(
        rewriter, "aten.expand", idx, [n, c, points], sizes=[n, c, points], elem=torch.int64
    )


def _grid_sampler_backward(k: int, op, rewriter):
    a = rewriter.args
    grad, x, grid = a["grad_output"], a["input"], a["grid"]
    mode, padding, align = a["interpolation_mode"], a["padding_mode"], bool(a["align_corners"])
    mask = list(a["output_mask"])
    sizes = rewriter.sizes(x)
    spatial = sizes[2:]
    if rank(x) != k + 2 or rank(grid) != k + 2 or rank(grad) != k + 2:
        return None
    if padding not in (ZEROS, BORDER, REFLECTION) or dtype(x) not in (torch.float32, torch.float64):
        return None
    build = {BILINEAR: _bilinear, NEAREST: _nearest, BICUBIC: _bicubic if k == 2 else None}.get(
        mode
    )
    if build is None or not all(isinstance(s, int) for s in spatial):
        return None
    n, c = sizes[:2]
    points = functools.reduce(
        lambda p, s: rewriter.index_arith(arith.MulIOp, p, s), rewriter.sizes(grid)[1:-1], 1
    )
    plane = functools.reduce(int.__mul__, spatial, 1)
    g = reshape(rewriter, grad, [n, c, points])
    coords = [
        reshape(rewriter, rewriter.aten("aten.select.int", grid, -1, d), [n, 1, points])
        for d in range(k)
    ]
    taps = _Taps(spatial)
    weights, factors, derivatives = build(rewriter, coords, taps, padding, align)
    index = [_expand_index(rewriter, idx, n, c, points) for idx, _ in taps.taps]
    results = [_grad_input(rewriter, op, g, taps, weights, index, plane, mask[0])]
    if derivatives is None:
        zeros = rewriter.aten("aten.full_like", grid, 0)
        if zeros.type != op.results[1].type:  # the result's type may know more static sizes
            zeros = view(rewriter, zeros, rewriter.sizes(grid), results=[op.results[1].type])
        return [*results, zeros]
    flat_x = reshape(rewriter, x, [n, c, plane])
    values = [  # each tap's input values, 0 outside
        _where(rewriter, inside, rewriter.aten("aten.gather", flat_x, 2, idx), 0)
        for (_, inside), idx in zip(taps.taps, index)
    ]
    grads = [
        _grad_coordinate(rewriter, g, values, derivatives[d], factors[d], mode == BILINEAR)
        for d in range(k)
    ]
    stacked = rewriter.aten("aten.cat", grads, -1)  # [N, 1, L, k], fresh and contiguous
    return [*results, view(rewriter, stacked, rewriter.sizes(grid), results=[op.results[1].type])]


def _grad_coordinate(rewriter, g, values, derivative, factor, paired: bool):
    """One coordinate's gradient [N, 1, L, 1]: sum over channels of grad_output times the
    interpolation's derivative (bilinear: value differences of corner pairs times the other
    coordinates' weights; bicubic: values times per-tap derivative weights), times the chain's
    factor."""
    if paired:
        terms = [
            rewriter.aten(
                "aten.mul.Tensor", rewriter.aten("aten.sub.Tensor", values[hi], values[lo]), w
            )
            for lo, hi, w in derivative
        ]
    else:
        terms = [rewriter.aten("aten.mul.Tensor", v, w) for v, w in zip(values, derivative)]
    inner = functools.reduce(lambda p, t: rewriter.aten("aten.add.Tensor", p, t), terms)
    total = rewriter.aten(
        "aten.sum.dim_IntList", rewriter.aten("aten.mul.Tensor", inner, g), [1], True
    )
    if isinstance(factor, float):
        total = rewriter.aten("aten.mul.Scalar", total, factor)
    else:
        total = rewriter.aten("aten.mul.Tensor", total, factor)
    return rewriter.aten("aten.unsqueeze", total, -1)


def _grad_input(rewriter, op, g, taps: _Taps, weights, index, plane: int, wanted: bool):
    """zeros [N, C, P] with `weight * grad_output` scatter-added at every tap inside the input
    (`index`: the taps' flat indices over the channels), viewed as the input; zeros when
    output_mask leaves it out (nothing reads it then)."""
    n, c = rewriter.sizes(g)[:2]
    result = op.results[0].type
    elem = ir.RankedTensorType(result).element_type
    with op.location:
        flat_type = ir.RankedTensorType.get(
            list(ir.RankedTensorType(result).shape[:2]) + [plane], elem
        )
    acc = rewriter.aten("aten.full", [n, c, plane], 0, dtype=dtype(g), results=[flat_type])
    if wanted:
        for (_, inside), idx, w in zip(taps.taps, index, weights):
            src = g if w is None else rewriter.aten("aten.mul.Tensor", g, w)
            src = _where(rewriter, inside, src, 0)
            acc = rewriter.aten("aten.scatter_add", acc, 2, idx, src, results=[flat_type])
    # scatter_add's result (or the fill) is fresh and contiguous: a view suffices
    sizes = [n, c, *taps.sizes[::-1]]
    return view(rewriter, acc, sizes, results=[result])


for _k, _name in ((2, "aten.grid_sampler_2d_backward"), (3, "aten.grid_sampler_3d_backward")):
    _rule = functools.partial(_grid_sampler_backward, _k)
    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    _rule.__doc__ = (
        f"{_name} -> aten.select.int, aten.view, aten.floor / aten.round, aten.where.self, "
        "aten.gather, aten.scatter_add, aten.mul.Tensor, aten.sum.dim_IntList, aten.cat "
        "(bilinear, nearest" + (", bicubic" if _k == 2 else "") + "; static input plane)"
    )
    register_decomposition(_name)(_rule)

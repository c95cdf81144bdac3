"""Grid sampling -> core aten: `grid_sampler` -> `grid_sampler_2d` (core) / `grid_sampler_3d`,
`grid_sampler_3d` and `affine_grid_generator` from gathers and elementwise ops.

The 3-D sampler mirrors ATen's CPU kernel (`GridSampler.cpp`, `GridSampler.h`): the grid is
unnormalised, padded (`compute_coordinates`: border clip, reflection, then non-finite or out of
int range -> -100), and each of the 8 trilinear corners adds `value * weight` only when it lies
inside the input (a corner outside adds nothing, not `0 * value`), in the kernel's corner order.
"""

from __future__ import annotations

import torch
from mlir import ir

from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition
from .views import result_type

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
INT_MAX = 2**31 - 1


@register_decomposition("aten.grid_sampler")
def decompose_grid_sampler(op, rewriter):
    """aten.grid_sampler -> aten.grid_sampler_2d (4-D input) or aten.grid_sampler_3d (5-D)"""
    x = rewriter.args["self"] if "self" in rewriter.args else rewriter.args["input"]
    rank = ir.RankedTensorType(x.type).rank
    target = {4: "aten.grid_sampler_2d", 5: "aten.grid_sampler_3d"}.get(rank)
    if target is None:
        return None
    a = rewriter.args
    return rewriter.aten(
        target,
        x,
        a["grid"],
        a["interpolation_mode"],
        a["padding_mode"],
        a["align_corners"],
        results=result_type(op),
    )


def _unnormalize(rewriter, coord: ir.Value, size: int, align_corners: bool) -> ir.Value:
    """`grid_sampler_unnormalize`: [-1, 1] -> pixel coordinates."""
    plus_one = rewriter.aten("aten.add.Scalar", coord, 1)
    if align_corners:
        return rewriter.aten(
            "aten.mul.Scalar", rewriter.aten("aten.div.Scalar", plus_one, 2), size - 1
        )
    scaled = rewriter.aten("aten.sub.Scalar", rewriter.aten("aten.mul.Scalar", plus_one, size), 1)
    return rewriter.aten("aten.div.Scalar", scaled, 2)


def _clip(rewriter, coord: ir.Value, size: int) -> ir.Value:
    """`clip_coordinates`: std::min(size - 1, std::max(coord, 0)), which maps NaN to size - 1."""
    clipped = rewriter.aten("aten.clamp", coord, 0, size - 1)
    nan = rewriter.aten("aten.isnan", coord)
    return rewriter.aten(
        "aten.where.self", nan, rewriter.aten("aten.full_like", coord, size - 1), clipped
    )


def _reflect(rewriter, coord: ir.Value, twice_low: int, twice_high: int) -> ir.Value:
    """`reflect_coordinates`: fold `coord` into [low, high] by mirroring at both ends."""
    if twice_low == twice_high:
        return rewriter.aten("aten.full_like", coord, 0)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = rewriter.aten("aten.abs", rewriter.aten("aten.sub.Scalar", coord, low))
    extra = rewriter.aten("aten.fmod.Scalar", dist, span)
    flips = rewriter.aten("aten.floor", rewriter.aten("aten.div.Scalar", dist, span))
    even = rewriter.aten("aten.eq.Scalar", rewriter.aten("aten.remainder.Scalar", flips, 2), 0)
    forward = rewriter.aten("aten.add.Scalar", extra, low)
    mirrored = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", extra), span + low)
    return rewriter.aten("aten.where.self", even, forward, mirrored)


def _source(rewriter, coord: ir.Value, size: int, padding: int, align_corners: bool) -> ir.Value:
    """`grid_sampler_compute_source_index`: unnormalise, pad, non-finite or huge -> -100."""
    c = _unnormalize(rewriter, coord, size, align_corners)
    if padding == BORDER:
        c = _clip(rewriter, c, size)
    elif padding == REFLECTION:
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        c = _clip(rewriter, _reflect(rewriter, c, *bounds), size)
    in_range = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.le.Scalar", c, INT_MAX - 1),
        rewriter.aten("aten.ge.Scalar", c, -(2**31)),
    )  # NaN compares false: -100 too
    return rewriter.aten("aten.where.self", in_range, c, rewriter.aten("aten.full_like", c, -100))


def _corner(rewriter, idx: ir.Value, size: int):
    """(0 <= idx < size, idx clamped into the input) for int64 corner indices."""
    inside = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.ge.Scalar", idx, 0),
        rewriter.aten("aten.lt.Scalar", idx, size),
    )
    return inside, rewriter.aten("aten.clamp", idx, 0, size - 1)


def _gather(rewriter, channels_last: ir.Value, batch: ir.Value, idx):
    """channels_last[n, z, y, x, :] for index tensors [N, Do, Ho, Wo]: [N, Do, Ho, Wo, C]."""
    return rewriter.aten("aten.index.Tensor", channels_last, [batch, *idx])


def _masked(rewriter, value: ir.Value, weight, inside: ir.Value) -> ir.Value:
    if weight is not None:
        value = rewriter.aten("aten.mul.Tensor", value, rewriter.aten("aten.unsqueeze", weight, -1))
    zero = rewriter.aten("aten.full_like", value, 0)
    return rewriter.aten(
        "aten.where.self", rewriter.aten("aten.unsqueeze", inside, -1), value, zero
    )


@register_decomposition("aten.grid_sampler_3d")
def decompose_grid_sampler_3d(op, rewriter):
    """aten.grid_sampler_3d -> aten.select.int, aten.floor / aten.round, aten.index.Tensor,
    aten.mul.Tensor, aten.where.self, aten.add.Tensor, aten.permute (bilinear or nearest; static
    D, H, W)"""
    a = rewriter.args
    x, grid, mode = a["input"], a["grid"], a["interpolation_mode"]
    sizes = rewriter.sizes(x)
    if mode not in (BILINEAR, NEAREST) or not all(isinstance(s, int) for s in sizes[2:]):
        return None
    d, h, w = sizes[2:]
    coords = [rewriter.aten("aten.select.int", grid, -1, k) for k in range(3)]
    src = [
        _source(rewriter, c, n, a["padding_mode"], a["align_corners"])
        for c, n in zip(coords, (w, h, d))
    ]
    channels_last = rewriter.aten("aten.permute", x, [0, 2, 3, 4, 1])
    n = sizes[0]
    results = [tensor_of(rewriter.op, [n], torch.int64)] if isinstance(n, ir.Value) else None
    batch = rewriter.aten("aten.arange.start_step", 0, n, 1, dtype=torch.int64, results=results)
    batch = rewriter.aten("aten.view", batch, [-1, 1, 1, 1], results=[_column(rewriter, batch)])
    if mode == NEAREST:
        out = _nearest(rewriter, channels_last, batch, src, (w, h, d))
    else:
        out = _trilinear(rewriter, channels_last, batch, src, (w, h, d))
    return rewriter.aten("aten.permute", out, [0, 4, 1, 2, 3], results=result_type(op))


def _column(rewriter, v: ir.Value) -> ir.Type:
    t = ir.RankedTensorType(v.type)
    with rewriter.op.location:
        return ir.RankedTensorType.get([t.get_dim_size(0), 1, 1, 1], t.element_type)


def _nearest(rewriter, channels_last, batch, src, sizes):
    """`nearbyint` (round half to even) of each coordinate; outside -> 0."""
    inside, idx = None, []
    for c, n in zip(src, sizes):
        i = to_dtype(rewriter, rewriter.aten("aten.round", c), torch.int64)
        ok, safe = _corner(rewriter, i, n)
        inside = ok if inside is None else rewriter.aten("aten.logical_and", inside, ok)
        idx.append(safe)
    value = _gather(rewriter, channels_last, batch, idx[::-1])
    return _masked(rewriter, value, None, inside)


def _trilinear(rewriter, channels_last, batch, src, sizes):
    """The 8 corners in the kernel's order (tnw, tne, tsw, tse, bnw, bne, bsw, bse: z outer, x
    inner), weight = wx * wy * wz with w_low = (low + 1) - c, w_high = c - low."""
    axes = []
    for c, n in zip(src, sizes):
        low = rewriter.aten("aten.floor", c)
        high = rewriter.aten("aten.add.Scalar", low, 1)
        weights = (
            rewriter.aten("aten.sub.Tensor", high, c),
            rewriter.aten("aten.sub.Tensor", c, low),
        )
        lo = to_dtype(rewriter, low, torch.int64)
        corners = (
            _corner(rewriter, lo, n),
            _corner(rewriter, rewriter.aten("aten.add.Scalar", lo, 1), n),
        )
        axes.append((weights, corners))
    out = None
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                picks = [axes[0], axes[1], axes[2]]
                weight = rewriter.aten("aten.mul.Tensor", picks[0][0][dx], picks[1][0][dy])
                weight = rewriter.aten("aten.mul.Tensor", weight, picks[2][0][dz])
                (ix_ok, ix), (iy_ok, iy), (iz_ok, iz) = (
                    picks[0][1][dx],
                    picks[1][1][dy],
                    picks[2][1][dz],
                )
                inside = rewriter.aten(
                    "aten.logical_and", rewriter.aten("aten.logical_and", iz_ok, iy_ok), ix_ok
                )
                value = _gather(rewriter, channels_last, batch, [iz, iy, ix])
                term = _masked(rewriter, value, weight, inside)
                out = term if out is None else rewriter.aten("aten.add.Tensor", out, term)
    return out


def _linspace_from_neg_one(rewriter, like: ir.Value, n: int, align_corners: bool) -> ir.Value:
    """ATen's `linspace_from_neg_one`: linspace(-1, 1, n) (the CPU kernel's two halves: -1 + step
    * i below n / 2, 1 - step * (n - 1 - i) from there), times (n - 1) / n unless align_corners;
    zeros when n <= 1."""
    elem = dtype(like)
    i = rewriter.aten("aten.arange.start_step", 0, n, 1, dtype=elem)
    if n <= 1:
        return rewriter.aten("aten.mul.Scalar", i, 0)
    step = float(torch.tensor(2.0, dtype=elem) / (n - 1))
    rising = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.mul.Scalar", i, step), -1)
    back = rewriter.aten("aten.mul.Scalar", rewriter.aten("aten.rsub.Scalar", i, n - 1), step)
    falling = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", back), 1)
    first_half = rewriter.aten("aten.lt.Scalar", i, n // 2)
    line = rewriter.aten("aten.where.self", first_half, rising, falling)
    if not align_corners:
        line = rewriter.aten("aten.div.Scalar", rewriter.aten("aten.mul.Scalar", line, n - 1), n)
    return line


@register_decomposition("aten.affine_grid_generator")
def decompose_affine_grid_generator(op, rewriter):
    """aten.affine_grid_generator -> aten.arange.start_step, aten.where.self, aten.view,
    aten.expand, aten.cat, aten.permute, aten.bmm: the base grid [*spatial, (x, y[, z], 1)] times
    theta^T, as ATen's affine_grid_generator_4D / _5D (static sizes)"""
    theta, size, align_corners = (rewriter.args[k] for k in ("theta", "size", "align_corners"))
    if not all(isinstance(s, int) for s in size) or len(size) not in (4, 5):
        return None
    n, spatial = size[0], list(size[2:])
    k = len(spatial)
    parts = []
    for axis, extent in enumerate(reversed(spatial)):  # x runs along W (last), y along H, z along D
        dim = k - 1 - axis
        line = _linspace_from_neg_one(rewriter, theta, extent, align_corners)
        shape = [extent if d == dim else 1 for d in range(k)] + [1]
        parts.append(
            rewriter.aten("aten.expand", rewriter.aten("aten.view", line, shape), [*spatial, 1])
        )
    parts.append(rewriter.aten("aten.full", [*spatial, 1], 1, dtype=dtype(theta)))
    base = rewriter.aten("aten.cat", parts, -1)
    points = 1
    for extent in spatial:
        points *= extent
    base = rewriter.aten(
        "aten.expand", rewriter.aten("aten.view", base, [1, points, k + 1]), [n, points, k + 1]
    )
    grid = rewriter.aten("aten.bmm", base, rewriter.aten("aten.permute", theta, [0, 2, 1]))
    return rewriter.aten("aten.view", grid, [n, *spatial, k], results=result_type(op))

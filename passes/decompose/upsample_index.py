"""Source indices and weights of ATen's CPU resampling kernels, built from core aten ops.

One spatial dim at a time: `taps` are `(index [osz] int64, weight [osz] | None)` pairs and
`apply_taps` sums `index_select(x, dim, index) * weight` over them, in the order ATen's
`cpu_upsample_generic` accumulates (`t0*w0 + t1*w1 + ...`). Applying the dims last to first
reproduces its nested loop, whose innermost sum runs over the last dim.

The index arithmetic mirrors `UpSample.h` / `UpSampleKernel.cpp` step by step, including the
roundings: the scale is an opmath value (float32 below double), `floorf` rounds a double source
index to float first, and `scale * (i + 0.5) - 0.5` is contracted to one fused multiply-add in
float32 builds (emulated in float64 and rounded once). Nearest indices are exact matches of the
eager kernel; an index differing in one ulp would pick another pixel. The weighted sums are
not fused: an interpolated value may differ from eager's (contracted) sum in the last bit.

Sizes are ints or runtime `index` values; a runtime size enters tensor arithmetic as a 0-d tensor
(`aten.scalar_tensor`).
"""

from __future__ import annotations

import torch
from mlir import ir

from .common import tensor_of, to_dtype


def opmath(elem: torch.dtype) -> torch.dtype:
    """`at::opmath_type`: double stays double, every other dtype computes in float32."""
    return torch.float64 if elem == torch.float64 else torch.float32


def as_operand(rewriter, v, elem: torch.dtype):
    """A Python number as is; a runtime `index` value as a 0-d `elem` tensor."""
    if isinstance(v, ir.Value):
        return rewriter.aten(
            "aten.scalar_tensor", v, dtype=elem, results=[tensor_of(rewriter.op, [], elem)]
        )
    return v


def binary(rewriter, name: str, a: ir.Value, b) -> ir.Value:
    """`aten.<name>.Tensor` when `b` is a tensor, `aten.<name>.Scalar` for a Python number."""
    if isinstance(b, ir.Value):
        return rewriter.aten(f"aten.{name}.Tensor", a, b)
    return rewriter.aten(f"aten.{name}.Scalar", a, b)


def upper_clamp(rewriter, idx: ir.Value, isz) -> ir.Value:
    """min(idx, isz - 1) on int64 indices."""
    if isinstance(isz, int):
        return rewriter.aten("aten.clamp", idx, None, isz - 1)
    last = rewriter.aten("aten.sub.Scalar", as_operand(rewriter, isz, torch.int64), 1)
    return rewriter.aten("aten.minimum", idx, last)


def positions(rewriter, osz, elem: torch.dtype) -> ir.Value:
    """arange(osz) as `elem` (`?` when osz is a runtime size)."""
    results = [tensor_of(rewriter.op, [osz], elem)] if isinstance(osz, ir.Value) else None
    return rewriter.aten("aten.arange.start_step", 0, osz, 1, dtype=elem, results=results)


def _ratio(a: int, b: int, opm: torch.dtype) -> float:
    """`static_cast<opmath_t>(a) / b`, rounded as the kernel rounds it."""
    return float(torch.tensor(a, dtype=opm) / b)


def compute_scale(rewriter, isz, osz, align_corners: bool, scale, opm):
    """`area_pixel_compute_scale<opmath_t>`: a Python float or a 0-d `opm` tensor."""
    if not align_corners and scale is not None and scale > 0:
        return float(torch.tensor(1.0 / scale, dtype=opm))
    if isinstance(isz, int) and isinstance(osz, int):
        if not align_corners:
            return _ratio(isz, osz, opm)
        return _ratio(isz - 1, osz - 1, opm) if osz > 1 else 0.0
    num, den = (_tensor(rewriter, as_operand(rewriter, v, opm), opm) for v in (isz, osz))
    if not align_corners:
        return rewriter.aten("aten.div.Tensor", num, den)
    ratio = rewriter.aten(
        "aten.div.Tensor",
        rewriter.aten("aten.sub.Scalar", num, 1),
        rewriter.aten("aten.sub.Scalar", den, 1),
    )
    wide = rewriter.aten("aten.gt.Scalar", den, 1)
    return rewriter.aten("aten.where.self", wide, ratio, rewriter.aten("aten.full_like", ratio, 0))


def _tensor(rewriter, v, elem):
    if isinstance(v, ir.Value):
        return v
    return rewriter.aten("aten.scalar_tensor", v, dtype=elem)


def half_pixel_source(rewriter, i: ir.Value, scale, opm) -> ir.Value:
    """`scale * (i + 0.5) - 0.5` (i in `opm`), rounded once as the fused multiply-add of a
    float32 build (float64 arithmetic is exact here: 24-bit operands)."""
    if opm == torch.float64:
        return binary(
            rewriter,
            "sub",
            binary(rewriter, "mul", rewriter.aten("aten.add.Scalar", i, 0.5), scale),
            0.5,
        )
    wide_scale = to_dtype(rewriter, scale, torch.float64) if isinstance(scale, ir.Value) else scale
    wide = rewriter.aten("aten.add.Scalar", to_dtype(rewriter, i, torch.float64), 0.5)
    exact = rewriter.aten("aten.sub.Scalar", binary(rewriter, "mul", wide, wide_scale), 0.5)
    return to_dtype(rewriter, exact, torch.float32)


def source_index(rewriter, i, scale, align_corners: bool, cubic: bool, opm) -> ir.Value:
    """`area_pixel_compute_source_index<opmath_t>`."""
    if align_corners:
        return binary(rewriter, "mul", i, scale)
    src = half_pixel_source(rewriter, i, scale, opm)
    return src if cubic else rewriter.aten("aten.clamp", src, 0.0)


def floorf(rewriter, v: ir.Value) -> ir.Value:
    """`static_cast<int64_t>(floorf(v))`: a double is rounded to float first."""
    return to_dtype(
        rewriter, rewriter.aten("aten.floor", to_dtype(rewriter, v, torch.float32)), torch.int64
    )


def nearest_index(rewriter, isz, osz, scale, exact: bool, opm) -> ir.Value:
    """`HelperInterpNearest` / `HelperInterpNearestExact::compute_indices_weights`:
    floorf(scale * i) or floorf(source_index(i) + 0.5), clamped to the last input index."""
    i = positions(rewriter, osz, opm)
    s = compute_scale(rewriter, isz, osz, False, scale, opm)
    if exact:
        src = source_index(rewriter, i, s, False, False, opm)
        if opm == torch.float32:
            # `real + 0.5` is a double sum rounded to float by floorf: one float32 add.
            src = rewriter.aten("aten.add.Scalar", src, 0.5)
        else:
            src = to_dtype(rewriter, rewriter.aten("aten.add.Scalar", src, 0.5), torch.float32)
    else:
        src = binary(rewriter, "mul", i, s)
    return upper_clamp(rewriter, floorf(rewriter, src), isz)


def apply_taps(rewriter, x: ir.Value, dim: int, taps) -> ir.Value:
    """sum_j index_select(x, dim, index_j) * weight_j over taps `(index, weight[, valid])`: a None
    weight takes the pixel as is (nearest); a tap with a `valid` mask adds 0 where it is false, so
    that a padding tap of weight 0 on an inf pixel adds no NaN (the kernel skips it)."""
    rank = ir.RankedTensorType(x.type).rank
    out = None
    for index, weight, *valid in taps:
        picked = rewriter.aten("aten.index_select", x, dim, index)
        if weight is not None:
            picked = rewriter.aten("aten.mul.Tensor", picked, _along(rewriter, weight, rank, dim))
        if valid:
            mask = _along(rewriter, valid[0], rank, dim)
            zero = rewriter.aten("aten.full_like", picked, 0)
            picked = rewriter.aten("aten.where.self", mask, picked, zero)
        out = picked if out is None else rewriter.aten("aten.add.Tensor", out, picked)
    return out


def _along(rewriter, v: ir.Value, rank: int, dim: int) -> ir.Value:
    """A [osz] vector shaped to broadcast along `dim` of a rank-`rank` tensor."""
    trailing = rank - 1 - dim
    if not trailing:
        return v
    return rewriter.aten(
        "aten.view", v, [-1] + [1] * trailing, results=[_unsqueezed(rewriter, v, trailing)]
    )


def _unsqueezed(rewriter, v: ir.Value, trailing: int) -> ir.Type:
    t = ir.RankedTensorType(v.type)
    with rewriter.op.location:
        return ir.RankedTensorType.get([t.get_dim_size(0)] + [1] * trailing, t.element_type)


def _same_size(rewriter, isz, osz):
    """isz == osz: a Python bool, or a 0-d bool tensor for runtime sizes."""
    if isinstance(isz, int) and isinstance(osz, int):
        return isz == osz
    a, b = (
        _tensor(rewriter, as_operand(rewriter, v, torch.int64), torch.int64) for v in (isz, osz)
    )
    return rewriter.aten("aten.eq.Tensor", a, b)


def _one_minus(rewriter, v: ir.Value) -> ir.Value:
    return rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", v), 1)


def linear_taps(rewriter, isz, osz, scale, align_corners: bool, opm):
    """`compute_source_index_and_lambda`: two taps (index0, 1 - lambda), (index1, lambda); an
    unresized dim (isz == osz) copies with lambda 0, as the kernel does (so inf * 0 is NaN)."""
    i = positions(rewriter, osz, opm)
    s = compute_scale(rewriter, isz, osz, align_corners, scale, opm)
    real = source_index(rewriter, i, s, align_corners, False, opm)
    idx0 = upper_clamp(rewriter, floorf(rewriter, real), isz)
    lam1 = rewriter.aten(
        "aten.clamp", rewriter.aten("aten.sub.Tensor", real, to_dtype(rewriter, idx0, opm)), 0, 1
    )
    idx1 = upper_clamp(rewriter, rewriter.aten("aten.add.Scalar", idx0, 1), isz)
    same = _same_size(rewriter, isz, osz)
    if same is True:
        idx0 = idx1 = to_dtype(rewriter, i, torch.int64)
        lam1 = rewriter.aten("aten.full_like", i, 0)
    elif isinstance(same, ir.Value):
        ints = to_dtype(rewriter, i, torch.int64)
        idx0 = rewriter.aten("aten.where.self", same, ints, idx0)
        idx1 = rewriter.aten("aten.where.self", same, ints, idx1)
        lam1 = rewriter.aten("aten.where.self", same, rewriter.aten("aten.full_like", i, 0), lam1)
    return [(idx0, _one_minus(rewriter, lam1)), (idx1, lam1)]


def cubic_inner(rewriter, x: ir.Value, a: float) -> ir.Value:
    """`cubic_convolution1`: ((A + 2) * x - (A + 3)) * x * x + 1, for |x| <= 1."""
    v = rewriter.aten("aten.sub.Scalar", rewriter.aten("aten.mul.Scalar", x, a + 2), a + 3)
    v = rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.mul.Tensor", v, x), x)
    return rewriter.aten("aten.add.Scalar", v, 1)


def cubic_outer(rewriter, x: ir.Value, a: float) -> ir.Value:
    """`cubic_convolution2`: ((A * x - 5A) * x + 8A) * x - 4A, for 1 <= |x| <= 2."""
    v = rewriter.aten("aten.sub.Scalar", rewriter.aten("aten.mul.Scalar", x, a), 5 * a)
    v = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.mul.Tensor", v, x), 8 * a)
    return rewriter.aten("aten.sub.Scalar", rewriter.aten("aten.mul.Tensor", v, x), 4 * a)


BICUBIC_A = -0.75  # OpenCV's Keys parameter (ATen's upsample_bicubic2d without antialias)


def cubic_taps(rewriter, isz, osz, scale, align_corners: bool, opm):
    """`HelperInterpCubic::compute_indices_weights`: four taps at index0 - 1 .. index0 + 2,
    clamped into the input, weighted by `get_cubic_upsample_coefficients`."""
    i = positions(rewriter, osz, opm)
    s = compute_scale(rewriter, isz, osz, align_corners, scale, opm)
    real = source_index(rewriter, i, s, align_corners, True, opm)
    idx0 = upper_clamp(rewriter, floorf(rewriter, real), isz)
    t = rewriter.aten(
        "aten.clamp", rewriter.aten("aten.sub.Tensor", real, to_dtype(rewriter, idx0, opm)), 0, 1
    )
    t2 = _one_minus(rewriter, t)
    weights = [
        cubic_outer(rewriter, rewriter.aten("aten.add.Scalar", t, 1), BICUBIC_A),
        cubic_inner(rewriter, t, BICUBIC_A),
        cubic_inner(rewriter, t2, BICUBIC_A),
        cubic_outer(rewriter, rewriter.aten("aten.add.Scalar", t2, 1), BICUBIC_A),
    ]
    taps = []
    for j, w in enumerate(weights):
        idx = upper_clamp(rewriter, rewriter.aten("aten.add.Scalar", idx0, j - 1), isz)
        taps.append((rewriter.aten("aten.clamp", idx, 0), w))
    return taps

"""Antialiased resampling taps: ATen's `HelperInterpBase::_compute_weights_aa` (Pillow's
resampling filters), from core aten ops.

Output pixel i averages the input pixels of the window [xmin, xmin + xsize) around
`center = scale * (i + 0.5)`, `support = interp_size / 2 * max(scale, 1)` wide, each weighted by
`filter((j - center + 0.5) / max(scale, 1))` and normalised by their sum. Windows have at most
`ceil(support) * 2 + 1` pixels: static sizes only (the window width is a tap count). The filter
arguments are rounded where the kernel rounds them (a double sum narrowed to the input dtype).
"""

from __future__ import annotations

import math

import torch
from mlir import ir

from .common import to_dtype
from .upsample_index import compute_scale, cubic_inner, cubic_outer, positions

BICUBIC_AA_A = -0.5  # Keys' parameter for antialiased bicubic (Pillow), not OpenCV's -0.75


def _narrow(rewriter, v: ir.Value, elem: torch.dtype) -> ir.Value:
    return to_dtype(rewriter, v, elem)


def _linear_filter(rewriter, x: ir.Value) -> ir.Value:
    """max(1 - |x|, 0) as `aa_filter`: 1 - |x| where |x| < 1, else 0."""
    ax = rewriter.aten("aten.abs", x)
    inside = rewriter.aten("aten.lt.Scalar", ax, 1)
    one_minus = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", ax), 1)
    return rewriter.aten(
        "aten.where.self", inside, one_minus, rewriter.aten("aten.full_like", ax, 0)
    )


def _cubic_filter(rewriter, x: ir.Value) -> ir.Value:
    """Keys' cubic (a = -0.5) on |x| < 2, else 0."""
    ax = rewriter.aten("aten.abs", x)
    zero = rewriter.aten("aten.full_like", ax, 0)
    outer = rewriter.aten(
        "aten.where.self",
        rewriter.aten("aten.lt.Scalar", ax, 2),
        cubic_outer(rewriter, ax, BICUBIC_AA_A),
        zero,
    )
    inner = cubic_inner(rewriter, ax, BICUBIC_AA_A)
    return rewriter.aten("aten.where.self", rewriter.aten("aten.lt.Scalar", ax, 1), inner, outer)


def _window_bound(rewriter, center: ir.Value, offset: float, elem) -> ir.Value:
    """`static_cast<int64_t>(center + offset + 0.5)`: `center + offset` in the input dtype, the
    + 0.5 in double; floor equals the C++ truncation once clamped at 0."""
    shifted = rewriter.aten("aten.add.Scalar", center, offset)
    wide = rewriter.aten("aten.add.Scalar", to_dtype(rewriter, shifted, torch.float64), 0.5)
    return to_dtype(rewriter, rewriter.aten("aten.floor", wide), torch.int64)


def aa_taps(rewriter, isz: int, osz: int, scale, align_corners: bool, opm, cubic: bool):
    """Taps `(index, normalised weight, valid)` of one dim of `_upsample_bilinear2d_aa` or
    `_upsample_bicubic2d_aa`."""
    interp_size = 4 if cubic else 2
    s = compute_scale(rewriter, isz, osz, align_corners, scale, opm)
    support = float(torch.tensor(interp_size * 0.5 * (s if s >= 1.0 else 1.0), dtype=opm))
    width = math.ceil(support) * 2 + 1
    invscale = float(torch.tensor(1.0 / s, dtype=opm)) if s >= 1.0 else 1.0
    center = rewriter.aten(
        "aten.mul.Scalar", rewriter.aten("aten.add.Scalar", positions(rewriter, osz, opm), 0.5), s
    )
    xmin = rewriter.aten("aten.clamp", _window_bound(rewriter, center, -support, opm), 0)
    xmax = rewriter.aten("aten.clamp", _window_bound(rewriter, center, support, opm), None, isz)
    xsize = rewriter.aten("aten.sub.Tensor", xmax, xmin)
    filt = _cubic_filter if cubic else _linear_filter
    taps, total = [], None
    for k in range(width):
        j = rewriter.aten("aten.add.Scalar", xmin, k)
        offset = rewriter.aten("aten.sub.Tensor", to_dtype(rewriter, j, opm), center)
        arg = rewriter.aten("aten.add.Scalar", to_dtype(rewriter, offset, torch.float64), 0.5)
        arg = _narrow(rewriter, rewriter.aten("aten.mul.Scalar", arg, invscale), opm)
        valid = rewriter.aten("aten.gt.Scalar", xsize, k)
        w = rewriter.aten(
            "aten.where.self", valid, filt(rewriter, arg), rewriter.aten("aten.full_like", arg, 0)
        )
        total = w if total is None else rewriter.aten("aten.add.Tensor", total, w)
        taps.append((rewriter.aten("aten.clamp", j, None, isz - 1), w, valid))
    nonzero = rewriter.aten("aten.ne.Scalar", total, 0)
    out = []
    for index, w, valid in taps:
        normalised = rewriter.aten(
            "aten.where.self", nonzero, rewriter.aten("aten.div.Tensor", w, total), w
        )
        out.append((index, normalised, valid))
    return out

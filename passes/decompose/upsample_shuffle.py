"""Pixel and channel shuffles -> aten.view, aten.permute, aten.clone (torch._decomp's shape)."""

from __future__ import annotations

from mlir.dialects import arith

from .common import rank
from .registry import register_decomposition
from .views import reshape, result_type


def _div(rewriter, size, factor):
    """size // factor on sizes (an exact division: the op checked divisibility)."""
    if isinstance(size, int) and isinstance(factor, int):
        return size // factor
    return rewriter.index_arith(arith.DivSIOp, size, factor)


def _mul(rewriter, a, b):
    return rewriter.index_arith(arith.MulIOp, a, b)


@register_decomposition("aten.pixel_shuffle")
def decompose_pixel_shuffle(op, rewriter):
    """aten.pixel_shuffle -> aten.view, aten.permute, aten.clone: [*, C r r, H, W] ->
    [*, C, r, r, H, W] -> [*, C, H, r, W, r] -> [*, C, H r, W r]"""
    x, r = rewriter.args["self"], rewriter.args["upscale_factor"]
    *batch, c, h, w = rewriter.sizes(x)
    n = len(batch)
    split = reshape(rewriter, x, [*batch, _div(rewriter, c, _mul(rewriter, r, r)), r, r, h, w])
    dims = [*range(n), n, n + 3, n + 1, n + 4, n + 2]
    moved = rewriter.aten("aten.permute", split, dims)
    out = [
        *batch,
        _div(rewriter, c, _mul(rewriter, r, r)),
        _mul(rewriter, h, r),
        _mul(rewriter, w, r),
    ]
    return reshape(rewriter, moved, out, results=result_type(op))


@register_decomposition("aten.pixel_unshuffle")
def decompose_pixel_unshuffle(op, rewriter):
    """aten.pixel_unshuffle -> aten.view, aten.permute, aten.clone: [*, C, H r, W r] ->
    [*, C, H, r, W, r] -> [*, C, r, r, H, W] -> [*, C r r, H, W]"""
    x, r = rewriter.args["self"], rewriter.args["downscale_factor"]
    *batch, c, h, w = rewriter.sizes(x)
    n = len(batch)
    oh, ow = _div(rewriter, h, r), _div(rewriter, w, r)
    split = reshape(rewriter, x, [*batch, c, oh, r, ow, r])
    dims = [*range(n), n, n + 2, n + 4, n + 1, n + 3]
    moved = rewriter.aten("aten.permute", split, dims)
    out = [*batch, _mul(rewriter, c, _mul(rewriter, r, r)), oh, ow]
    return reshape(rewriter, moved, out, results=result_type(op))


@register_decomposition("aten.channel_shuffle")
def decompose_channel_shuffle(op, rewriter):
    """aten.channel_shuffle -> aten.native_channel_shuffle"""
    x, groups = rewriter.args["self"], rewriter.args["groups"]
    return rewriter.aten("aten.native_channel_shuffle", x, groups, results=result_type(op))


@register_decomposition("aten.native_channel_shuffle")
def decompose_native_channel_shuffle(op, rewriter):
    """aten.native_channel_shuffle -> aten.view, aten.permute, aten.clone: [N, C, *] ->
    [N, g, C / g, *] -> [N, C / g, g, *] -> [N, C, *]"""
    x, groups = rewriter.args["self"], rewriter.args["groups"]
    n, c, *rest = rewriter.sizes(x)
    split = reshape(rewriter, x, [n, groups, _div(rewriter, c, groups), *rest])
    dims = [0, 2, 1, *range(3, rank(x) + 1)]
    moved = rewriter.aten("aten.permute", split, dims)
    return reshape(rewriter, moved, [n, c, *rest], results=result_type(op))

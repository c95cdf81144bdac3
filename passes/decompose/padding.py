"""Padding -> core aten: `aten.pad` picks the kernel its mode names (`constant_pad_nd`,
`reflection_pad{1,2,3}d`, `replication_pad{2,3}d`); circular padding is a `cat` of slices, and
`replication_pad1d` (not core) is `replication_pad2d` on an added unit dim.
"""

from __future__ import annotations

from mlir.dialects import arith

from .registry import register_decomposition
from .views import rank, result_type, slice_dim

# `at::padding_mode`, the enum `aten._pad_enum` takes.
PAD_MODES = {0: "reflect", 1: "replicate", 2: "circular", 3: "constant"}


def _circular(op, rewriter, x, pad):
    """ATen's `_pad_circular`: per padded dim (the last first), negative pads crop, then the
    result wraps around: `cat(center[n - left:], center, center[:right])`. Padding one dim
    after the other fills the corners as ATen's copies do."""
    n = rank(x)
    for i in range(len(pad) // 2):
        dim, left, right = n - 1 - i, pad[2 * i], pad[2 * i + 1]
        size = rewriter.size(x, dim)
        if left < 0 or right < 0:
            end = rewriter.index_arith(arith.AddIOp, size, min(right, 0))
            x = slice_dim(rewriter, x, dim, max(-left, 0), end)
            size = rewriter.index_arith(arith.SubIOp, end, max(-left, 0))
        parts = [x]
        if left > 0:
            start = rewriter.index_arith(arith.SubIOp, size, left)
            parts.insert(0, slice_dim(rewriter, x, dim, start, size))
        if right > 0:
            parts.append(slice_dim(rewriter, x, dim, 0, right))
        if len(parts) > 1:
            x = rewriter.aten("aten.cat", parts, dim)
    if x is rewriter.args["self"]:  # zero pads everywhere: ATen returns a copy
        x = rewriter.aten("aten.clone", x)
    return x


def _pad(op, rewriter, mode: str, value):
    x, pad = rewriter.args["self"], list(rewriter.args["pad"])
    if mode == "constant":
        fill = 0 if value is None else value
        return rewriter.aten("aten.constant_pad_nd", x, pad, fill, results=result_type(op))
    if mode == "circular":
        return _circular(op, rewriter, x, pad)
    kind = {"reflect": "reflection", "replicate": "replication"}.get(mode)
    if kind is None or len(pad) not in (2, 4, 6):
        return None
    name = f"aten.{kind}_pad{len(pad) // 2}d"
    return rewriter.aten(name, x, pad, results=result_type(op))


@register_decomposition("aten.pad")
def decompose_pad(op, rewriter):
    """aten.pad -> aten.constant_pad_nd, aten.reflection_pad1d, aten.reflection_pad2d,
    aten.reflection_pad3d, aten.replication_pad1d, aten.replication_pad2d, aten.replication_pad3d,
    aten.slice.Tensor, aten.cat: the kernel the mode names (circular: slices and a cat)"""
    return _pad(op, rewriter, rewriter.args["mode"], rewriter.args["value"])


@register_decomposition("aten._pad_enum")
def decompose_pad_enum(op, rewriter):
    """aten._pad_enum -> aten.constant_pad_nd, aten.reflection_pad1d, aten.reflection_pad2d,
    aten.reflection_pad3d, aten.replication_pad1d, aten.replication_pad2d, aten.replication_pad3d,
    aten.slice.Tensor, aten.cat: as aten.pad, the mode an `at::padding_mode`"""
    return _pad(op, rewriter, PAD_MODES.get(rewriter.args["mode"]), rewriter.args["value"])


@register_decomposition("aten._pad_circular")
def decompose_pad_circular(op, rewriter):
    """aten._pad_circular -> aten.slice.Tensor, aten.cat (negative pads crop)"""
    return _circular(op, rewriter, rewriter.args["self"], list(rewriter.args["pad"]))


@register_decomposition("aten.replication_pad1d")
def decompose_replication_pad1d(op, rewriter):
    """aten.replication_pad1d -> aten.unsqueeze, aten.replication_pad2d, aten.squeeze.dims
    (the 1-d pad on a unit height)"""
    x, pad = rewriter.args["self"], list(rewriter.args["padding"])
    tall = rewriter.aten("aten.unsqueeze", x, -2)
    padded = rewriter.aten("aten.replication_pad2d", tall, pad + [0, 0])
    return rewriter.aten("aten.squeeze.dims", padded, [rank(padded) - 2], results=result_type(op))

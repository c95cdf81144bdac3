"""Convolutions -> core `aten.convolution` (the bus stops of ATen's `Convolution.cpp` composites),
and `aten.im2col` -> a gather of the sliding blocks.

`conv{1,2,3}d` and `conv_transpose{1,2,3}d` accept an unbatched input (no batch dim); ATen's
`batchify` adds the batch dim around `at::convolution`, and so do these rules. The `.padding`
overloads take padding as a string: "valid" is no padding, "same" pads `dilation * (kernel - 1)`
in total per dim, the odd extra element on the right through `aten.constant_pad_nd` (ATen's
`_convolution_same`).
"""

from __future__ import annotations

import functools

import torch
from mlir import ir
from mlir.dialects import arith

from .common import int_list, rank
from .registry import register_decomposition


def _convolution(rewriter, op, x, *, n, stride, padding, dilation, transposed, output_padding):
    """`aten.convolution` on `x`, around it the batch dim ATen's `batchify` adds to an unbatched
    input; the result has `op`'s type."""
    a = rewriter.args
    result = ir.RankedTensorType(op.results[0].type)
    unbatched = rank(x) == n + 1
    if unbatched:
        x = rewriter.aten("aten.unsqueeze", x, 0)
        with op.location:
            shape = [1] + [result.get_dim_size(d) for d in range(result.rank)]
            result = ir.RankedTensorType.get(shape, result.element_type)
    out = rewriter.aten(
        "aten.convolution",
        x,
        a["weight"],
        a["bias"],
        int_list(stride, n),
        int_list(padding, n),
        int_list(dilation, n),
        transposed,
        int_list(output_padding, n),
        a["groups"],
        results=[result],
    )
    if unbatched:
        out = rewriter.aten("aten.squeeze.dims", out, [0], results=[op.results[0].type])
    return out


def _conv(n, op, rewriter, transposed=False):
    a = rewriter.args
    return _convolution(
        rewriter,
        op,
        a["input"],
        n=n,
        stride=a["stride"],
        padding=a["padding"],
        dilation=a["dilation"],
        transposed=transposed,
        output_padding=a["output_padding"] if transposed else [0],
    )


def _conv_transpose(n, op, rewriter):
    return _conv(n, op, rewriter, transposed=True)


def _same_padding(rewriter, x, n: int, dilation: list[int]):
    """ATen's `_convolution_same`: (x padded on the right by the odd element, symmetric padding),
    or None when a kernel size is dynamic."""
    weight = ir.RankedTensorType(rewriter.args["weight"].type)
    kernel = [weight.get_dim_size(d + 2) for d in range(n)]
    if any(weight.is_dynamic_dim(d + 2) for d in range(n)):
        return None
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    left = [t // 2 for t in total]
    extra = [t - 2 * lo for t, lo in zip(total, left)]
    if any(extra):
        pad = []
        for e in reversed(extra):  # constant_pad_nd lists the last dim first
            pad += [0, e]
        x = rewriter.aten("aten.constant_pad_nd", x, pad, 0)
    return x, left


def _conv_padding_mode(n, op, rewriter):
    a = rewriter.args
    x, dilation = a["input"], int_list(a["dilation"], n)
    if a["padding"] == "valid":
        padding = [0] * n
    elif a["padding"] == "same":
        same = _same_padding(rewriter, x, n, dilation)
        if same is None:
            return None
        x, padding = same
    else:
        raise ValueError(f"padding must be 'valid' or 'same', got {a['padding']!r}")
    return _convolution(
        rewriter,
        op,
        x,
        n=n,
        stride=a["stride"],
        padding=padding,
        dilation=dilation,
        transposed=False,
        output_padding=[0],
    )


def _register(op_name: str, fn, n: int, summary: str) -> None:
    rule = functools.partial(fn, n)
    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {summary}"
    register_decomposition(op_name)(rule)


_BATCHIFY = "aten.convolution (aten.unsqueeze, aten.squeeze.dims around an unbatched input)"
for _n, _name, _padding_name in (
    (1, "aten.conv1d", "aten.conv1d.padding"),
    (2, "aten.conv2d", "aten.conv2d.padding"),
    (3, "aten.conv3d", "aten.conv3d.padding"),
):
    _register(_name, _conv, _n, _BATCHIFY)
    _register(
        _padding_name,
        _conv_padding_mode,
        _n,
        "aten.constant_pad_nd ('same' with an odd total padding), " + _BATCHIFY,
    )
_register("aten.conv_transpose1d", _conv_transpose, 1, _BATCHIFY)
_register("aten.conv_transpose2d.input", _conv_transpose, 2, _BATCHIFY)
_register("aten.conv_transpose3d.input", _conv_transpose, 3, _BATCHIFY)


def _block_index(rewriter, blocks: int, kernel: int, dilation: int, stride: int) -> ir.Value:
    """`[k, b] -> b * stride + k * dilation`: the padded-input row (or column) that kernel offset
    k of block b reads."""
    starts = rewriter.aten("aten.arange.start_step", 0, blocks * stride, stride, dtype=torch.int64)
    offsets = rewriter.aten(
        "aten.arange.start_step", 0, kernel * dilation, dilation, dtype=torch.int64
    )
    return rewriter.aten(
        "aten.add.Tensor",
        rewriter.aten("aten.unsqueeze", offsets, 1),
        rewriter.aten("aten.unsqueeze", starts, 0),
    )


@register_decomposition("aten.im2col")
def decompose_im2col(op, rewriter):
    """aten.im2col -> aten.constant_pad_nd, aten.arange.start_step, aten.unsqueeze,
    aten.add.Tensor, aten.view, aten.index.Tensor

    Block (i, j) at kernel offset (ki, kj) reads padded[i * sh + ki * dh, j * sw + kj * dw]: a
    gather, exact for inf and NaN (a one-hot convolution would turn 0 * inf into NaN). The
    spatial sizes must be static (they fix the number of blocks)."""
    a = rewriter.args
    x = a["self"]
    kh, kw = int_list(a["kernel_size"], 2)
    dh, dw = int_list(a["dilation"], 2)
    ph, pw = int_list(a["padding"], 2)
    sh, sw = int_list(a["stride"], 2)
    t = ir.RankedTensorType(x.type)
    if t.is_dynamic_dim(t.rank - 1) or t.is_dynamic_dim(t.rank - 2):
        return None  # the number of blocks would be a runtime size
    height, width = t.get_dim_size(t.rank - 2), t.get_dim_size(t.rank - 1)
    blocks_h = (height + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    blocks_w = (width + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if ph or pw:
        x = rewriter.aten("aten.constant_pad_nd", x, [pw, pw, ph, ph], 0)
    rows = _block_index(rewriter, blocks_h, kh, dh, sh)  # [kh, blocks_h]
    cols = _block_index(rewriter, blocks_w, kw, dw, sw)  # [kw, blocks_w]
    rows = rewriter.aten("aten.view", rows, [kh, 1, blocks_h, 1])
    cols = rewriter.aten("aten.view", cols, [kw, 1, blocks_w])
    lead = t.rank - 2  # [N,] C
    blocks = rewriter.aten("aten.index.Tensor", x, [None] * lead + [rows, cols])
    # [N,] C, kh, kw, blocks_h, blocks_w -> [N,] C * kh * kw, blocks_h * blocks_w
    sizes = [rewriter.size(blocks, d) for d in range(lead)]
    sizes[-1] = rewriter.index_arith(arith.MulIOp, sizes[-1], kh * kw)
    return rewriter.aten(
        "aten.view", blocks, sizes + [blocks_h * blocks_w], results=[op.results[0].type]
    )

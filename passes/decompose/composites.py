"""Composite ops that torch.export keeps in its graphs (torch 2.13 preserves CompositeImplicit
ops there) and users reach through `torch.nn` or transformers: `type_as` (RoBERTa's position
ids), `one_hot`, `_dim_arange`, weight norm (`_weight_norm`, `norm_except_dim`), the backward
ops of SiLU, Mish and GELU that an export joint graph holds, and the legacy convolution entry
points (`thnn_conv2d`, `slow_conv3d`, `conv_tbc`). Without a rule each ran in eager as a
fallback."""

from __future__ import annotations

import math

import torch
from mlir import ir

from .common import dtype, rank, to_dtype
from .registry import register_decomposition


@register_decomposition("aten.type_as")
def decompose_type_as(op, rewriter):
    """aten.type_as -> aten._to_copy (to `other`'s dtype; else the input)"""
    return to_dtype(rewriter, rewriter.args["self"], dtype(rewriter.args["other"]))


@register_decomposition("aten.one_hot")
def decompose_one_hot(op, rewriter):
    """aten.one_hot -> aten.arange.start_step, aten.unsqueeze, aten.eq.Tensor, aten._to_copy

    The class count is the result's last dim (num_classes=-1 makes it data-dependent: no rule
    then). Labels out of range raise before the call (`frontend/op_index_checks.py`)."""
    out = ir.RankedTensorType(op.results[0].type)
    classes = out.get_dim_size(out.rank - 1)
    if out.is_dynamic_dim(out.rank - 1) or rewriter.args["num_classes"] != classes:
        return None
    x = rewriter.args["self"]
    labels = rewriter.aten("aten.arange.start_step", 0, classes, 1, dtype=torch.int64)
    hits = rewriter.aten("aten.eq.Tensor", rewriter.aten("aten.unsqueeze", x, rank(x)), labels)
    return rewriter.aten("aten._to_copy", hits, dtype=torch.int64)


@register_decomposition("aten._dim_arange")
def decompose_dim_arange(op, rewriter):
    """aten._dim_arange -> aten.arange.start_step (0 .. like.size(dim), int64)"""
    n = rewriter.size(rewriter.args["like"], rewriter.args["dim"])
    return rewriter.aten(
        "aten.arange.start_step", 0, n, 1, dtype=torch.int64, results=[op.results[0].type]
    )


@register_decomposition("aten.norm_except_dim")
def decompose_norm_except_dim(op, rewriter):
    """aten.norm_except_dim -> aten.linalg_vector_norm (over every dim but `dim`, kept; all of
    them for dim -1)"""
    v, p, dim = rewriter.args["v"], rewriter.args["pow"], rewriter.args["dim"]
    if dim == -1:
        return rewriter.aten("aten.linalg_vector_norm", v, p, None, False)
    n = rank(v)
    dims = [d for d in range(n) if d != dim % n]
    return rewriter.aten("aten.linalg_vector_norm", v, p, dims, True)


@register_decomposition("aten._weight_norm")
def decompose_weight_norm(op, rewriter):
    """aten._weight_norm -> aten.norm_except_dim, aten.div.Tensor, aten.mul.Tensor:
    v * (g / |v|) with the norm over every dim but `dim`"""
    v, g, dim = rewriter.args["v"], rewriter.args["g"], rewriter.args["dim"]
    norm = rewriter.aten("aten.norm_except_dim", v, 2, dim)
    return rewriter.aten("aten.mul.Tensor", v, rewriter.aten("aten.div.Tensor", g, norm))


@register_decomposition("aten.silu_backward")
def decompose_silu_backward(op, rewriter):
    """aten.silu_backward -> aten.sigmoid, aten.rsub.Scalar, aten.mul.Tensor, aten.add.Scalar:
    g * s * (1 + x * (1 - s)), s = sigmoid(x)"""
    g, x = rewriter.args["grad_output"], rewriter.args["self"]
    s = rewriter.aten("aten.sigmoid", x)
    inner = rewriter.aten(
        "aten.add.Scalar",
        rewriter.aten("aten.mul.Tensor", x, rewriter.aten("aten.rsub.Scalar", s, 1)),
        1,
    )
    return rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.mul.Tensor", g, s), inner)


@register_decomposition("aten.mish_backward")
def decompose_mish_backward(op, rewriter):
    """aten.mish_backward -> aten.sigmoid, aten.softplus, aten.tanh, aten.mul.Tensor,
    aten.rsub.Scalar, aten.add.Tensor: g * (t + x * sigmoid(x) * (1 - t^2)), t =
    tanh(softplus(x))"""
    g, x = rewriter.args["grad_output"], rewriter.args["self"]
    t = rewriter.aten("aten.tanh", rewriter.aten("aten.softplus", x, 1, 20))
    slope = rewriter.aten("aten.rsub.Scalar", rewriter.aten("aten.mul.Tensor", t, t), 1)
    xs = rewriter.aten("aten.mul.Tensor", x, rewriter.aten("aten.sigmoid", x))
    total = rewriter.aten("aten.add.Tensor", t, rewriter.aten("aten.mul.Tensor", xs, slope))
    return rewriter.aten("aten.mul.Tensor", g, total)


@register_decomposition("aten.infinitely_differentiable_gelu_backward")
def decompose_gelu_backward_exact(op, rewriter):
    """aten.infinitely_differentiable_gelu_backward -> aten.mul.Scalar, aten.erf, aten.exp,
    aten.mul.Tensor, aten.add.Tensor: g * (Phi(x) + x * phi(x)) of the exact GELU"""
    g, x = rewriter.args["grad"], rewriter.args["self"]
    half_erf = rewriter.aten(
        "aten.mul.Scalar",
        rewriter.aten("aten.erf", rewriter.aten("aten.mul.Scalar", x, 0.5**0.5)),
        0.5,
    )
    cdf = rewriter.aten("aten.add.Scalar", half_erf, 0.5)
    square = rewriter.aten("aten.mul.Tensor", x, x)
    pdf = rewriter.aten(
        "aten.mul.Scalar",
        rewriter.aten("aten.exp", rewriter.aten("aten.mul.Scalar", square, -0.5)),
        1 / math.sqrt(2 * math.pi),
    )
    total = rewriter.aten("aten.add.Tensor", cdf, rewriter.aten("aten.mul.Tensor", x, pdf))
    return rewriter.aten("aten.mul.Tensor", g, total)


def _legacy_conv(op, rewriter):
    a = rewriter.args
    n = len(a["kernel_size"])
    stride = list(a["stride"]) if len(a["stride"]) == n else list(a["stride"]) * n
    padding = list(a["padding"]) if len(a["padding"]) == n else list(a["padding"]) * n
    return rewriter.aten(
        "aten.convolution",
        a["self"],
        a["weight"],
        a["bias"],
        stride,
        padding,
        [1] * n,
        False,
        [0] * n,
        1,
        results=[op.results[0].type],
    )


def _register_legacy_conv(op_name: str) -> None:
    def rule(op, rewriter):
        return _legacy_conv(op, rewriter)

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> aten.convolution (no dilation, no groups)"
    register_decomposition(op_name)(rule)


for _name in ("aten.thnn_conv2d", "aten.slow_conv3d"):
    _register_legacy_conv(_name)


@register_decomposition("aten.conv_tbc")
def decompose_conv_tbc(op, rewriter):
    """aten.conv_tbc -> aten.permute, aten.convolution: input (time, batch, in), weight
    (width, in, out) as a conv1d over (batch, in, time), back to (time, batch, out)"""
    a = rewriter.args
    x = rewriter.aten("aten.permute", a["self"], [1, 2, 0])
    w = rewriter.aten("aten.permute", a["weight"], [2, 1, 0])
    y = rewriter.aten("aten.convolution", x, w, a["bias"], [1], [a["pad"]], [1], False, [0], 1)
    return rewriter.aten("aten.permute", y, [2, 0, 1], results=[op.results[0].type])

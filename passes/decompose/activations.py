"""Activation functions -> core aten (the bus stops of torch._decomp's activation entries)."""

from __future__ import annotations

from mlir import ir

from .common import _UPCAST, dtype, to_dtype
from .registry import register_decomposition
from .views import view

# torch.nn.functional.selu's constants (Klambauer et al.), as ATen spells them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


@register_decomposition("aten.silu")
def decompose_silu(op, rewriter):
    """aten.silu -> aten.sigmoid, aten.mul.Tensor"""
    x = rewriter.args["self"]
    return rewriter.aten("aten.mul.Tensor", x, rewriter.aten("aten.sigmoid", x))


@register_decomposition("aten.hardsigmoid")
def decompose_hardsigmoid(op, rewriter):
    """aten.hardsigmoid -> aten.add.Scalar, aten.clamp, aten.div.Scalar: relu6(x + 3) / 6"""
    x = rewriter.args["self"]
    shifted = rewriter.aten("aten.add.Scalar", x, 3)
    return rewriter.aten("aten.div.Scalar", rewriter.aten("aten.clamp", shifted, 0, 6), 6)


@register_decomposition("aten.hardswish")
def decompose_hardswish(op, rewriter):
    """aten.hardswish -> aten.hardsigmoid, aten.mul.Tensor"""
    x = rewriter.args["self"]
    return rewriter.aten("aten.mul.Tensor", x, rewriter.aten("aten.hardsigmoid", x))


@register_decomposition("aten.relu6")
def decompose_relu6(op, rewriter):
    """aten.relu6 -> aten.hardtanh"""
    return rewriter.aten("aten.hardtanh", rewriter.args["self"], 0, 6)


@register_decomposition("aten.mish")
def decompose_mish(op, rewriter):
    """aten.mish -> aten.softplus, aten.tanh, aten.mul.Tensor"""
    x = rewriter.args["self"]
    return rewriter.aten(
        "aten.mul.Tensor", x, rewriter.aten("aten.tanh", rewriter.aten("aten.softplus", x))
    )


@register_decomposition("aten.softplus")
def decompose_softplus(op, rewriter):
    """aten.softplus -> aten.mul.Scalar, aten.gt.Scalar, aten.exp, aten.log1p, aten.div.Scalar,
    aten.where.self (+ aten._to_copy around it for half types). log1p(exp(.)) rather than
    log(1 + exp(.)): exact for very negative inputs; computed in float32 for half types as
    ATen's CPU kernel (exp overflows f16 from 11.1, below the default threshold of 20)."""
    x, beta, threshold = (rewriter.args[k] for k in ("self", "beta", "threshold"))
    out = dtype(x)
    x = to_dtype(rewriter, x, _UPCAST.get(out, out))
    scaled = rewriter.aten("aten.mul.Scalar", x, beta)
    soft = rewriter.aten(
        "aten.div.Scalar", rewriter.aten("aten.log1p", rewriter.aten("aten.exp", scaled)), beta
    )
    linear = rewriter.aten("aten.gt.Scalar", scaled, threshold)
    return to_dtype(rewriter, rewriter.aten("aten.where.self", linear, x, soft), out)


@register_decomposition("aten.selu")
def decompose_selu(op, rewriter):
    """aten.selu -> aten.elu (with SELU's alpha and scale)"""
    return rewriter.aten("aten.elu", rewriter.args["self"], SELU_ALPHA, SELU_SCALE, 1)


@register_decomposition("aten.celu")
def decompose_celu(op, rewriter):
    """aten.celu -> aten.elu: celu(x, a) = elu(x, alpha=a, scale=1, input_scale=1/a)"""
    alpha = rewriter.args["alpha"]
    return rewriter.aten("aten.elu", rewriter.args["self"], alpha, 1, 1.0 / alpha)


@register_decomposition("aten.glu")
def decompose_glu(op, rewriter):
    """aten.glu -> aten.slice.Tensor, aten.sigmoid, aten.mul.Tensor: a * sigmoid(b), the halves"""
    x, dim = rewriter.args["self"], rewriter.args["dim"]
    size = op.operands[0].type.get_dim_size(dim % op.operands[0].type.rank)
    if size < 0:
        return None  # a dynamic split point needs a runtime size; kept until views handle it
    first = rewriter.aten("aten.slice.Tensor", x, dim, 0, size // 2)
    second = rewriter.aten("aten.slice.Tensor", x, dim, size // 2, size)
    return rewriter.aten("aten.mul.Tensor", first, rewriter.aten("aten.sigmoid", second))


@register_decomposition("aten.hardshrink")
def decompose_hardshrink(op, rewriter):
    """aten.hardshrink -> aten.abs, aten.le.Scalar, aten.full_like, aten.where.self (NaN stays)"""
    x, lambd = rewriter.args["self"], rewriter.args["lambd"]
    inside = rewriter.aten("aten.le.Scalar", rewriter.aten("aten.abs", x), lambd)
    return rewriter.aten("aten.where.self", inside, rewriter.aten("aten.full_like", x, 0), x)


@register_decomposition("aten.softshrink")
def decompose_softshrink(op, rewriter):
    """aten.softshrink -> aten.gt.Scalar, aten.lt.Scalar, aten.sub.Scalar, aten.add.Scalar,
    aten.mul.Scalar, aten.where.self. The middle is x * 0, not 0, so NaN stays NaN as in ATen."""
    x, lambd = rewriter.args["self"], rewriter.args["lambd"]
    zero = rewriter.aten("aten.mul.Scalar", x, 0)
    below = rewriter.aten(
        "aten.where.self",
        rewriter.aten("aten.lt.Scalar", x, -lambd),
        rewriter.aten("aten.add.Scalar", x, lambd),
        zero,
    )
    above = rewriter.aten("aten.gt.Scalar", x, lambd)
    return rewriter.aten(
        "aten.where.self", above, rewriter.aten("aten.sub.Scalar", x, lambd), below
    )


@register_decomposition("aten.threshold")
def decompose_threshold(op, rewriter):
    """aten.threshold -> aten.le.Scalar, aten.full_like, aten.where.self"""
    x, threshold, value = (rewriter.args[k] for k in ("self", "threshold", "value"))
    below = rewriter.aten("aten.le.Scalar", x, threshold)
    return rewriter.aten("aten.where.self", below, rewriter.aten("aten.full_like", x, value), x)


@register_decomposition("aten.log_sigmoid")
def decompose_log_sigmoid(op, rewriter):
    """aten.log_sigmoid -> aten.clamp, aten.abs, aten.neg, aten.exp, aten.log1p, aten.sub.Tensor
    (+ aten._to_copy around it for half types): min(x, 0) - log1p(exp(-|x|)), stable on both
    sides, computed in float32 for half types as ATen's CPU kernel"""
    x = rewriter.args["self"]
    out = dtype(x)
    x = to_dtype(rewriter, x, _UPCAST.get(out, out))
    tail = rewriter.aten(
        "aten.log1p",
        rewriter.aten("aten.exp", rewriter.aten("aten.neg", rewriter.aten("aten.abs", x))),
    )
    result = rewriter.aten("aten.sub.Tensor", rewriter.aten("aten.clamp", x, None, 0), tail)
    return to_dtype(rewriter, result, out)


@register_decomposition("aten.prelu")
def decompose_prelu(op, rewriter):
    """aten.prelu -> aten.view (the weight to [1, C, 1, ...]), aten._prelu_kernel"""
    x, weight = rewriter.args["self"], rewriter.args["weight"]
    x_rank, w_rank = (ir.RankedTensorType(v.type).rank for v in (x, weight))
    if x_rank != w_rank:
        channels = rewriter.size(weight, 0) if w_rank == 1 else 1
        sizes = [1] * x_rank
        if x_rank > 1:
            sizes[1] = channels
        weight = view(rewriter, weight, sizes)
    return rewriter.aten("aten._prelu_kernel", x, weight)


@register_decomposition("aten._prelu_kernel")
def decompose_prelu_kernel(op, rewriter):
    """aten._prelu_kernel -> aten.gt.Scalar, aten.mul.Tensor, aten.where.self: x > 0 ? x : w * x
    (NaN gives w * NaN = NaN, as the kernel)"""
    x, weight = rewriter.args["self"], rewriter.args["weight"]
    positive = rewriter.aten("aten.gt.Scalar", x, 0)
    return rewriter.aten(
        "aten.where.self", positive, x, rewriter.aten("aten.mul.Tensor", weight, x)
    )


@register_decomposition("aten._safe_softmax")
def decompose_safe_softmax(op, rewriter):
    """aten._safe_softmax -> aten._to_copy (a dtype given), aten._softmax, aten.eq.Scalar,
    aten.all.dim, aten.full_like, aten.where.self: softmax, with 0 for the rows that are all
    -inf (plain softmax gives NaN there)"""
    a = rewriter.args
    x, dim = a["self"], a["dim"]
    out = rewriter.aten("aten._softmax", to_dtype(rewriter, x, dtype(op.results[0])), dim, False)
    masked = rewriter.aten("aten.eq.Scalar", x, float("-inf"))
    masked_rows = rewriter.aten("aten.all.dim", masked, dim, True)
    return rewriter.aten(
        "aten.where.self", masked_rows, rewriter.aten("aten.full_like", out, 0), out
    )

"""Activation functions -> core aten (the bus stops of torch._decomp's activation entries)."""

from __future__ import annotations

from .registry import register_decomposition

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
    aten.where.self. log1p(exp(.)) rather than log(1 + exp(.)): exact for very negative inputs."""
    x, beta, threshold = (rewriter.args[k] for k in ("self", "beta", "threshold"))
    scaled = rewriter.aten("aten.mul.Scalar", x, beta)
    soft = rewriter.aten(
        "aten.div.Scalar", rewriter.aten("aten.log1p", rewriter.aten("aten.exp", scaled)), beta
    )
    linear = rewriter.aten("aten.gt.Scalar", scaled, threshold)
    return rewriter.aten("aten.where.self", linear, x, soft)


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

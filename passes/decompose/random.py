"""Random ops -> the core random ops (`rand`, `randn`, `native_dropout`) and elementwise
transformations with the same distribution as ATen's samplers (the bits differ; tests compare
statistics). Ops given an explicit `Generator` are left alone: the core ops take none.

The samples' shape is the op's result shape; `?` dims come from `tensor.dim` of an operand.
"""

from __future__ import annotations

import math

import torch
from mlir import ir

from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition


def sample(rewriter, op_name: str, sizes: list, elem: torch.dtype) -> ir.Value:
    """`aten.rand` / `aten.randn` of `sizes` (ints or runtime index values) in `elem`."""
    return rewriter.aten(
        op_name, list(sizes), dtype=elem, results=[tensor_of(rewriter.op, sizes, elem)]
    )


def uniform_like(rewriter, x: ir.Value, elem: torch.dtype | None = None) -> ir.Value:
    """U[0, 1) samples of `x`'s shape (in `x`'s dtype unless `elem`)."""
    return sample(rewriter, "aten.rand", rewriter.sizes(x), elem or dtype(x))


def seeded(rule):
    """The rule, or None when the op was given an explicit generator."""

    def wrapped(op, rewriter):
        if rewriter.args.get("generator") is not None:
            return None
        return rule(op, rewriter)

    wrapped.__name__, wrapped.__doc__ = rule.__name__, rule.__doc__
    return wrapped


def _register_like(op_name: str, core: str) -> None:
    def rule(op, rewriter):
        return sample(rewriter, core, rewriter.sizes(rewriter.args["self"]), dtype(op.results[0]))

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {core} (of self's sizes, in the result dtype)"
    register_decomposition(op_name)(seeded(rule))


for _like, _core in (
    ("aten.rand_like", "aten.rand"),
    ("aten.rand_like.generator", "aten.rand"),
    ("aten.randn_like", "aten.randn"),
    ("aten.randn_like.generator", "aten.randn"),
):
    _register_like(_like, _core)


def _uniform_ints(op, rewriter, sizes, low, high):
    """Integers uniform in [low, high): floor(low + u * (high - low)) on float64 samples,
    clamped below `high` (rounding of u * range can reach it)."""
    if not all(isinstance(v, (int, ir.Value)) for v in (low, high)):
        return None
    if isinstance(low, ir.Value) or (isinstance(high, ir.Value) and not _is_tensor(high)):
        return None  # a runtime SymInt bound
    u = sample(rewriter, "aten.rand", sizes, torch.float64)
    if _is_tensor(high):
        span = to_dtype(rewriter, rewriter.aten("aten.sub.Scalar", high, low), torch.float64)
        top = rewriter.aten("aten.sub.Scalar", span, 1)
        scaled = rewriter.aten("aten.floor", rewriter.aten("aten.mul.Tensor", u, span))
        picked = rewriter.aten("aten.minimum", scaled, top)
    else:
        scaled = rewriter.aten("aten.floor", rewriter.aten("aten.mul.Scalar", u, high - low))
        picked = rewriter.aten("aten.clamp", scaled, None, high - low - 1)
    shifted = rewriter.aten("aten.add.Scalar", picked, low)
    return to_dtype(rewriter, shifted, dtype(op.results[0]))


def _is_tensor(v) -> bool:
    return isinstance(v, ir.Value) and isinstance(v.type, ir.RankedTensorType)


def _randint(op, rewriter):
    a = rewriter.args
    return _uniform_ints(op, rewriter, a["size"], a.get("low", 0), a["high"])


def _randint_like(op, rewriter):
    a = rewriter.args
    sizes = rewriter.sizes(a["self"])
    return _uniform_ints(op, rewriter, sizes, a.get("low", 0), a["high"])


_INT_DOC = (
    " -> aten.rand (float64), aten.mul.Scalar / aten.mul.Tensor, aten.floor, aten.clamp / "
    "aten.minimum, aten.add.Scalar, aten._to_copy: floor of a scaled uniform sample"
)
for _name, _fn in {
    "aten.randint": _randint,
    "aten.randint.generator": _randint,
    "aten.randint.low": _randint,
    "aten.randint.low_generator": _randint,
    "aten.randint_like": _randint_like,
    "aten.randint_like.generator": _randint_like,
    "aten.randint_like.low_dtype": _randint_like,
    "aten.randint_like.low_generator_dtype": _randint_like,
    "aten.randint_like.Tensor": _randint_like,
    "aten.randint_like.Tensor_generator": _randint_like,
}.items():

    def _int_rule(op, rewriter, _fn=_fn):
        return _fn(op, rewriter)

    _int_rule.__name__ = "decompose_" + _name.removeprefix("aten.").replace(".", "_")
    _int_rule.__doc__ = _name + _INT_DOC
    register_decomposition(_name)(seeded(_int_rule))


def _affine(rewriter, x: ir.Value, scale, shift) -> ir.Value:
    """`x * scale + shift` (scale/shift Python numbers or tensors)."""
    mul = "aten.mul.Tensor" if isinstance(scale, ir.Value) else "aten.mul.Scalar"
    add = "aten.add.Tensor" if isinstance(shift, ir.Value) else "aten.add.Scalar"
    return rewriter.aten(add, rewriter.aten(mul, x, scale), shift)


@register_decomposition("aten.normal_functional")
@seeded
def decompose_normal_functional(op, rewriter):
    """aten.normal_functional -> aten.randn, aten.mul.Scalar, aten.add.Scalar"""
    a = rewriter.args
    noise = sample(rewriter, "aten.randn", rewriter.sizes(a["self"]), dtype(op.results[0]))
    return _affine(rewriter, noise, a["std"], a["mean"])


@register_decomposition("aten.normal.float_float")
@seeded
def decompose_normal_float_float(op, rewriter):
    """aten.normal.float_float -> aten.randn, aten.mul.Scalar, aten.add.Scalar"""
    a = rewriter.args
    noise = sample(rewriter, "aten.randn", a["size"], dtype(op.results[0]))
    return _affine(rewriter, noise, a["std"], a["mean"])


def _normal_of(op, rewriter, shape_of: ir.Value):
    a = rewriter.args
    noise = sample(rewriter, "aten.randn", rewriter.sizes(shape_of), dtype(op.results[0]))
    return _affine(rewriter, noise, a["std"], a["mean"])


@register_decomposition("aten.normal.Tensor_float")
@seeded
def decompose_normal_tensor_float(op, rewriter):
    """aten.normal.Tensor_float -> aten.randn, aten.mul.Scalar, aten.add.Tensor"""
    return _normal_of(op, rewriter, rewriter.args["mean"])


@register_decomposition("aten.normal.float_Tensor")
@seeded
def decompose_normal_float_tensor(op, rewriter):
    """aten.normal.float_Tensor -> aten.randn, aten.mul.Tensor, aten.add.Scalar"""
    return _normal_of(op, rewriter, rewriter.args["std"])


@register_decomposition("aten.normal.Tensor_Tensor")
@seeded
def decompose_normal_tensor_tensor(op, rewriter):
    """aten.normal.Tensor_Tensor -> aten.randn, aten.mul.Tensor, aten.add.Tensor (the samples
    have the broadcast shape; `aten.add.Tensor` of mean and std gives its `?` dims)"""
    a = rewriter.args
    result = ir.RankedTensorType(op.results[0].type)
    if result.has_static_shape:
        sizes = list(result.shape)
    else:
        sizes = rewriter.sizes(rewriter.aten("aten.add.Tensor", a["mean"], a["std"]))
    noise = sample(rewriter, "aten.randn", sizes, dtype(op.results[0]))
    return _affine(rewriter, noise, a["std"], a["mean"])


@register_decomposition("aten.uniform")
@seeded
def decompose_uniform(op, rewriter):
    """aten.uniform -> aten.rand, aten.mul.Scalar, aten.add.Scalar: from + u * (to - from)"""
    a = rewriter.args
    return _affine(rewriter, uniform_like(rewriter, a["self"]), a["to"] - a["from"], a["from"])


@register_decomposition("aten.cauchy")
@seeded
def decompose_cauchy(op, rewriter):
    """aten.cauchy -> aten.rand, aten.sub.Scalar, aten.mul.Scalar, aten.tan, aten.add.Scalar:
    median + sigma * tan(pi * (u - 1/2)), ATen's inverse CDF"""
    a = rewriter.args
    u = uniform_like(rewriter, a["self"])
    angle = rewriter.aten("aten.mul.Scalar", rewriter.aten("aten.sub.Scalar", u, 0.5), math.pi)
    return _affine(rewriter, rewriter.aten("aten.tan", angle), a["sigma"], a["median"])


def _neg_log1p_neg(rewriter, u: ir.Value) -> ir.Value:
    """-log(1 - u): an Exp(1) sample from u in [0, 1), finite (1 - u > 0)."""
    return rewriter.aten("aten.neg", rewriter.aten("aten.log1p", rewriter.aten("aten.neg", u)))


@register_decomposition("aten.exponential")
@seeded
def decompose_exponential(op, rewriter):
    """aten.exponential -> aten.rand, aten.neg, aten.log1p, aten.div.Scalar: -log1p(-u) / lambd"""
    a = rewriter.args
    e = _neg_log1p_neg(rewriter, uniform_like(rewriter, a["self"]))
    return rewriter.aten("aten.div.Scalar", e, a["lambd"])


@register_decomposition("aten.geometric")
@seeded
def decompose_geometric(op, rewriter):
    """aten.geometric -> aten.rand, aten.neg, aten.log1p, aten.div.Scalar, aten.ceil,
    aten.clamp: ceil(log(1 - u) / log(1 - p)), at least 1 (the support starts at 1)"""
    a = rewriter.args
    u = uniform_like(rewriter, a["self"])
    logs = rewriter.aten("aten.log1p", rewriter.aten("aten.neg", u))
    trials = rewriter.aten("aten.ceil", rewriter.aten("aten.div.Scalar", logs, math.log1p(-a["p"])))
    return rewriter.aten("aten.clamp", trials, 1)


@register_decomposition("aten.log_normal")
@seeded
def decompose_log_normal(op, rewriter):
    """aten.log_normal -> aten.randn, aten.mul.Scalar, aten.add.Scalar, aten.exp"""
    a = rewriter.args
    noise = sample(rewriter, "aten.randn", rewriter.sizes(a["self"]), dtype(op.results[0]))
    return rewriter.aten("aten.exp", _affine(rewriter, noise, a["std"], a["mean"]))


def _bernoulli(op, rewriter, p):
    x = rewriter.args["self"]
    elem = dtype(p) if isinstance(p, ir.Value) else dtype(x)
    u = uniform_like(rewriter, x, elem if elem.is_floating_point else torch.float32)
    hit = rewriter.aten("aten.lt.Tensor" if isinstance(p, ir.Value) else "aten.lt.Scalar", u, p)
    return to_dtype(rewriter, hit, dtype(op.results[0]))


@register_decomposition("aten.bernoulli")
@seeded
def decompose_bernoulli(op, rewriter):
    """aten.bernoulli -> aten.rand, aten.lt.Tensor, aten._to_copy: 1 where u < self"""
    return _bernoulli(op, rewriter, rewriter.args["self"])


@register_decomposition("aten.bernoulli.p")
@seeded
def decompose_bernoulli_p(op, rewriter):
    """aten.bernoulli.p -> aten.rand, aten.lt.Scalar, aten._to_copy: 1 where u < p"""
    return _bernoulli(op, rewriter, rewriter.args["p"])


@register_decomposition("aten.bernoulli.Tensor")
@seeded
def decompose_bernoulli_tensor(op, rewriter):
    """aten.bernoulli.Tensor -> aten.rand, aten.lt.Tensor, aten._to_copy: 1 where u < p"""
    return _bernoulli(op, rewriter, rewriter.args["p"])

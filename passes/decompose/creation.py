"""Tensor factories and aliases -> core aten (`full`, `full_like`, `clamp`, `div`/`sub`/`mul`).

The dtype a factory leaves open (`dtype=None`: the default dtype, or `self`'s for `new_*`) is
already resolved in the op's result type; the rewrite states it explicitly.
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .registry import register_decomposition


def _factory(op, rewriter, op_name: str, *args, **kwargs):
    """`op_name(*args)` with the rewritten factory's result type, dtype stated, and its
    layout/device/pin_memory passed on."""
    return rewriter.aten(
        op_name,
        *args,
        dtype=dtype(op.results[0]),
        results=[op.results[0].type],
        **_factory_kwargs(rewriter),
        **kwargs,
    )


def _factory_kwargs(rewriter) -> dict:
    return {k: rewriter.args.get(k) for k in ("layout", "device", "pin_memory")}


def _register_full(op_name: str, fill) -> None:
    """`ones`/`zeros`/`new_ones`/`new_zeros`/`new_full` -> `aten.full` of the op's result type."""

    def rule(op, rewriter):
        value = rewriter.args["fill_value"] if fill is None else fill
        return _factory(op, rewriter, "aten.full", rewriter.args["size"], value)

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> aten.full"
    register_decomposition(op_name)(rule)


def _register_full_like(op_name: str, fill) -> None:
    """`ones_like`/`zeros_like` -> `aten.full_like` with the op's result dtype."""

    def rule(op, rewriter):
        return rewriter.aten(
            "aten.full_like",
            rewriter.args["self"],
            fill,
            dtype=dtype(op.results[0]),
            memory_format=rewriter.args.get("memory_format"),
            **_factory_kwargs(rewriter),
        )

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> aten.full_like"
    register_decomposition(op_name)(rule)


for _name, _fill in {
    "aten.ones": 1,
    "aten.zeros": 0,
    "aten.new_ones": 1,
    "aten.new_zeros": 0,
    "aten.new_full": None,
}.items():
    _register_full(_name, _fill)
for _name, _fill in {"aten.ones_like": 1, "aten.zeros_like": 0}.items():
    _register_full_like(_name, _fill)


@register_decomposition("aten.clamp_min")
def decompose_clamp_min(op, rewriter):
    """aten.clamp_min -> aten.clamp (no upper bound)"""
    return rewriter.aten("aten.clamp", rewriter.args["self"], rewriter.args["min"], None)


@register_decomposition("aten.clamp_max")
def decompose_clamp_max(op, rewriter):
    """aten.clamp_max -> aten.clamp (no lower bound)"""
    return rewriter.aten("aten.clamp", rewriter.args["self"], None, rewriter.args["max"])


@register_decomposition("aten.divide.Tensor")
def decompose_divide(op, rewriter):
    """aten.divide.Tensor -> aten.div.Tensor (an alias)"""
    return rewriter.aten("aten.div.Tensor", rewriter.args["self"], rewriter.args["other"])


@register_decomposition("aten.subtract.Tensor")
def decompose_subtract(op, rewriter):
    """aten.subtract.Tensor -> aten.sub.Tensor (an alias)"""
    a = rewriter.args
    return rewriter.aten("aten.sub.Tensor", a["self"], a["other"], alpha=a["alpha"])


@register_decomposition("aten.multiply.Tensor")
def decompose_multiply(op, rewriter):
    """aten.multiply.Tensor -> aten.mul.Tensor (an alias)"""
    return rewriter.aten("aten.mul.Tensor", rewriter.args["self"], rewriter.args["other"])


# -- ranges ---------------------------------------------------------------------------------------


@register_decomposition("aten.arange")
def decompose_arange(op, rewriter):
    """aten.arange -> aten.arange.start_step (from 0, step 1, the result dtype stated)"""
    return _factory(op, rewriter, "aten.arange.start_step", 0, rewriter.args["end"], 1)


@register_decomposition("aten.arange.start")
def decompose_arange_start(op, rewriter):
    """aten.arange.start -> aten.arange.start_step (step 1, the result dtype stated)"""
    a = rewriter.args
    return _factory(op, rewriter, "aten.arange.start_step", a["start"], a["end"], 1)


def _endpoint(rewriter, value, elem: torch.dtype) -> ir.Value:
    """A `start`/`end` of linspace as a 0-d tensor of the result dtype: ATen's
    `Scalar::to<scalar_t>()` (a Tensor endpoint goes through `.item()` first)."""
    if isinstance(value, ir.Value) and isinstance(value.type, ir.RankedTensorType):
        return to_dtype(rewriter, rewriter.aten("aten.view", value, []), elem)
    return rewriter.aten("aten.full", [], value, dtype=elem)


def _linspace(op, rewriter, elem: torch.dtype) -> ir.Value | None:
    """ATen's CPU linspace kernel: step = (end - start) / (steps - 1) in the result dtype (double
    for integers), the first half `start + step * i`, the second `end - step * (steps - 1 - i)`
    (so that both ends are exact), integers truncated at the end."""
    steps = rewriter.args["steps"]
    if elem.is_complex:
        return None
    start = _endpoint(rewriter, rewriter.args["start"], elem)
    if steps <= 1:  # ATen fills `start` (steps == 1) or returns an empty tensor
        return rewriter.aten("aten.expand", start, [steps])
    compute = torch.float64 if not elem.is_floating_point else elem
    start = to_dtype(rewriter, start, compute)
    end = to_dtype(rewriter, _endpoint(rewriter, rewriter.args["end"], elem), compute)
    step = rewriter.aten("aten.div.Scalar", rewriter.aten("aten.sub.Tensor", end, start), steps - 1)
    half = steps // 2
    up = rewriter.aten("aten.arange.start_step", 0, half, 1, dtype=compute)
    down = rewriter.aten("aten.arange.start_step", steps - 1 - half, -1, -1, dtype=compute)
    first = rewriter.aten("aten.add.Tensor", start, rewriter.aten("aten.mul.Tensor", up, step))
    second = rewriter.aten("aten.sub.Tensor", end, rewriter.aten("aten.mul.Tensor", down, step))
    return to_dtype(rewriter, rewriter.aten("aten.cat", [first, second], 0), elem)


def _register_linspace(op_name: str) -> None:
    def rule(op, rewriter):
        return _linspace(op, rewriter, dtype(op.results[0]))

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = (
        f"{op_name} -> aten.full (or aten.view), aten.sub.Tensor, aten.div.Scalar, "
        "aten.arange.start_step, aten.mul.Tensor, aten.add.Tensor, aten.cat, aten._to_copy"
    )
    register_decomposition(op_name)(rule)


def _register_logspace(op_name: str, linspace_name: str) -> None:
    """logspace -> the matching linspace overload for the exponents, then `pow(base, .)` in
    double as ATen's kernel does (`std::pow(double base, scalar_t exponent)`)."""

    def rule(op, rewriter):
        a = rewriter.args
        elem = dtype(op.results[0])
        if elem.is_complex:
            return None
        start, end = a["start"], a["end"]
        if not elem.is_floating_point:  # integer endpoints, exponents in double
            start, end = (_int_endpoint(rewriter, v, elem) for v in (start, end))
        exponent_dtype = elem if elem.is_floating_point else torch.float64
        exponents = rewriter.aten(linspace_name, start, end, a["steps"], dtype=exponent_dtype)
        exponents = to_dtype(rewriter, exponents, torch.float64)
        return to_dtype(rewriter, rewriter.aten("aten.pow.Scalar", a["base"], exponents), elem)

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.").replace(".", "_")
    rule.__doc__ = f"{op_name} -> {linspace_name}, aten._to_copy, aten.pow.Scalar"
    register_decomposition(op_name)(rule)


def _int_endpoint(rewriter, value, elem: torch.dtype):
    if isinstance(value, ir.Value) and isinstance(value.type, ir.RankedTensorType):
        return to_dtype(rewriter, value, elem)
    return int(value) if isinstance(value, float) else value


for _linspace_name, _logspace_name in (
    ("aten.linspace", "aten.logspace"),
    ("aten.linspace.Tensor_Tensor", "aten.logspace.Tensor_Tensor"),
    ("aten.linspace.Tensor_Scalar", "aten.logspace.Tensor_Scalar"),
    ("aten.linspace.Scalar_Tensor", "aten.logspace.Scalar_Tensor"),
):
    _register_linspace(_linspace_name)
    _register_logspace(_logspace_name, _linspace_name)


# -- uninitialised tensors, zero, item ------------------------------------------------------------


@register_decomposition("aten.empty_like")
def decompose_empty_like(op, rewriter):
    """aten.empty_like -> aten.empty.memory_format (the sizes of `self`, the result dtype)"""
    x = rewriter.args["self"]
    return _factory(op, rewriter, "aten.empty.memory_format", rewriter.sizes(x))


@register_decomposition("aten.new_empty")
def decompose_new_empty(op, rewriter):
    """aten.new_empty -> aten.empty.memory_format (`self`'s dtype unless given)"""
    return _factory(op, rewriter, "aten.empty.memory_format", rewriter.args["size"])


@register_decomposition("aten.new_empty_strided")
def decompose_new_empty_strided(op, rewriter):
    """aten.new_empty_strided -> aten.empty_strided (`self`'s dtype unless given)"""
    a = rewriter.args
    return _factory(op, rewriter, "aten.empty_strided", a["size"], a["stride"])


@register_decomposition("aten.empty_permuted")
def decompose_empty_permuted(op, rewriter):
    """aten.empty_permuted -> aten.empty_strided: the strides of a tensor contiguous in the
    order `physical_layout` (outermost first)"""
    size, layout = rewriter.args["size"], rewriter.args["physical_layout"]
    strides, running = [0] * len(size), 1
    for d in reversed(layout):
        strides[d] = running
        running = rewriter.index_arith(arith.MulIOp, running, size[d])
    return _factory(op, rewriter, "aten.empty_strided", size, strides)


@register_decomposition("aten.zero")
def decompose_zero(op, rewriter):
    """aten.zero -> aten.full_like (zeros: no NaN of `self` survives, as in ATen's zero_)"""
    return rewriter.aten("aten.full_like", rewriter.args["self"], 0)


@register_decomposition("aten.item")
def decompose_item(op, rewriter):
    """aten.item -> aten._local_scalar_dense"""
    return rewriter.aten(
        "aten._local_scalar_dense", rewriter.args["self"], results=[op.results[0].type]
    )

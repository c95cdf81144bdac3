"""The PT2E int8 flow's `quantized_decomposed` ops -> core aten, op for op as their eager kernels
(torch/ao/quantization/fx/_decomposed.py) compute them, so rounding, clamping and type promotion
are torch's: quantize is `clamp(round(x * (1 / scale)) + zero_point, qmin, qmax).to(dtype)`
(round half to even, then a truncating cast of an in-range value), dequantize is
`(q.to(out_dtype) - zero_point) * scale` per tensor and `((q - zero_point) * scale).to(out_dtype)`
per channel. The checks the eager kernels make (dtype bounds, input dtype, axis) fail the rule
with the same message instead of computing something else.
"""

from __future__ import annotations

import torch
from mlir import ir

from .common import dtype, rank, to_dtype
from .registry import register_decomposition
from .views import view

# The quantized dtypes torch's kernels accept (`_DTYPE_TO_QVALUE_BOUNDS`), with their bounds.
_QUANTIZED_DTYPES = (torch.uint8, torch.int8, torch.uint16, torch.int16, torch.int32)
_FLOAT8_DTYPES = (torch.float8_e5m2, torch.float8_e4m3fn)


def _bounds(qtype: torch.dtype) -> tuple[int, int]:
    if qtype in _QUANTIZED_DTYPES:
        return torch.iinfo(qtype).min, torch.iinfo(qtype).max
    if qtype in _FLOAT8_DTYPES:
        return int(torch.finfo(qtype).min), int(torch.finfo(qtype).max)
    raise ValueError(f"Unsupported dtype: {qtype}")


def _check_bounds(args) -> None:
    """`_quant_min_max_bounds_check`: the range must fit the quantized dtype."""
    low, high = _bounds(args["dtype"])
    if args["quant_min"] < low or args["quant_max"] > high:
        raise ValueError(
            f"quant_min/quant_max {args['quant_min']}/{args['quant_max']} out of bounds for "
            f"{args['dtype']} ({low}/{high})"
        )


def _float_input(rewriter) -> ir.Value:
    """The input to quantize as float32 (f16/bf16 are upcast, as the eager kernels do)."""
    x = rewriter.args["input"]
    if dtype(x) in (torch.float16, torch.bfloat16):
        x = to_dtype(rewriter, x, torch.float32)
    if dtype(x) != torch.float32:
        raise ValueError(f"Expecting input to have dtype torch.float32, but got {dtype(x)}")
    return x


def _quantized_input(rewriter) -> ir.Value:
    x = rewriter.args["input"]
    if dtype(x) != rewriter.args["dtype"]:
        raise ValueError(f"Expecting input to have dtype {rewriter.args['dtype']}, got {dtype(x)}")
    _bounds(rewriter.args["dtype"])
    return x


def _item(rewriter, name: str) -> ir.Value:
    """A one-element qparam tensor as a 0-d tensor: it then promotes like the Python number the
    eager kernel takes from `.item()` (a `[1]`-shaped f64 scale would make the result f64)."""
    value = rewriter.args[name]
    shape = ir.RankedTensorType(value.type).shape
    if any(s != 1 for s in shape):  # `?` included: eager checks numel() == 1 at run time
        raise ValueError(f"Expecting {name} tensor to be one element, but its shape is {shape}")
    return view(rewriter, value, []) if shape else value


def _quantize(rewriter, x: ir.Value, inverse_scale, zero_point) -> ir.Value:
    args = rewriter.args
    scaled = rewriter.aten("aten.mul.Tensor", x, inverse_scale)
    shifted = rewriter.aten("aten.add.Tensor", rewriter.aten("aten.round", scaled), zero_point)
    clamped = rewriter.aten("aten.clamp", shifted, args["quant_min"], args["quant_max"])
    return rewriter.aten("aten._to_copy", clamped, dtype=args["dtype"])


@register_decomposition("quantized_decomposed.quantize_per_tensor")
def decompose_quantize_per_tensor(op, rewriter):
    """quantized_decomposed.quantize_per_tensor -> aten.mul.Tensor, aten.round, aten.add.Tensor,
    aten.clamp, aten._to_copy (1 / scale in f64, as Python computes it)"""
    x = _float_input(rewriter)
    _check_bounds(rewriter.args)
    inverse_scale = 1.0 / rewriter.args["scale"]  # scale 0 raises ZeroDivisionError, as eager
    return _quantize(rewriter, x, inverse_scale, rewriter.args["zero_point"])


@register_decomposition("quantized_decomposed.quantize_per_tensor.tensor")
def decompose_quantize_per_tensor_tensor(op, rewriter):
    """quantized_decomposed.quantize_per_tensor.tensor -> aten.reciprocal, aten.mul.Tensor,
    aten.round, aten.add.Tensor, aten.clamp, aten._to_copy. An f32 reciprocal equals eager's
    f32(1.0 / double(scale)): double rounding of a quotient is innocuous at 53 >= 2 * 24 + 2."""
    scale, zero_point = _item(rewriter, "scale"), _item(rewriter, "zero_point")
    x = _float_input(rewriter)
    _check_bounds(rewriter.args)
    return _quantize(rewriter, x, rewriter.aten("aten.reciprocal", scale), zero_point)


def _dequantize_per_tensor(rewriter, scale, zero_point) -> ir.Value:
    out_dtype = rewriter.args["out_dtype"] or torch.float32
    x = to_dtype(rewriter, _quantized_input(rewriter), out_dtype)
    return rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.sub.Tensor", x, zero_point), scale)


@register_decomposition("quantized_decomposed.dequantize_per_tensor")
def decompose_dequantize_per_tensor(op, rewriter):
    """quantized_decomposed.dequantize_per_tensor -> aten._to_copy, aten.sub.Tensor,
    aten.mul.Tensor"""
    return _dequantize_per_tensor(rewriter, rewriter.args["scale"], rewriter.args["zero_point"])


@register_decomposition("quantized_decomposed.dequantize_per_tensor.tensor")
def decompose_dequantize_per_tensor_tensor(op, rewriter):
    """quantized_decomposed.dequantize_per_tensor.tensor -> aten._to_copy, aten.sub.Tensor,
    aten.mul.Tensor (scale and zero point as 0-d tensors)"""
    scale, zero_point = _item(rewriter, "scale"), _item(rewriter, "zero_point")
    return _dequantize_per_tensor(rewriter, scale, zero_point)


def _channel_axis(rewriter, x: ir.Value) -> int:
    axis = rewriter.args["axis"]
    if axis >= rank(x) or axis < -rank(x):
        raise ValueError(f"Expecting axis to be < {rank(x)}, got {axis}")
    return axis % rank(x)


def _per_channel(rewriter, name: str, x: ir.Value, axis: int) -> ir.Value:
    """A per-channel qparam shaped to broadcast along `axis` of `x`, as the eager kernel's
    `scales.view(new_shape)` does against its input permuted to put `axis` first."""
    value = rewriter.args[name]
    shape = [1] * rank(x)
    shape[axis] = rewriter.size(value, 0)
    return view(rewriter, value, shape)


@register_decomposition("quantized_decomposed.quantize_per_channel")
def decompose_quantize_per_channel(op, rewriter):
    """quantized_decomposed.quantize_per_channel -> aten.view, aten.reciprocal, aten.mul.Tensor,
    aten.round, aten.add.Tensor, aten.clamp, aten._to_copy (1.0 / scales is reciprocal(scales)
    in torch)"""
    x = _float_input(rewriter)
    axis = _channel_axis(rewriter, x)
    _check_bounds(rewriter.args)
    scales = _per_channel(rewriter, "scales", x, axis)
    zero_points = _per_channel(rewriter, "zero_points", x, axis)
    return _quantize(rewriter, x, rewriter.aten("aten.reciprocal", scales), zero_points)


@register_decomposition("quantized_decomposed.dequantize_per_channel")
def decompose_dequantize_per_channel(op, rewriter):
    """quantized_decomposed.dequantize_per_channel -> aten.view, aten.sub.Tensor, aten.mul.Tensor,
    aten._to_copy (the subtraction in the integer type, as eager)"""
    x = _quantized_input(rewriter)
    axis = _channel_axis(rewriter, x)
    _check_bounds(rewriter.args)
    if rewriter.args["zero_points"] is not None:
        x = rewriter.aten("aten.sub.Tensor", x, _per_channel(rewriter, "zero_points", x, axis))
    scaled = rewriter.aten("aten.mul.Tensor", x, _per_channel(rewriter, "scales", x, axis))
    return to_dtype(rewriter, scaled, rewriter.args["out_dtype"] or torch.float32)


@register_decomposition("quantized_decomposed.convert_element_type.no_fuse")
def decompose_convert_element_type_no_fuse(op, rewriter):
    """quantized_decomposed.convert_element_type.no_fuse -> aten._to_copy (the op exists only
    to stop a fusion in Inductor; its value is prims.convert_element_type's)"""
    return rewriter.aten("aten._to_copy", rewriter.args["input"], dtype=rewriter.args["dtype"])

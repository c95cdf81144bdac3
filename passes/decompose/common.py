"""Helpers the decomposition families share: dtypes and result types of built ops."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import dtype_of, element_type

# ATen computes reduced-precision floats in float32 (`at::opmath_type`).
_UPCAST = {torch.float16: torch.float32, torch.bfloat16: torch.float32}


def dtype(value: ir.Value) -> torch.dtype:
    return dtype_of(ir.RankedTensorType(value.type).element_type)


def to_dtype(rewriter, value: ir.Value, target: torch.dtype) -> ir.Value:
    """`value` as `target` (an `aten._to_copy` only when the dtype differs)."""
    if dtype(value) == target:
        return value
    return rewriter.aten("aten._to_copy", value, dtype=target)


def tensor_of(op, sizes, elem: torch.dtype) -> ir.RankedTensorType:
    """The type of a tensor with `sizes` (ints, or runtime index values: `?`)."""
    dyn = ir.ShapedType.get_dynamic_size()
    shape = [s if isinstance(s, int) else dyn for s in sizes]
    with op.location:
        return ir.RankedTensorType.get(shape, element_type(elem))


def has_runtime(sizes) -> bool:
    return any(isinstance(s, ir.Value) for s in sizes)


def rank(v: ir.Value) -> int:
    return ir.RankedTensorType(v.type).rank


def numel(rewriter, x: ir.Value):
    """The element count of x: an int, or a runtime index value."""
    n = 1
    for s in rewriter.sizes(x):
        n = rewriter.index_arith(arith.MulIOp, n, s)
    return n


def int_list(values, n: int) -> list[int]:
    """An `int[n]` argument as n ints (a single int or one-element list broadcasts, as in ATen)."""
    values = [values] if isinstance(values, int) else list(values)
    return values * n if len(values) == 1 else values

"""Elementwise lowering machinery: broadcasting maps, dtype promotion, one `linalg.generic`.

Every elementwise aten op becomes one `linalg.generic` over the result's shape. Operands broadcast
from the right, a static size-1 dim against a larger one reads index 0 (a `?` dim is never 1:
torch.export specialises sizes 0 and 1). The FX result dtype is the truth: the body computes in
the result dtype (reduced floats in f32, as ATen's opmath does) unless the rule says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from mlir import ir
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

from aten_mlir.dialects import dtype_of, element_type

from .builder import (
    PARALLEL,
    LoweringRewriter,
    convert,
    elem,
    is_float,
    stored_as_unsigned,
    tensor_type,
)
from .complex_core import constant as complex_constant
from .complex_core import is_complex

_DEFAULT = ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT
_OPMATH = {
    torch.float16: torch.float32,
    torch.bfloat16: torch.float32,
    torch.complex32: torch.complex64,
}
# Unsigned ints compute in a wider signed type: values read with extui are non-negative there,
# so signed compares, division, shifts and min/max agree with unsigned ones, and +, -, *, bitwise
# ops truncated back to the storage width give the unsigned wrap-around bits.
_WIDE = {torch.uint8: torch.int32, torch.uint16: torch.int32, torch.uint32: torch.int64}
_UNSIGNED_OF = {8: torch.uint8, 16: torch.uint16, 32: torch.uint32, 64: torch.uint64}


def dtype(v) -> torch.dtype:
    """The torch dtype of a tensor value or type (uint8 for the storage of a uint8 operand)."""
    if isinstance(v, ir.Value) and stored_as_unsigned(v):
        return _UNSIGNED_OF[ir.IntegerType(elem(v)).width]
    return dtype_of(elem(v))


def opmath(d: torch.dtype) -> torch.dtype:
    return _OPMATH.get(d, d)


def promote(*operands) -> torch.dtype:
    """torch's result dtype for tensors (`ir.Value`; 0-d ones count as such) and Python
    scalars (wrapped numbers), computed by torch's own promotion rules."""
    standins = [
        torch.empty((1,) * min(tensor_type(o).rank, 1), dtype=dtype(o), device="meta")
        if isinstance(o, ir.Value)
        else o
        for o in operands
    ]
    return elementwise_dtypes(*standins, type_promotion_kind=_DEFAULT)[1]


def is_unsigned(v) -> bool:
    t = elem(v.element_type if isinstance(v, ir.ShapedType) else v)
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).is_unsigned


def broadcast_map(operand_type: ir.RankedTensorType, result: ir.RankedTensorType) -> ir.AffineMap:
    """The indexing map reading `operand_type` broadcast to `result` (aligned from the right)."""
    offset = result.rank - operand_type.rank
    exprs = []
    for i in range(operand_type.rank):
        j = i + offset
        size = None if operand_type.is_dynamic_dim(i) else operand_type.get_dim_size(i)
        rsize = None if result.is_dynamic_dim(j) else result.get_dim_size(j)
        if size == 1 and rsize != 1:
            exprs.append(ir.AffineConstantExpr.get(0))
        else:
            exprs.append(ir.AffineDimExpr.get(j))
    return ir.AffineMap.get(result.rank, 0, exprs)


def broadcast_sizes(rw: LoweringRewriter, tensors: Sequence[ir.Value], result) -> list:
    """The result sizes: static ones from `result`, a `?` one from an operand with a `?` there."""
    sizes = []
    for j in range(result.rank):
        if not result.is_dynamic_dim(j):
            sizes.append(result.get_dim_size(j))
            continue
        for t in tensors:
            tt = tensor_type(t)
            i = j - (result.rank - tt.rank)
            if i >= 0 and tt.is_dynamic_dim(i):
                sizes.append(rw.size(t, i))
                break
        else:
            raise ValueError(f"no operand gives the size of dynamic dim {j}")
    return sizes


def storage(t: ir.Type) -> ir.Type:
    """Unsigned ints have no arith ops: compute on their signless bits."""
    if isinstance(t, ir.IntegerType) and not ir.IntegerType(t).is_signless:
        return ir.IntegerType.get_signless(ir.IntegerType(t).width)
    return t


def elementwise(
    rw: LoweringRewriter,
    operands: Sequence,
    body: Callable,
    *,
    compute: torch.dtype | Sequence[torch.dtype] | None = None,
    result: ir.RankedTensorType | None = None,
) -> ir.Value:
    """One `linalg.generic` over `result` (default: the op's result type).

    `operands` are tensors (broadcast) or Python numbers (constants in the body). Each is
    converted to its `compute` dtype (default: the result dtype, reduced floats as f32) before
    `body(*scalars)` runs; the body's value is converted to the result element type.
    """
    out_dtype = dtype_of(elem(rw.op.results[0].type)) if result is None else dtype_of(elem(result))
    result = result or rw.result_type()
    if compute is None:
        compute = opmath(out_dtype)
    computes = [compute] * len(operands) if isinstance(compute, torch.dtype) else list(compute)
    if any(c not in _WIDE and not c.is_signed and c != torch.bool for c in computes):
        return None  # uint64 has no wider signed type to compute in
    computes = [_WIDE.get(c, c) for c in computes]
    tensors = [o for o in operands if isinstance(o, ir.Value)]
    unsigned = [rw.is_unsigned(t) for t in tensors]
    with rw.op.location:
        ctypes_ = [element_type(c) for c in computes]
    if any(isinstance(o, complex) and not is_complex(ct) for o, ct in zip(operands, ctypes_)):
        return None  # a complex scalar in a real computation
    sizes = broadcast_sizes(rw, tensors, result)
    init = rw.empty(result, sizes)
    consts = {}
    for k, (o, ct) in enumerate(zip(operands, ctypes_)):
        if isinstance(o, ir.Value):
            continue
        if is_complex(ct):
            with rw.at():
                consts[k] = complex_constant(o, ct)
        else:
            consts[k] = rw.const(o if not isinstance(o, bool) else int(o), ct)
    maps = [broadcast_map(tensor_type(t), result) for t in tensors]
    maps.append(ir.AffineMap.get_identity(result.rank))

    def region(*args):
        it = iter(zip(args[: len(tensors)], unsigned))
        scalars = []
        for k, ct in enumerate(ctypes_):
            if k in consts:
                scalars.append(consts[k])
            else:
                arg, uns = next(it)
                scalars.append(convert(arg, ct, uns))
        out = body(*scalars)
        return convert(out, result.element_type)

    return rw.generic(tensors, [init], maps, [PARALLEL] * result.rank, region)[0]


def float_compute(*operands) -> torch.dtype:
    """The compute dtype of a float-valued op on these operands (ints compute as float32)."""
    d = promote(*operands)
    return opmath(d) if d.is_floating_point else torch.float32


def is_float_dtype(d: torch.dtype) -> bool:
    return d.is_floating_point


def result_is_float(rw: LoweringRewriter) -> bool:
    return is_float(rw.result_type().element_type)

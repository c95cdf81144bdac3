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

from .builder import PARALLEL, LoweringRewriter, convert, elem, is_float, tensor_type

_DEFAULT = ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT
_OPMATH = {torch.float16: torch.float32, torch.bfloat16: torch.float32}


def dtype(v) -> torch.dtype:
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
    tensors_ = [o for o in operands if isinstance(o, ir.Value)]
    if any(is_unsigned(t) or isinstance(elem(t), ir.ComplexType) for t in [result, *tensors_]):
        return None  # no arith ops on unsigned or complex elements: left for the eager fallback
    if any(isinstance(o, complex) for o in operands):
        return None  # unsigned ints: no arith ops on them (left for the eager fallback)
    if compute is None:
        compute = opmath(out_dtype)
    computes = [compute] * len(operands) if isinstance(compute, torch.dtype) else list(compute)
    tensors = [o for o in operands if isinstance(o, ir.Value)]
    with rw.op.location:
        ctypes_ = [element_type(c) for c in computes]
    sizes = broadcast_sizes(rw, tensors, result)
    init = rw.empty(result, sizes)
    consts = {}
    for k, (o, ct) in enumerate(zip(operands, ctypes_)):
        if not isinstance(o, ir.Value):
            consts[k] = rw.const(o if not isinstance(o, bool) else int(o), ct)
    maps = [broadcast_map(tensor_type(t), result) for t in tensors]
    maps.append(ir.AffineMap.get_identity(result.rank))

    def region(*args):
        it = iter(args[: len(tensors)])
        scalars = []
        for k, ct in enumerate(ctypes_):
            scalars.append(consts[k] if k in consts else convert(next(it), ct))
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

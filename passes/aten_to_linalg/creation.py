"""Tensor creation, copies and dtype conversions -> linalg.fill / tensor.empty / linalg.generic.

Conversions follow ATen's `c10::convert`: float to an integer narrower than 32 bits goes through
int32 (300.0 -> int8 is 44, as on x86), and anything to float16/bfloat16 from a wider type than
float32 rounds through float32 (double rounding, as `Half(float)` does). Fill values are the
numbers torch itself stores in the dtype (computed with torch at compile time).
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from . import complex_core
from .builder import PARALLEL, convert, is_float, is_int, tensor_type, width
from .elementwise_core import broadcast_map
from .registry import register_lowering
from .unary import source_dtype
from .unary_pow import result_dtype


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def torch_cast(x: ir.Value, to: ir.Type, unsigned: bool = False) -> ir.Value:
    """Scalar `x` (bool as i1) as `to` (bool as i1), with ATen's conversion paths; `unsigned`
    reads integer `x` as unsigned. Narrow ints, unsigned ones included, are reached through
    int32, so both take the bits x86 gives (-1.5 -> uint8 is 255)."""
    src = x.type
    if src == to:
        return x
    if complex_core.is_complex(src) or complex_core.is_complex(to):
        return complex_core.cast(x, to, lambda v, t: torch_cast(v, t, unsigned))
    f32 = ir.F32Type.get()
    if is_float(to) and width(to) == 16 and not (is_float(src) and width(src) <= 32):
        # ints and f64 reach half/bfloat16 through float32, as c10's Half(float) does
        return convert(convert(x, f32, unsigned), to)
    if is_float(src) and is_int(to) and 1 < width(to) < 32:
        return arith.trunci(to, arith.fptosi(ir.IntegerType.get_signless(32), x))
    return convert(x, to, unsigned)


def _logical(t: ir.Type, dt: torch.dtype) -> ir.Type:
    """The element type a body computes with: i1 for bool (stored as i8)."""
    return _i1() if dt == torch.bool else t


def copy_like(rw, src: ir.Value, src_dtype: torch.dtype, sizes_from: ir.Value | None = None):
    """A fresh tensor of the op's result type holding `src` broadcast and converted; dynamic
    result sizes come from `sizes_from` (default: `src`)."""
    result = rw.result_type()
    out_dtype = result_dtype(rw)
    ref = src if sizes_from is None else sizes_from
    offset = tensor_type(ref).rank - result.rank
    sizes = [
        rw.size(ref, d + offset) if result.is_dynamic_dim(d) else result.get_dim_size(d)
        for d in range(result.rank)
    ]
    init = rw.empty(result, sizes)
    to = _logical(result.element_type, out_dtype)
    maps = [broadcast_map(tensor_type(src), result), ir.AffineMap.get_identity(result.rank)]

    unsigned = rw.is_unsigned(src)

    def body(x, _out):
        if src_dtype == torch.bool:
            x = convert(x, _i1())
        y = torch_cast(x, to, unsigned)
        return convert(y, result.element_type)

    return rw.generic([src], [init], maps, [PARALLEL] * result.rank, body)[0]


@register_lowering("aten._to_copy", unsigned=True, complex=True)
def lower_to_copy(op, rw):
    """aten._to_copy -> linalg.generic(arith/complex casts)"""
    return copy_like(rw, rw.args["self"], source_dtype(rw))


@register_lowering("aten.clone", unsigned=True, complex=True)
def lower_clone(op, rw):
    """aten.clone -> linalg.generic(copy)"""
    return copy_like(rw, rw.args["self"], source_dtype(rw))


@register_lowering("aten.alias", unsigned=True, complex=True)
def lower_alias(op, rw):
    """aten.alias -> (the operand itself: a view of all of it)"""
    return rw.args["self"]


@register_lowering("aten.copy", unsigned=True, complex=True)
def lower_copy(op, rw):
    """aten.copy -> linalg.generic(broadcast, arith/complex casts)"""
    a = rw.args
    return copy_like(rw, a["src"], source_dtype(rw, "src"), sizes_from=a["self"])


# -- fills ----------------------------------------------------------------------------------------
def stored_value(value, dtype: torch.dtype):
    """The Python number torch stores when filling a `dtype` tensor with `value`."""
    return torch.empty((), dtype=dtype).fill_(value).item()


def _full(rw, value, sizes):
    result = rw.result_type()
    init = rw.empty(result, sizes)
    if not isinstance(value, ir.Value):
        stored = stored_value(value, result_dtype(rw))
        if complex_core.is_complex(result.element_type):
            with rw.at():
                return rw.fill(complex_core.constant(stored, result.element_type), init)
        return rw.fill(rw.const(stored, result.element_type), init)
    if complex_core.is_complex(result.element_type):
        return None  # a symbolic scalar is real (int/float): no complex fill from one yet
    if not (is_int(value.type) or is_float(value.type) or isinstance(value.type, ir.IndexType)):
        return None
    to = _logical(result.element_type, result_dtype(rw))

    def body(_out):
        # a symbolic scalar (from a fallback such as .item()): converted inside the compiled
        # loop, since scalar ops left in @main run in the runtime's small interpreter
        v = value
        if isinstance(v.type, ir.IndexType):
            v = arith.index_cast(ir.IntegerType.get_signless(64), v)
        return convert(torch_cast(v, to), result.element_type)

    identity = ir.AffineMap.get_identity(result.rank)
    return rw.generic([], [init], [identity], [PARALLEL] * result.rank, body)[0]


@register_lowering("aten.fill.Scalar", unsigned=True, complex=True)
def lower_fill_scalar(op, rw):
    """aten.fill.Scalar -> tensor.empty, linalg.fill"""
    return _full(rw, rw.args["value"], rw.sizes(rw.args["self"]))


@register_lowering("aten.full", unsigned=True, complex=True)
def lower_full(op, rw):
    """aten.full -> tensor.empty, linalg.fill"""
    return _full(rw, rw.args["fill_value"], list(rw.args["size"]))


@register_lowering("aten.full_like", unsigned=True, complex=True)
def lower_full_like(op, rw):
    """aten.full_like -> tensor.empty, linalg.fill"""
    return _full(rw, rw.args["fill_value"], rw.sizes(rw.args["self"]))


@register_lowering("aten.scalar_tensor", unsigned=True, complex=True)
def lower_scalar_tensor(op, rw):
    """aten.scalar_tensor -> tensor.empty, linalg.fill"""
    return _full(rw, rw.args["s"], [])


def _empty(rw, sizes):
    return rw.empty(rw.result_type(), sizes)


@register_lowering("aten.empty.memory_format", unsigned=True, complex=True)
def lower_empty(op, rw):
    """aten.empty.memory_format -> tensor.empty"""
    return _empty(rw, list(rw.args["size"]))


@register_lowering("aten.empty_strided", unsigned=True, complex=True)
def lower_empty_strided(op, rw):
    """aten.empty_strided -> tensor.empty"""
    # strides only describe eager's memory layout; our buffers are dense row-major
    return _empty(rw, list(rw.args["size"]))

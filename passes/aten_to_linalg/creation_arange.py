"""aten.arange.start_step -> linalg.generic(linalg.index) computing start + step * i.

ATen's CPU kernel computes in the accumulate type of the result dtype (double for float32 and
float64, float for float16/bfloat16, int64 for integers) and rounds once on the store; this
computes start + step * i the same way. Integer results, and float ones whose values are exact
(integer or dyadic start and step), match eager bit for bit; for other float steps eager's SIMD
evaluation order (which depends on the CPU's vector width) can differ in the last bit.
A symbolic length is ceil((end - start) / step), as ATen sizes the result.
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith, linalg

from aten_mlir.dialects import dtype_of, element_type

from .builder import PARALLEL, convert, elem, is_float
from .registry import register_lowering
from .unary import arg

_ACC = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.float32: torch.float64}


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    if dtype.is_floating_point:
        return _ACC.get(dtype, dtype)
    return torch.int64


def _as_acc(v, acc: ir.Type) -> ir.Value:
    """Scalar argument `v` (a Python number or a symbolic scalar) as `Scalar::to<acc_t>`;
    needs an insertion point (symbolic ones are converted where they are used)."""
    if not isinstance(v, ir.Value):
        # Python's int() truncates, as the C++ cast does
        return arith.constant(acc, float(v) if is_float(acc) else int(v))
    if isinstance(v.type, ir.IndexType):
        v = arith.index_cast(ir.IntegerType.get_signless(64), v)
    return convert(v, acc)


def _is_int(v) -> bool:
    if isinstance(v, ir.Value):
        return isinstance(v.type, (ir.IndexType, ir.IntegerType))
    return isinstance(v, int)


def _length(rw, start, end, step) -> ir.Value | None:
    """The number of elements as an index, ceil((end - start) / step), for integer arguments
    (built from the scalar ops the runtime interprets in @main: no ceildivsi); None otherwise."""
    if not all(_is_int(v) for v in (start, end, step)):
        return None
    i64 = ir.IntegerType.get_signless(64)
    with rw.at():
        s, e, st = (_as_acc(v, i64) for v in (start, end, step))
        zero = arith.constant(i64, 0)
        # ceil(a / b) == -floor(-a / b)
        n = arith.subi(zero, arith.floordivsi(arith.subi(s, e), st))
        return arith.index_cast(ir.IndexType.get(), arith.maxsi(n, zero))


@register_lowering("aten.arange.start_step")
def lower_arange(op, rw):
    """aten.arange.start_step -> tensor.empty, linalg.generic(linalg.index, arith)"""
    a = rw.args
    result = rw.result_type()
    out = dtype_of(elem(rw.op.results[0].type))
    if out.is_complex or not out.is_signed:  # bool and unsigned ints are not signed
        return None
    start, end, step = a["start"], a["end"], arg(rw, "step")
    with rw.op.location:
        acc = element_type(_acc_dtype(out))
    size = _length(rw, start, end, step) if result.is_dynamic_dim(0) else result.get_dim_size(0)
    if size is None:
        return None  # a symbolic length from float arguments: left to eager
    init = rw.empty(result, [size])

    def body(_out):
        s, st = _as_acc(start, acc), _as_acc(step, acc)
        i = arith.index_cast(ir.IntegerType.get_signless(64), linalg.IndexOp(0).result)
        if is_float(acc):
            v = arith.addf(s, arith.mulf(st, convert(i, acc)))
        else:
            v = arith.addi(s, arith.muli(st, i))
        return convert(v, result.element_type)

    return rw.generic([], [init], [ir.AffineMap.get_identity(1)], [PARALLEL], body)

"""Tensor -> host scalar: `aten._local_scalar_dense` (`.item()`) as a `tensor.extract`."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from .builder import convert
from .registry import register_lowering


@register_lowering("aten._local_scalar_dense")
def lower_local_scalar_dense(op, rw):
    """aten._local_scalar_dense -> tensor.extract, arith casts

    The scalar a one-element tensor holds; a size (`index`) result is the value as an index, so
    compiled code that sizes tensors by it (`x[: n.item()]`) reads it directly."""
    src = rw.args["self"]
    t = ir.RankedTensorType(src.type)
    if any(not t.is_dynamic_dim(d) and t.get_dim_size(d) != 1 for d in range(t.rank)):
        return None  # torch raises for more than one element; let eager say so
    result = op.results[0].type
    with rw.at():
        zero = arith.constant(ir.IndexType.get(), 0)
        value = tensor.extract(src, [zero] * t.rank)
        if isinstance(result, ir.IndexType):
            if not isinstance(value.type, ir.IntegerType):
                return None
            return arith.index_cast(result, value)
        return convert(value, result)

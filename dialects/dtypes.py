"""torch dtypes <-> MLIR builtin element types, and tensor types from example values.

Signed integers are signless (`i8`..`i64`, as linalg and arith expect); unsigned ones keep their
sign (`ui8`) so the dtype round-trips; `bool` is `i1`.
"""

from __future__ import annotations

import torch
from mlir import ir

_DTYPE_TO_ASM = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.bool: "i1",
    torch.int8: "i8",
    torch.int16: "i16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.uint8: "ui8",
    torch.uint16: "ui16",
    torch.uint32: "ui32",
    torch.uint64: "ui64",
    torch.complex64: "complex<f32>",
    torch.complex128: "complex<f64>",
    torch.complex32: "complex<f16>",
    torch.float8_e4m3fn: "f8E4M3FN",
    torch.float8_e5m2: "f8E5M2",
    torch.float8_e4m3fnuz: "f8E4M3FNUZ",
    torch.float8_e5m2fnuz: "f8E5M2FNUZ",
}
_ASM_TO_DTYPE = {v: k for k, v in _DTYPE_TO_ASM.items()}


class UnsupportedDtypeError(TypeError):
    pass


def element_type(dtype: torch.dtype) -> ir.Type:
    """The MLIR element type for a torch dtype (needs an active context)."""
    asm = _DTYPE_TO_ASM.get(dtype)
    if asm is None:
        raise UnsupportedDtypeError(f"dtype {dtype} has no MLIR element type")
    return ir.Type.parse(asm)


def dtype_of(element: ir.Type) -> torch.dtype:
    """The torch dtype of an MLIR element type."""
    dtype = _ASM_TO_DTYPE.get(str(element))
    if dtype is None:
        raise UnsupportedDtypeError(f"element type {element} has no torch dtype")
    return dtype


def dim_size(size) -> int:
    """A static size, or MLIR's dynamic marker for a symbolic one."""
    if isinstance(size, int):
        return size
    if isinstance(size, torch.SymInt):
        hint = size.node.maybe_as_int()
        return hint if hint is not None else ir.ShapedType.get_dynamic_size()
    raise TypeError(f"not a size: {size!r}")


def tensor_type(shape, dtype: torch.dtype) -> ir.RankedTensorType:
    """`tensor<2x?xf32>` for a (possibly symbolic) shape and dtype."""
    return ir.RankedTensorType.get([dim_size(s) for s in shape], element_type(dtype))


def tensor_type_of(value: torch.Tensor) -> ir.RankedTensorType:
    return tensor_type(value.shape, value.dtype)


def scalar_type_of(value) -> ir.Type:
    """The MLIR type of a non-tensor scalar value (a SymInt is an `index`)."""
    if isinstance(value, (torch.SymInt,)):
        return ir.IndexType.get()
    if isinstance(value, (bool, torch.SymBool)):
        return ir.IntegerType.get_signless(1)
    if isinstance(value, int):
        return ir.IntegerType.get_signless(64)
    if isinstance(value, (float, torch.SymFloat)):
        return ir.F64Type.get()
    raise TypeError(f"no MLIR scalar type for {type(value).__name__}")

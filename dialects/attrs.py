"""Schema argument values <-> MLIR attributes, one encoding per `ArgKind`.

| kind            | attribute                          | example                      |
|-----------------|------------------------------------|------------------------------|
| int             | `i64` IntegerAttr                  | `dim = 1 : i64`              |
| float           | `f64` FloatAttr                    | `eps = 1.0e-05 : f64`        |
| bool            | BoolAttr                           | `keepdim = true`             |
| str             | StringAttr                         | `approximate = "tanh"`       |
| Scalar          | int / float / bool attribute, complex as `[re : f64, im : f64]` |  |
| int[]           | DenseI64ArrayAttr                  | `dim = array<i64: 0, 1>`     |
| float[] / bool[]| DenseF64ArrayAttr / DenseBoolArrayAttr |                          |
| Scalar[] / str[]| ArrayAttr of the element encoding  |                              |
| ScalarType      | TypeAttr                           | `dtype = f32`                |
| Layout, MemoryFormat, Device | StringAttr             | `layout = "strided"`         |
| Tensor?[]       | presence mask DenseBoolArrayAttr   | `indices = array<i1: true, false>` |
| Tensor given a Python number (a wrapped number) | as Scalar | `other = 1 : i64` |
"""

from __future__ import annotations

import torch
from mlir import ir

from .dtypes import dtype_of, element_type
from .opdefs import ArgKind


class AttributeEncodingError(ValueError):
    pass


def _i64(value: int) -> ir.Attribute:
    if not -(2**63) <= value < 2**63:
        raise AttributeEncodingError(f"integer {value} does not fit in i64")
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _scalar(value) -> ir.Attribute:
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return _i64(value)
    if isinstance(value, float):
        return ir.FloatAttr.get_f64(value)
    if isinstance(value, complex):
        return ir.ArrayAttr.get(
            [ir.FloatAttr.get_f64(value.real), ir.FloatAttr.get_f64(value.imag)]
        )
    raise AttributeEncodingError(f"not a scalar: {value!r}")


def _dtype_from_code(code: int) -> torch.dtype:
    """A c10::ScalarType number (some callers pass `dtype=4`) as the torch dtype it stands for."""
    try:
        return torch.ops.aten.scalar_tensor.default(0, dtype=code, device="meta").dtype
    except RuntimeError:
        raise AttributeEncodingError(f"{code} is not a ScalarType number") from None


def _enum_name(value) -> str:
    return str(value).removeprefix("torch.")


def _expect(value, types, kind):
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise AttributeEncodingError(f"expected {kind.value}, got {type(value).__name__} {value!r}")
    return value


def _encode_list(kind: ArgKind, value) -> ir.Attribute:
    if not isinstance(value, (list, tuple)):
        raise AttributeEncodingError(f"expected {kind.value}, got {value!r}")
    if kind is ArgKind.INT_LIST:
        return ir.DenseI64ArrayAttr.get([_expect(v, (int,), ArgKind.INT) for v in value])
    if kind is ArgKind.FLOAT_LIST:
        return ir.DenseF64ArrayAttr.get(
            [float(_expect(v, (int, float), ArgKind.FLOAT)) for v in value]
        )
    if kind is ArgKind.BOOL_LIST:
        return ir.DenseBoolArrayAttr.get([_expect(v, (bool,), ArgKind.BOOL) for v in value])
    if kind is ArgKind.SCALAR_LIST:
        return ir.ArrayAttr.get([_scalar(v) for v in value])
    if kind is ArgKind.STR_LIST:
        return ir.ArrayAttr.get([ir.StringAttr.get(_expect(v, (str,), ArgKind.STR)) for v in value])
    raise AttributeEncodingError(f"{kind.value} is not an attribute kind")


def _encode_dtype(value) -> ir.Attribute:
    if isinstance(value, int) and not isinstance(value, bool):
        value = _dtype_from_code(value)
    return ir.TypeAttr.get(element_type(_expect(value, (torch.dtype,), ArgKind.DTYPE)))


# c10's `MemoryFormat` and `Layout` enums in declaration order: schema defaults come as these
# numbers (`contiguous(..., MemoryFormat memory_format=0)`), as ScalarType ones do (`dtype=4`).
_MEMORY_FORMAT_CODES = (
    torch.contiguous_format,
    torch.preserve_format,
    torch.channels_last,
    torch.channels_last_3d,
)
_LAYOUT_CODES = (
    torch.strided,
    torch.sparse_coo,
    torch.sparse_csr,
    torch._mkldnn,
    torch.sparse_csc,
    torch.sparse_bsr,
    torch.sparse_bsc,
    torch.jagged,
)


def _encode_enum(kind: ArgKind, enum_type: type, codes: tuple, value) -> ir.Attribute:
    """A torch enum value (or its c10 number) as its name: `"contiguous_format"`."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < len(codes):
            raise AttributeEncodingError(f"{value} is not a {kind.value} number")
        value = codes[value]
    return ir.StringAttr.get(_enum_name(_expect(value, (enum_type,), kind)))


def _encode_generator(value) -> ir.Attribute:
    raise AttributeEncodingError("a torch.Generator argument cannot be compiled")


_ENCODERS = {
    # ATen takes a bool where an int is expected (bools are ints in schemas).
    ArgKind.INT: lambda v: _i64(int(_expect(v, (int, bool), ArgKind.INT))),
    ArgKind.FLOAT: lambda v: ir.FloatAttr.get_f64(float(_expect(v, (int, float), ArgKind.FLOAT))),
    ArgKind.BOOL: lambda v: ir.BoolAttr.get(bool(_expect(v, (bool, int), ArgKind.BOOL))),
    ArgKind.STR: lambda v: ir.StringAttr.get(_expect(v, (str,), ArgKind.STR)),
    ArgKind.SCALAR: _scalar,
    ArgKind.COMPLEX: _scalar,
    ArgKind.TENSOR: _scalar,  # a wrapped number
    ArgKind.DTYPE: _encode_dtype,
    ArgKind.LAYOUT: lambda v: _encode_enum(ArgKind.LAYOUT, torch.layout, _LAYOUT_CODES, v),
    ArgKind.MEMORY_FORMAT: lambda v: _encode_enum(
        ArgKind.MEMORY_FORMAT, torch.memory_format, _MEMORY_FORMAT_CODES, v
    ),
    ArgKind.DEVICE: lambda v: ir.StringAttr.get(
        str(torch.device(_expect(v, (torch.device, str), ArgKind.DEVICE)))
    ),
    ArgKind.OPT_TENSOR_LIST: lambda v: ir.DenseBoolArrayAttr.get([x is not None for x in v]),
    ArgKind.GENERATOR: _encode_generator,
}


def encode_attr(kind: ArgKind, value) -> ir.Attribute:
    """The attribute carrying a (non-None) compile-time `value` of schema kind `kind`."""
    encoder = _ENCODERS.get(kind)
    return encoder(value) if encoder else _encode_list(kind, value)


def _decode_scalar(attr: ir.Attribute):
    if isinstance(attr, ir.BoolAttr):
        return attr.value
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    if isinstance(attr, ir.ArrayAttr) and len(attr) == 2:
        return complex(ir.FloatAttr(attr[0]).value, ir.FloatAttr(attr[1]).value)
    raise AttributeEncodingError(f"not a scalar attribute: {attr}")


_ATTR_CLASS = {
    ArgKind.INT: ir.IntegerAttr,
    ArgKind.FLOAT: ir.FloatAttr,
    ArgKind.BOOL: ir.BoolAttr,
    ArgKind.STR: ir.StringAttr,
    ArgKind.DTYPE: ir.TypeAttr,
    ArgKind.LAYOUT: ir.StringAttr,
    ArgKind.MEMORY_FORMAT: ir.StringAttr,
    ArgKind.DEVICE: ir.StringAttr,
    ArgKind.INT_LIST: ir.DenseI64ArrayAttr,
    ArgKind.FLOAT_LIST: ir.DenseF64ArrayAttr,
    ArgKind.BOOL_LIST: ir.DenseBoolArrayAttr,
    ArgKind.OPT_TENSOR_LIST: ir.DenseBoolArrayAttr,
    ArgKind.SCALAR_LIST: ir.ArrayAttr,
    ArgKind.STR_LIST: ir.ArrayAttr,
}


def check_attr(kind: ArgKind, attr: ir.Attribute) -> str | None:
    """Why `attr` cannot carry a value of `kind`, or None if it can."""
    try:
        decode_attr(kind, attr)
    except Exception as e:  # torch.device("toaster") raises RuntimeError; any failure is a "no"
        return str(e).splitlines()[0] if str(e) else type(e).__name__
    return None


def decode_attr(kind: ArgKind, attr: ir.Attribute):
    """The Python value (as `torch.ops.aten` takes it) of an attribute of schema kind `kind`."""
    if kind in (ArgKind.SCALAR, ArgKind.COMPLEX, ArgKind.TENSOR):
        return _decode_scalar(attr)
    cls = _ATTR_CLASS.get(kind)
    if (
        cls is None
        or not isinstance(attr, cls)
        or (kind is ArgKind.INT and isinstance(attr, ir.BoolAttr))
    ):
        raise AttributeEncodingError(f"expected a {kind.value} attribute, got {attr}")
    if kind is ArgKind.DTYPE:
        return dtype_of(attr.value)
    if kind in (ArgKind.LAYOUT, ArgKind.MEMORY_FORMAT):
        value = getattr(torch, attr.value, None)
        expected = torch.layout if kind is ArgKind.LAYOUT else torch.memory_format
        if not isinstance(value, expected):
            raise AttributeEncodingError(f"'{attr.value}' is not a torch {kind.value}")
        return value
    if kind is ArgKind.DEVICE:
        return torch.device(attr.value)
    if kind is ArgKind.SCALAR_LIST:
        return [_decode_scalar(a) for a in attr]
    if kind is ArgKind.STR_LIST:
        return [ir.StringAttr(a).value for a in attr]
    if kind in (ArgKind.INT_LIST, ArgKind.FLOAT_LIST, ArgKind.BOOL_LIST, ArgKind.OPT_TENSOR_LIST):
        return list(attr)
    return attr.value

"""The `aten` MLIR dialect: op definitions from PyTorch schemas, builders and the verifier."""

from .attrs import AttributeEncodingError, decode_attr, encode_attr
from .context import make_context
from .dtypes import UnsupportedDtypeError, dtype_of, element_type, tensor_type
from .locations import describe_location, file_position
from .opdefs import (
    ArgDef,
    ArgKind,
    OpDef,
    ResultKind,
    all_op_names,
    core_op_names,
    get_op_def,
    is_dialect_op,
    op_name_of_overload,
)
from .ops import (
    AtenBuildError,
    aten,
    build_aten,
    op_arguments,
    operand_segments,
    warm_up_meta,
)
from .verifier import (
    AtenDiagnostic,
    AtenVerificationError,
    verify_aten_ops,
    verify_module,
    verify_op,
)

__all__ = [
    "warm_up_meta",
    "ArgDef",
    "ArgKind",
    "AtenBuildError",
    "AtenDiagnostic",
    "AtenVerificationError",
    "AttributeEncodingError",
    "OpDef",
    "ResultKind",
    "UnsupportedDtypeError",
    "all_op_names",
    "aten",
    "build_aten",
    "core_op_names",
    "decode_attr",
    "describe_location",
    "dtype_of",
    "element_type",
    "encode_attr",
    "file_position",
    "get_op_def",
    "is_dialect_op",
    "make_context",
    "op_arguments",
    "op_name_of_overload",
    "operand_segments",
    "tensor_type",
    "verify_aten_ops",
    "verify_module",
    "verify_op",
]

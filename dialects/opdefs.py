"""Definitions of the `aten` dialect's ops, generated from PyTorch's own schemas.

Every `aten::` schema known to the JIT becomes one `OpDef`, named after its overload
(`aten.add.Tensor`; a `.default` overload drops the suffix: `aten._softmax`). Nothing is typed
by hand: argument names, kinds, optionality and result arity come from the schema.

Two other namespaces that exported programs hold are registered the same way, named as FX names
them (`quantized_decomposed.quantize_per_tensor`, `prims.collapse_view`): the PT2E int8 flow's
quantize/dequantize ops and the prims a user calls directly. Their ops are decomposed to aten ops
before anything lowers them; `all_op_names()` and the core set stay aten's.
"""

from __future__ import annotations

import enum
import functools
import importlib
import re
from dataclasses import dataclass, field

import torch


class ArgKind(enum.Enum):
    """How one schema argument is carried by an op: an operand group or an attribute."""

    TENSOR = "Tensor"
    TENSOR_LIST = "Tensor[]"
    OPT_TENSOR_LIST = "Tensor?[]"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STR = "str"
    SCALAR = "Scalar"
    COMPLEX = "complex"
    INT_LIST = "int[]"
    FLOAT_LIST = "float[]"
    BOOL_LIST = "bool[]"
    SCALAR_LIST = "Scalar[]"
    STR_LIST = "str[]"
    DTYPE = "ScalarType"
    LAYOUT = "Layout"
    MEMORY_FORMAT = "MemoryFormat"
    DEVICE = "Device"
    GENERATOR = "Generator"

    @property
    def is_tensor(self) -> bool:
        return self in (ArgKind.TENSOR, ArgKind.TENSOR_LIST, ArgKind.OPT_TENSOR_LIST)

    @property
    def may_be_symbolic(self) -> bool:
        """Kinds whose value can be a runtime (symbolic) scalar carried as an operand."""
        return self in (ArgKind.INT, ArgKind.FLOAT, ArgKind.BOOL, ArgKind.SCALAR, ArgKind.INT_LIST)


class ResultKind(enum.Enum):
    TENSOR = "Tensor"
    TENSOR_LIST = "Tensor[]"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    SCALAR = "Scalar"


_LIST_RE = re.compile(r"^List\[(.*)\]$")
_OPT_RE = re.compile(r"^Optional\[(.*)\]$")

_SCALAR_KINDS = {
    "Tensor": ArgKind.TENSOR,
    "int": ArgKind.INT,
    "float": ArgKind.FLOAT,
    "bool": ArgKind.BOOL,
    "str": ArgKind.STR,
    "number": ArgKind.SCALAR,
    "complex": ArgKind.COMPLEX,
    "ScalarType": ArgKind.DTYPE,
    "Layout": ArgKind.LAYOUT,
    "MemoryFormat": ArgKind.MEMORY_FORMAT,
    "Device": ArgKind.DEVICE,
    "Generator": ArgKind.GENERATOR,
}
_LIST_KINDS = {
    "Tensor": ArgKind.TENSOR_LIST,
    "Optional[Tensor]": ArgKind.OPT_TENSOR_LIST,
    "int": ArgKind.INT_LIST,
    "float": ArgKind.FLOAT_LIST,
    "bool": ArgKind.BOOL_LIST,
    "number": ArgKind.SCALAR_LIST,
    "str": ArgKind.STR_LIST,
}
_RESULT_KINDS = {
    "Tensor": ResultKind.TENSOR,
    "List[Tensor]": ResultKind.TENSOR_LIST,
    "int": ResultKind.INT,
    "float": ResultKind.FLOAT,
    "bool": ResultKind.BOOL,
    "number": ResultKind.SCALAR,
}


class _Inexpressible(Exception):
    pass


def _arg_kind(type_str: str) -> tuple[ArgKind, bool]:
    """Maps a schema type string to (kind, optional); raises _Inexpressible."""
    optional = False
    m = _OPT_RE.match(type_str)
    if m:
        optional, type_str = True, m.group(1)
    m = _LIST_RE.match(type_str)
    if m:
        kind = _LIST_KINDS.get(m.group(1))
    else:
        kind = _SCALAR_KINDS.get(type_str)
    if kind is None:
        raise _Inexpressible(type_str)
    return kind, optional


@dataclass(frozen=True)
class ArgDef:
    name: str
    kind: ArgKind
    optional: bool
    has_default: bool
    default: object
    kwarg_only: bool
    mutable: bool

    @property
    def required(self) -> bool:
        """A required attribute/operand: not optional (None is then not a legal value)."""
        return not self.optional


@dataclass(frozen=True)
class ResultDef:
    name: str
    kind: ResultKind


@dataclass(frozen=True)
class OpDef:
    """One ATen overload as an op of the `aten` dialect."""

    op_name: str  # `aten.add.Tensor`
    schema: str  # the schema text, for messages and docs
    args: tuple[ArgDef, ...]
    results: tuple[ResultDef, ...]
    inexpressible: str | None = None  # why the dialect cannot carry this overload
    _overload: list = field(default_factory=list, compare=False, repr=False)

    @property
    def qualified_name(self) -> str:
        """The torch spelling: `aten::add.Tensor`."""
        namespace, name, overload = _split_op_name(self.op_name)
        return f"{namespace}::{name}" + (f".{overload}" if overload else "")

    @property
    def overload(self) -> torch._ops.OpOverload:
        """The `torch.ops.<namespace>` overload this op stands for (resolved on first use)."""
        if not self._overload:
            namespace, name, overload = _split_op_name(self.op_name)
            if self.op_name in _LATE_SCHEMAS:  # defined by the module that registers it
                importlib.import_module(_LATE_SCHEMAS[self.op_name][1])
            packet = getattr(getattr(torch.ops, namespace), name)
            self._overload.append(getattr(packet, overload or "default"))
        return self._overload[0]

    @property
    def is_core(self) -> bool:
        """Tagged `torch.Tag.core` (the 193-overload core ATen opset)."""
        return _is_core(self.op_name)

    @property
    def has_fixed_operands(self) -> bool:
        """True when every tensor argument is a plain `Tensor` (no groups to size)."""
        return all(
            a.kind is ArgKind.TENSOR and not a.optional for a in self.args if a.kind.is_tensor
        )

    @property
    def has_result_segments(self) -> bool:
        """Results carry `resultSegmentSizes`: a `Tensor[]` result stands among others."""
        kinds = [r.kind for r in self.results]
        return ResultKind.TENSOR_LIST in kinds and len(kinds) > 1

    def arg(self, name: str) -> ArgDef:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(f"{self.op_name} has no argument '{name}'")


# Namespaces whose schemas are ops of the dialect, each under its own prefix (see the docstring).
NAMESPACES = ("aten", "prims", "quantized_decomposed")


def is_dialect_op(op_name: str) -> bool:
    """`op_name` is spelled as an op of the dialect (`aten.relu`, `prims.collapse_view`)."""
    return op_name.split(".", 1)[0] in NAMESPACES


def op_name_of(schema_name: str, overload_name: str) -> str:
    """`aten::add`, `Tensor` -> `aten.add.Tensor`; the `default` overload drops its suffix."""
    base = schema_name.replace("::", ".", 1)
    return base + (f".{overload_name}" if overload_name and overload_name != "default" else "")


def _split_op_name(op_name: str) -> tuple[str, str, str]:
    """`aten.add.Tensor` -> (`aten`, `add`, `Tensor`); the overload is "" for `.default`."""
    namespace, _, rest = op_name.partition(".")
    name, _, overload = rest.partition(".")
    return namespace, name, overload


def op_name_of_overload(overload: torch._ops.OpOverload) -> str:
    """The dialect op name of a `torch.ops.<namespace>` overload."""
    return op_name_of(overload._schema.name, overload._schema.overload_name)


def _op_def_from_schema(schema) -> OpDef:
    name = op_name_of(schema.name, schema.overload_name)
    try:
        args = tuple(
            ArgDef(
                name=a.name,
                kind=_arg_kind(str(a.real_type))[0],
                optional=_arg_kind(str(a.real_type))[1],
                has_default=a.has_default_value(),
                default=a.default_value if a.has_default_value() else None,
                kwarg_only=a.kwarg_only,
                mutable=a.alias_info is not None and a.alias_info.is_write,
            )
            for a in schema.arguments
        )
        results = []
        for i, r in enumerate(schema.returns):
            kind = _RESULT_KINDS.get(str(r.type))
            if kind is None:
                raise _Inexpressible(f"result type {r.type}")
            results.append(ResultDef(r.name or f"result{i}", kind))
    except _Inexpressible as e:
        return OpDef(name, str(schema), (), (), inexpressible=f"schema type '{e}'")
    return OpDef(name, str(schema), args, tuple(results))


@functools.cache
def _schemas_by_name() -> dict:
    # `quantized_decomposed::` is defined in Python by this module (30 ms), which only PT2E
    # imports; a program loaded from a `.pt2` file may hold its ops without it.
    import torch.ao.quantization.fx._decomposed  # noqa: F401

    return {
        op_name_of(s.name, s.overload_name): s
        for s in torch._C._jit_get_all_schemas()
        if s.name.split("::", 1)[0] in NAMESPACES
    }


@functools.cache
def get_op_def(op_name: str) -> OpDef | None:
    """The definition of `op_name` (`aten.add.Tensor`, `quantized_decomposed.quantize_per_tensor`),
    or None if PyTorch has no such schema."""
    schema = _schemas_by_name().get(op_name)
    if schema is None and op_name in _LATE_SCHEMAS:
        schema = torch._C.parse_schema(_LATE_SCHEMAS[op_name][0])
    return _op_def_from_schema(schema) if schema is not None else None


# Ops that graphs hold but that torch registers only once a Python module it imports late is
# loaded: dynamo writes `addcmul_` (optimizer steps) as `prims.fma`, which
# `torch._inductor.inductor_prims` defines (1 s to import up front; defining it here would make
# that module's own definition fail). Parsed, not registered; the module is imported only when
# the op's overload is needed (the reference interpreter, meta result types).
_LATE_SCHEMAS = {
    "prims.fma": (
        "prims::fma(Tensor a, Tensor b, Tensor c) -> Tensor",
        "torch._inductor.inductor_prims",
    )
}


def all_op_names(namespace: str = "aten") -> list[str]:
    """Every op name of `namespace` in the dialect (one per schema), sorted."""
    return sorted(n for n in _schemas_by_name() if n.startswith(namespace + "."))


@functools.cache
def core_op_names() -> frozenset[str]:
    """Op names of the overloads tagged `torch.Tag.core`."""
    names = set()
    for op_name in all_op_names():
        s = _schemas_by_name()[op_name]
        packet = getattr(torch.ops.aten, s.name.split("::", 1)[1], None)
        ov = getattr(packet, s.overload_name or "default", None) if packet is not None else None
        if ov is not None and torch.Tag.core in ov.tags:
            names.add(op_name)
    return frozenset(names)


def _is_core(op_name: str) -> bool:
    return op_name in core_op_names()

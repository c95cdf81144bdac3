"""Building aten ops from Python and reading their arguments back, by schema argument name.

Operand layout: tensor arguments are operands in schema order. When an op's tensors are not all
plain `Tensor`s (optional tensors, tensor lists), or when a scalar argument is only known at run
time (a symbolic size), the op carries `operandSegmentSizes`: one entry per schema argument,
the number of operands it takes (0 for an attribute or an absent optional).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import torch
from mlir import ir

from .attrs import decode_attr, encode_attr
from .dtypes import element_type
from .opdefs import ArgDef, ArgKind, OpDef, ResultKind, get_op_def

SEGMENTS = "operandSegmentSizes"
RESULT_SEGMENTS = "resultSegmentSizes"


class AtenBuildError(ValueError):
    pass


def require_op_def(op_name: str) -> OpDef:
    opdef = get_op_def(op_name)
    if opdef is None:
        raise AtenBuildError(f"'{op_name}' is not an op of the aten dialect")
    if opdef.inexpressible:
        raise AtenBuildError(
            f"'{op_name}' cannot be expressed in the aten dialect: {opdef.inexpressible}"
        )
    return opdef


def _bind(opdef: OpDef, args: Sequence, kwargs: dict) -> dict:
    """Schema argument name -> value, with defaults filled, as torch binds a call."""
    positional = [a for a in opdef.args if not a.kwarg_only]
    if len(args) > len(positional):
        raise AtenBuildError(f"{opdef.op_name}: too many positional arguments ({len(args)})")
    names = {a.name for a in opdef.args}
    unknown = set(kwargs) - names
    if unknown:
        raise AtenBuildError(f"{opdef.op_name}: unknown arguments {sorted(unknown)}")
    bound = dict(zip((a.name for a in positional), args))
    for a in opdef.args:
        if a.name in kwargs:
            if a.name in bound:
                raise AtenBuildError(f"{opdef.op_name}: argument '{a.name}' given twice")
            bound[a.name] = kwargs[a.name]
        elif a.name not in bound:
            if not a.has_default and not a.optional:
                raise AtenBuildError(f"{opdef.op_name}: missing argument '{a.name}'")
            bound[a.name] = a.default
    return bound


def _index_value(v, ip) -> ir.Value:
    if isinstance(v, ir.Value):
        return v
    from mlir.dialects import arith

    return arith.ConstantOp(ir.IndexType.get(), int(v), ip=ip).result


def _arg_operands(a: ArgDef, value, ip) -> tuple[list[ir.Value], ir.Attribute | None]:
    """(operands, attribute) carrying one bound argument value."""
    if value is None:
        if not a.optional:
            raise AtenBuildError(f"argument '{a.name}' may not be None")
        return [], None
    if a.kind is ArgKind.TENSOR:
        # A Python number where ATen takes a Tensor is a "wrapped number" (`add.Tensor(x, 1)`);
        # it promotes unlike a 0-d tensor, so it stays a scalar attribute, not a tensor constant.
        return ([value], None) if isinstance(value, ir.Value) else ([], encode_attr(a.kind, value))
    if a.kind is ArgKind.TENSOR_LIST:
        return list(value), None
    if a.kind is ArgKind.OPT_TENSOR_LIST:
        return [v for v in value if v is not None], encode_attr(a.kind, value)
    if isinstance(value, ir.Value):
        if not a.kind.may_be_symbolic:
            raise AtenBuildError(f"argument '{a.name}' ({a.kind.value}) cannot be a runtime value")
        return [value], None
    if a.kind is ArgKind.INT_LIST and any(isinstance(v, ir.Value) for v in value):
        return [_index_value(v, ip) for v in value], None
    return [], encode_attr(a.kind, value)


def build_aten(
    op_name: str,
    *args,
    results: Sequence[ir.Type] | None = None,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
    **kwargs,
) -> ir.Operation:
    """Creates `op_name` (`aten.add.Tensor`) with arguments bound like a torch call.

    Tensors are `ir.Value`s; scalar, list and enum arguments are Python values (an `ir.Value`
    where only known at run time); defaults are filled in. Without `results`, result types are
    inferred by running the overload on meta tensors (static shapes only).
    """
    opdef = require_op_def(op_name)
    return build_op(opdef, op_name, args, kwargs, results=results, loc=loc, ip=ip)


def build_op(
    opdef: OpDef,
    op_name: str,
    args: Sequence,
    kwargs: dict,
    *,
    results: Sequence[ir.Type] | None = None,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
    attributes: dict | None = None,
) -> ir.Operation:
    """`build_aten` with the definition given: an op named `op_name` carrying the arguments of
    `opdef`'s schema (and `attributes` besides), as `aten.opaque_call` carries its overload's."""
    bound = _bind(opdef, args, kwargs)
    operands, segments = [], []
    attributes = dict(attributes or {})
    for a in opdef.args:
        vals, attr = _arg_operands(a, bound[a.name], ip)
        operands += vals
        segments.append(len(vals))
        if attr is not None:
            attributes[a.name] = attr
    tensor_segments = [1 if a.kind is ArgKind.TENSOR and not a.optional else 0 for a in opdef.args]
    if not (opdef.has_fixed_operands and segments == tensor_segments):
        attributes[SEGMENTS] = ir.DenseI32ArrayAttr.get(segments)
    if results is None:
        results = infer_result_types(opdef, bound)
    if opdef.has_result_segments:
        groups = [list(r) if isinstance(r, (list, tuple)) else [r] for r in results]
        attributes[RESULT_SEGMENTS] = ir.DenseI32ArrayAttr.get([len(g) for g in groups])
        results = [t for g in groups for t in g]
    return ir.Operation.create(
        op_name, results=list(results), operands=operands, attributes=attributes, loc=loc, ip=ip
    )


def aten(op_name: str, *args, loc=None, ip=None, **kwargs) -> ir.Value:
    """`build_aten` for a single-result op, returning the result value."""
    op = build_aten(op_name, *args, loc=loc, ip=ip, **kwargs)
    if len(op.results) != 1:
        raise AtenBuildError(f"{op_name} has {len(op.results)} results; use build_aten")
    return op.results[0]


# Two stand-ins for a dynamic (`?`) dim: a result dim that differs between the two meta runs
# depends on a dynamic dim and is `?` itself; one that agrees is static.
_DYNAMIC_STANDINS = (17, 29)


def _meta(value, standin: int, device: str = "meta"):
    if isinstance(value, ir.Value):
        t = value.type
        if not isinstance(t, ir.RankedTensorType):
            raise AtenBuildError(
                "result types cannot be inferred from a runtime scalar; pass results="
            )
        from .dtypes import dtype_of

        shape = [standin if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank)]
        return torch.empty(shape, dtype=dtype_of(t.element_type), device=device)
    if isinstance(value, (list, tuple)):
        return [_meta(v, standin, device) for v in value]
    return value


def _run_meta(opdef: OpDef, bound: dict, standin: int, fake: bool = False):
    device = "cpu" if fake else "meta"
    try:
        with _fake_mode() if fake else contextlib.nullcontext():
            call_args = [
                _meta(bound[a.name], standin, device) for a in opdef.args if not a.kwarg_only
            ]
            call_kwargs = {
                a.name: _meta(bound[a.name], standin, device) for a in opdef.args if a.kwarg_only
            }
            out = opdef.overload(*call_args, **call_kwargs)
    except Exception as e:
        raise AtenBuildError(
            f"{opdef.op_name}: cannot infer result types ({e}); pass results="
        ) from None
    return list(out) if isinstance(out, (tuple, list)) else [out]


def warm_up_meta() -> None:
    """Does once, in this process, the lazy set-up the first result-type inference would do:
    torch imports its `_dynamo` (through the decorators of `torch._refs`) and we list the core
    ops. A process that forks a child per piece of work (`aten-opt --split-input-file`,
    `backends/isolate.py`) calls it before forking, so each child starts warm instead of paying
    ~0.8 s for the same imports."""
    import torch._decomp  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torch._refs  # noqa: F401

    from .opdefs import core_op_names

    core_op_names()


@contextlib.contextmanager
def _fake_mode():
    """A FakeTensorMode whose failed meta runs stay quiet: torch logs each one with its
    traceback at ERROR level, but here a failure is an answer (the stand-in sizes of `?` dims
    need not satisfy the op's shape checks), which `_run_meta`'s caller handles."""
    import logging

    from torch._subclasses.fake_tensor import FakeTensorMode

    logger = logging.getLogger("torch._subclasses.fake_tensor")
    disabled = logger.disabled
    logger.disabled = True
    try:
        with FakeTensorMode():
            yield
    finally:
        logger.disabled = disabled


def infer_result_types(opdef: OpDef, bound: dict, fake: bool = False) -> list[ir.Type]:
    """Result types from running the overload on meta tensors; with dynamic operand dims it runs
    twice with different stand-in sizes and marks every result dim that moved as `?`. With
    `fake`, on CPU fake tensors, as torch.export traces: slower, but where an op's meta kernel
    and its CPU kernel disagree (`_native_batch_norm_legit_no_training`'s empty saved
    statistics) it gives what the exported graph says."""
    dynamic = any(
        isinstance(v, ir.Value)
        and isinstance(v.type, ir.RankedTensorType)
        and not v.type.has_static_shape
        for arg in bound.values()
        for v in (arg if isinstance(arg, (list, tuple)) else [arg])
    )
    first = _run_meta(opdef, bound, _DYNAMIC_STANDINS[0], fake)
    second = _run_meta(opdef, bound, _DYNAMIC_STANDINS[1], fake) if dynamic else first
    return [_result_type(opdef, a, b) for a, b in zip(first, second)]


def _result_type(opdef: OpDef, out, other):
    if isinstance(out, (list, tuple)):
        return [_result_type(opdef, o, p) for o, p in zip(out, other)]
    if not isinstance(out, torch.Tensor):
        raise AtenBuildError(f"{opdef.op_name}: cannot infer a non-tensor result type")
    if out.dim() != other.dim() or out.dtype != other.dtype:
        raise AtenBuildError(
            f"{opdef.op_name}: result rank depends on a dynamic size; pass results="
        )
    dyn = ir.ShapedType.get_dynamic_size()
    shape = [a if a == b else dyn for a, b in zip(out.shape, other.shape)]
    return ir.RankedTensorType.get(shape, element_type(out.dtype))


def operand_segments(op: ir.Operation, opdef: OpDef) -> list[int]:
    """Operands per schema argument (see module docstring); raises ValueError when malformed."""
    if SEGMENTS in op.attributes:
        segments = list(ir.DenseI32ArrayAttr(op.attributes[SEGMENTS]))
        if len(segments) != len(opdef.args):
            raise ValueError(
                f"{SEGMENTS} has {len(segments)} entries, the schema {len(opdef.args)} arguments"
            )
        if any(s < 0 for s in segments):
            raise ValueError(f"{SEGMENTS} has a negative entry")
    elif opdef.has_fixed_operands:
        segments = [1 if a.kind is ArgKind.TENSOR else 0 for a in opdef.args]
        if sum(segments) != len(op.operands):
            raise ValueError(
                f"expects {sum(segments)} operands (one per Tensor argument), "
                f"got {len(op.operands)}"
            )
    else:
        raise ValueError(f"requires {SEGMENTS} (it has optional or list tensor arguments)")
    if sum(segments) != len(op.operands):
        raise ValueError(
            f"{SEGMENTS} sums to {sum(segments)} but the op has {len(op.operands)} operands"
        )
    return segments


def op_arguments(op: ir.Operation, opdef: OpDef | None = None) -> dict:
    """Schema argument name -> value: `ir.Value`s for operands (lists for lists, `None` at absent
    positions of a `Tensor?[]`), decoded Python values for attributes, None for absent optionals."""
    opdef = opdef or require_op_def(op.name)
    segments = operand_segments(op, opdef)
    operands = list(op.operands)
    values, start = {}, 0
    for a, n in zip(opdef.args, segments):
        group, start = operands[start : start + n], start + n
        attr = op.attributes[a.name] if a.name in op.attributes else None
        values[a.name] = _arg_value(a, group, attr)
    return values


def _arg_value(a: ArgDef, group: list, attr):
    if a.kind is ArgKind.TENSOR:
        if group:
            return group[0]
        return decode_attr(a.kind, attr) if attr is not None else None
    if a.kind is ArgKind.TENSOR_LIST:
        return group
    if a.kind is ArgKind.OPT_TENSOR_LIST:
        present, it = decode_attr(a.kind, attr), iter(group)
        return [next(it) if p else None for p in present]
    if group:
        return group if a.kind is ArgKind.INT_LIST else group[0]
    return decode_attr(a.kind, attr) if attr is not None else None


def result_segments(op: ir.Operation, opdef: OpDef) -> list[int]:
    """Results per schema return: 1 each, all of them for a lone `Tensor[]`, or as the op's
    `resultSegmentSizes` says when a `Tensor[]` stands among others."""
    n = len(op.results)
    if opdef.has_result_segments:
        if RESULT_SEGMENTS not in op.attributes:
            raise ValueError(f"requires {RESULT_SEGMENTS} (it returns a Tensor[] among others)")
        segments = list(ir.DenseI32ArrayAttr(op.attributes[RESULT_SEGMENTS]))
        if len(segments) != len(opdef.results) or sum(segments) != n:
            raise ValueError(f"{RESULT_SEGMENTS} {segments} does not fit {n} results")
        return segments
    if [r.kind for r in opdef.results] == [ResultKind.TENSOR_LIST]:
        return [n]
    return [1] * n


def result_types_ok(opdef: OpDef, op: ir.Operation) -> str | None:
    """Why the result types of `op` cannot be the results of `opdef`, or None."""
    try:
        segments = result_segments(op, opdef)
    except ValueError as e:
        return str(e)
    types = [r.type for r in op.results]
    kinds = [
        ResultKind.TENSOR if r.kind is ResultKind.TENSOR_LIST else r.kind
        for r, n in zip(opdef.results, segments)
        for _ in range(n)
    ]
    if len(segments) != len(opdef.results) or len(kinds) != len(types):
        expected = ", ".join(r.kind.value for r in opdef.results) or "none"
        return f"expected results ({expected}), got {len(types)}"
    for i, (k, t) in enumerate(zip(kinds, types)):
        why = _result_type_error(k, t)
        if why:
            return f"result #{i}: {why}"
    return None


def _result_type_error(kind: ResultKind, t: ir.Type) -> str | None:
    if kind is ResultKind.TENSOR:
        if not isinstance(t, ir.RankedTensorType):
            return f"expected a ranked tensor, got {t}"
        return element_error(t.element_type)
    ok = {
        ResultKind.INT: isinstance(t, (ir.IntegerType, ir.IndexType)),
        ResultKind.FLOAT: isinstance(t, ir.FloatType),
        ResultKind.BOOL: isinstance(t, ir.IntegerType) and t.width == 1,
        ResultKind.SCALAR: isinstance(t, (ir.IntegerType, ir.IndexType, ir.FloatType)),
    }[kind]
    return None if ok else f"expected a {kind.value} scalar type, got {t}"


def element_error(t: ir.Type) -> str | None:
    from .dtypes import UnsupportedDtypeError, dtype_of

    try:
        dtype_of(t)
    except UnsupportedDtypeError as e:
        return str(e)
    return None


__all__ = [
    "SEGMENTS",
    "AtenBuildError",
    "aten",
    "build_aten",
    "build_op",
    "element_type",
    "infer_result_types",
    "op_arguments",
    "operand_segments",
    "require_op_def",
    "result_types_ok",
]

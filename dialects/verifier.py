"""The `aten` dialect verifier: checks every `aten.*` op against its schema-derived definition.

The ops are unregistered (generic) MLIR operations, so MLIR's own verifier knows nothing of them;
this one runs after import and after every aten-level pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .attrs import check_attr
from .opaque import OPAQUE_CALL, OpaqueOverloadError, opaque_op_def, opaque_overload
from .opdefs import ArgDef, ArgKind, OpDef, get_op_def, is_dialect_op
from .ops import (
    RESULT_SEGMENTS,
    SEGMENTS,
    AtenBuildError,
    element_error,
    infer_result_types,
    op_arguments,
    operand_segments,
    result_types_ok,
)


@dataclass
class AtenDiagnostic:
    op: ir.Operation
    message: str

    @property
    def location(self) -> ir.Location:
        return self.op.location

    def __str__(self) -> str:
        from .locations import describe_location

        return f"{describe_location(self.location)}: '{self.op.name}' op {self.message}"


class AtenVerificationError(ValueError):
    """Raised by `verify_module`; the first line names op, problem and source location."""

    def __init__(self, diagnostics: list[AtenDiagnostic]):
        self.diagnostics = diagnostics
        lines = [str(d) for d in diagnostics]
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        super().__init__(f"aten verifier: {lines[0]}{more}\n" + "\n".join(lines[1:]))


_SYMBOLIC_OPERAND = {
    ArgKind.INT: lambda t: isinstance(t, (ir.IndexType, ir.IntegerType)),
    ArgKind.INT_LIST: lambda t: isinstance(t, (ir.IndexType, ir.IntegerType)),
    ArgKind.FLOAT: lambda t: isinstance(t, ir.FloatType),
    ArgKind.BOOL: lambda t: isinstance(t, ir.IntegerType) and t.width == 1,
    ArgKind.SCALAR: lambda t: isinstance(t, (ir.IndexType, ir.IntegerType, ir.FloatType)),
}


def _check_tensor_group(a: ArgDef, group: list[ir.Value], attrs) -> str | None:
    if a.kind is ArgKind.TENSOR and a.name in attrs:
        if group:
            return f"argument '{a.name}' is given both as operand and as attribute"
        why = check_attr(a.kind, attrs[a.name])  # a wrapped number
        return f"attribute '{a.name}': {why}" if why else None
    for v in group:
        if a.kind is ArgKind.TENSOR and _SYMBOLIC_OPERAND[ArgKind.SCALAR](v.type):
            continue  # a runtime wrapped number (`mul.Tensor(x, sym_size)`)
        if not isinstance(v.type, ir.RankedTensorType):
            return f"argument '{a.name}' expects tensors, got {v.type}"
        why = element_error(v.type.element_type)
        if why:
            return f"argument '{a.name}': {why}"
    if a.kind is ArgKind.TENSOR and len(group) != 1 and not (a.optional and not group):
        at_most = "at most " if a.optional else ""
        return f"argument '{a.name}' takes {at_most}one tensor, got {len(group)}"
    if a.kind is ArgKind.OPT_TENSOR_LIST:
        if a.name not in attrs:
            return f"argument '{a.name}' (Tensor?[]) needs its presence mask attribute"
        why = check_attr(a.kind, attrs[a.name])
        if why:
            return f"attribute '{a.name}': {why}"
        if sum(ir.DenseBoolArrayAttr(attrs[a.name])) != len(group):
            return f"argument '{a.name}': presence mask does not match {len(group)} operands"
    return None


def _check_arg(a: ArgDef, group: list[ir.Value], attrs) -> str | None:
    if a.kind.is_tensor:
        return _check_tensor_group(a, group, attrs)
    if group:
        accepts = _SYMBOLIC_OPERAND.get(a.kind)
        if accepts is None:
            return f"argument '{a.name}' ({a.kind.value}) cannot be an operand"
        if a.kind is not ArgKind.INT_LIST and len(group) != 1:
            return f"argument '{a.name}' takes one runtime value, got {len(group)}"
        bad = [str(v.type) for v in group if not accepts(v.type)]
        if bad:
            return f"argument '{a.name}' ({a.kind.value}) cannot be a value of type {bad[0]}"
        if a.name in attrs:
            return f"argument '{a.name}' is given both as operand and as attribute"
        return None
    if a.name not in attrs:
        return None if a.optional else f"requires attribute '{a.name}' ({a.kind.value})"
    why = check_attr(a.kind, attrs[a.name])
    return f"attribute '{a.name}': {why}" if why else None


def verify_op(op: ir.Operation, opdef: OpDef | None = None) -> list[str]:
    """Problems with one `aten.*` op (empty when it is well formed)."""
    if op.name == OPAQUE_CALL and opdef is None:
        try:
            opdef = opaque_op_def(opaque_overload(op))
        except OpaqueOverloadError as e:
            return [str(e)]
    opdef = opdef or get_op_def(op.name)
    if opdef is None:
        return ["is not an op of the aten dialect (no such ATen schema)"]
    if opdef.inexpressible:
        return [f"cannot be expressed in the aten dialect: {opdef.inexpressible}"]
    try:
        segments = operand_segments(op, opdef)
    except ValueError as e:
        return [str(e)]
    attrs = {name: op.attributes[name] for name in op.attributes}
    problems, start = [], 0
    for a, n in zip(opdef.args, segments):
        why = _check_arg(a, list(op.operands)[start : start + n], attrs)
        start += n
        if why:
            problems.append(why)
    known = {a.name for a in opdef.args} | {SEGMENTS, RESULT_SEGMENTS}
    # Dialect-prefixed (discardable) attributes may ride along; bare unknown names are typos.
    unknown = sorted(n for n in attrs if n not in known and "." not in n)
    if unknown:
        problems.append(f"has unknown attributes {unknown} (schema: {opdef.schema})")
    why = result_types_ok(opdef, op)
    if why:
        problems.append(why)
    # an opaque call's result types are its node's example values: its fake kernel is user code
    elif not problems and op.name != OPAQUE_CALL:
        why = inferred_type_mismatch(op, opdef)
        if why:
            problems.append(why)
    return problems


# (op name, attributes, operand types, result types) -> the mismatch, or None: a model's
# layers repeat the same ops, and running an overload on meta tensors costs ~50 us.
_INFERRED: dict[tuple, str | None] = {}


def inferred_type_mismatch(op: ir.Operation, opdef: OpDef) -> str | None:
    """Why the declared result types contradict those the overload computes on meta tensors
    (rank, element type, or a static size), or None. Where inference cannot run (a size or a
    wrapped number known only at run time, a data-dependent result) only the declared kinds
    are checked; a `?` on either side matches any size."""
    declared = [r.type for r in op.results]
    key = (
        op.name,
        tuple((n, str(op.attributes[n])) for n in op.attributes),
        tuple(str(v.type) for v in op.operands),
        tuple(str(t) for t in declared),
    )
    if key not in _INFERRED:
        if len(_INFERRED) > 100_000:  # a long-lived process compiling many programs
            _INFERRED.clear()
        _INFERRED[key] = _mismatch(op, opdef, declared)
    return _INFERRED[key]


def _mismatch(op: ir.Operation, opdef: OpDef, declared: list[ir.Type]) -> str | None:
    if any(not isinstance(v.type, ir.RankedTensorType) for v in op.operands):
        return None  # a runtime scalar: meta tensors cannot stand for it
    why = _compare(op, opdef, declared, fake=False)
    # an op's meta kernel may disagree with the CPU kernel export traced: ask fake tensors
    return why and _compare(op, opdef, declared, fake=True)


def _compare(op: ir.Operation, opdef: OpDef, declared: list[ir.Type], fake: bool) -> str | None:
    try:
        with op.context, op.location:
            inferred = infer_result_types(opdef, op_arguments(op, opdef), fake=fake)
    except AtenBuildError as e:
        return _rejected(op, fake, e)
    except Exception:  # noqa: BLE001  (a type torch infers that MLIR cannot spell: no claim)
        return None
    flat = [t for r in inferred for t in (r if isinstance(r, list) else [r])]
    if len(flat) != len(declared):
        return None  # a Tensor[] whose length the stand-in sizes changed
    for i, (want, got) in enumerate(zip(flat, declared)):
        if not isinstance(got, ir.RankedTensorType):
            continue  # a scalar result: its kind is checked by result_types_ok
        if (
            want.rank != got.rank
            or want.element_type != got.element_type
            or any(
                not want.is_dynamic_dim(d)
                and not got.is_dynamic_dim(d)
                and want.get_dim_size(d) != got.get_dim_size(d)
                for d in range(want.rank)
            )
        ):
            return f"result #{i} has type {got}, but the operands give {want}"
    return None


def _rejected(op: ir.Operation, fake: bool, error: AtenBuildError) -> str | None:
    """The overload's own complaint about operands of static shape (`add` of 2x3 and 4x5), as
    fake tensors raise it. With a `?` dim the stand-in sizes may not fit where the real ones do,
    and an op without a meta kernel or with a data-dependent result says nothing about the IR."""
    cause = error.__cause__ or error.__context__
    if not fake or not all(v.type.has_static_shape for v in op.operands):
        return None if fake else "operands do not fit"  # ask fake tensors
    if (
        cause is None
        or isinstance(cause, NotImplementedError)
        or type(cause).__module__.startswith("torch._subclasses")
    ):
        return None
    return f"operands do not fit the schema: {_first_line(cause)}"


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def verify_aten_ops(root: ir.Operation) -> list[AtenDiagnostic]:
    """Verifies every `aten.*` op nested in `root`."""
    found: list[AtenDiagnostic] = []

    def visit(op):
        op = op.operation
        if is_dialect_op(op.name):
            found.extend(AtenDiagnostic(op, p) for p in verify_op(op))
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def verify_module(module) -> None:
    """Runs MLIR's verifier, then the aten verifier; raises `AtenVerificationError` on problems."""
    op = module.operation
    try:
        op.verify()
    except ir.MLIRError as e:
        raise AtenVerificationError([AtenDiagnostic(op, str(e))]) from None
    found = verify_aten_ops(op)
    if found:
        raise AtenVerificationError(found)

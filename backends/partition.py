"""Splitting `@main` after aten-to-linalg into compiled segments and eager fallback steps.

Ops the lowering left (aten ops, and the `aten.opaque_call`s of ops from other namespaces, such
as a user's `torch.library` ops: dialects/opaque.py) run with their eager kernel; every maximal
run of other ops between them becomes one `func.func @segment<k>`. Values crossing a boundary
are tensors; scalars (constants, sizes) are recomputed where they are used: pure scalar ops are
cloned into each segment that needs them, and the runtime evaluates the ones an eager op needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, func, tensor

from aten_mlir.dialects import describe_location
from aten_mlir.passes.ir import has_storage_type, storage_type

CAST = "builtin.unrealized_conversion_cast"


class PartitionError(ValueError):
    """A value of a kind the native ABI cannot carry would cross a segment boundary."""


@dataclass
class Step:
    kind: str  # "native" (a segment function), "eager" (an aten op), "cast" (bool <-> i8 view)
    inputs: list[ir.Value]
    outputs: list[ir.Value]
    op: ir.Operation | None = None  # the aten op or cast (eager / cast steps)
    function: str = ""  # native steps: the segment's function name
    ops: list[ir.Operation] = field(default_factory=list)


def _is_tensor(v: ir.Value) -> bool:
    return isinstance(v.type, ir.RankedTensorType)


def _is_pure_scalar_op(op: ir.Operation) -> bool:
    return op.name.startswith("arith.") or op.name in ("tensor.dim",)


def plan_steps(block: ir.Block) -> list[Step]:
    """The steps of `block` in order (before outlining)."""
    steps: list[Step] = []
    current: list[ir.Operation] = []
    for op in block.operations:
        op = op.operation
        if op.name == "func.return":
            break
        if op.name.startswith("aten.") or op.name == CAST:
            if current:
                steps.append(Step("native", [], [], ops=current))
                current = []
            kind = "cast" if op.name == CAST else "eager"
            steps.append(Step(kind, list(op.operands), list(op.results), op=op))
        elif _is_pure_scalar_op(op) and not any(_is_tensor(r) for r in op.results):
            continue  # recomputed where it is used
        else:
            current.append(op)
    if current:
        steps.append(Step("native", [], [], ops=current))
    return steps


SEGMENT_TAG = "aten.segment"


def _segment_of(op: ir.Operation) -> int | None:
    """The segment tag of the top-level op of `@main` that holds `op` (or is it)."""
    while op is not None:
        if SEGMENT_TAG in op.attributes:
            return ir.IntegerAttr(op.attributes[SEGMENT_TAG]).value
        parent = op.parent
        op = parent.operation if parent is not None else None
        if op is not None and op.name == "func.func":
            return None
    return None


def _tagged(op, segment: int) -> bool:
    attrs = op.operation.attributes
    return SEGMENT_TAG in attrs and ir.IntegerAttr(attrs[SEGMENT_TAG]).value == segment


def _inside(op: ir.Operation, segment: int) -> bool:
    return _segment_of(op) == segment


def outline(module: ir.Module, main: ir.Operation) -> list[Step]:
    """Outlines every native run of `main` into `@segment<k>`; returns the steps. `main` is
    left holding the calls, eager ops, casts and scalar ops (it is not compiled)."""
    steps = plan_steps(main.regions[0].blocks[0])
    native = [s for s in steps if s.kind == "native"]
    for k, s in enumerate(native):
        tag = ir.IntegerAttr.get(ir.IntegerType.get_signless(64, context=module.context), k)
        for op in s.ops:
            op.attributes[SEGMENT_TAG] = tag
        _pull_scalars(s, k)
        for op in s.ops:
            op.attributes[SEGMENT_TAG] = tag
        s.ops = [o.operation for o in main.regions[0].blocks[0].operations if _tagged(o, k)]
        s.inputs, s.outputs = _interface(s, k)
        s.function = f"segment{k}"
        for op in s.ops:
            del op.attributes[SEGMENT_TAG]
        _make_function(module, s)
    _erase_dead_scalars(main.regions[0].blocks[0])
    return steps


def _erase_dead_scalars(block: ir.Block) -> None:
    """Drops the scalar glue `@main` no longer reads (segments hold their own copies), so the
    runtime does not evaluate it on every call."""
    for op in reversed(list(block.operations)):
        op = op.operation
        removable = _is_pure_scalar_op(op) or op.name in ("tensor.extract", "tensor.from_elements")
        if removable and all(not list(r.uses) for r in op.results):
            op.erase()


def _interface(s: Step, segment: int) -> tuple[list[ir.Value], list[ir.Value]]:
    """The values segment `s` reads from outside (tensors only) and those it must return."""
    inputs: list[ir.Value] = []

    def collect(nested):
        for v in nested.operands:
            if not _defined_inside(v, segment) and v not in inputs:
                if not _is_tensor(v) and not _is_scalar(v.type):
                    raise PartitionError(f"value {v} of type {v.type} enters a segment")
                inputs.append(v)

    outputs = []
    for op in s.ops:
        _each_nested(op, collect)
        outputs.extend(r for r in op.results if _used_outside(r, segment))
    for r in outputs:
        if not _is_tensor(r) and not _is_scalar(r.type):
            raise PartitionError(f"value {r} of type {r.type} leaves a segment")
    return inputs, outputs


def _is_scalar(t: ir.Type) -> bool:
    """A scalar that crosses a segment boundary boxed in a 0-d tensor: any int or float (an
    f16 element read out of a 1-element source, as scatter_add's, is one)."""
    return isinstance(
        t, (ir.IndexType, ir.IntegerType, ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)
    )


def _boxed(v: ir.Value) -> ir.Value:
    """A scalar as the 0-d tensor that carries it into a segment (an index travels as i64)."""
    if isinstance(v.type, ir.IndexType):
        v = arith.index_cast(ir.IntegerType.get_signless(64), v)
    return tensor.from_elements(ir.RankedTensorType.get([], v.type), [v])


def _is_bool_tensor(v: ir.Value) -> bool:
    """Bool and unsigned tensors: they cross segment boundaries as signless storage."""
    return has_storage_type(v.type)


def _stored_bool(v: ir.Value) -> ir.Value:
    """A bool (unsigned) tensor entering a segment travels as its i8 (signless) storage: a
    runtime view of the same bytes."""
    return ir.Operation.create(CAST, results=[storage_type(v.type)], operands=[v]).result


def _use_bool_storage(v: ir.Value, stored: ir.Value, function: str) -> None:
    """Inside the segment, the bool value's users are casts to storage or size reads: both
    take the i8 argument directly."""
    for use in list(v.uses):
        owner = use.owner.operation
        if _function_of(owner) != function:
            continue
        if owner.name == CAST and owner.results[0].type == stored.type:
            owner.results[0].replace_all_uses_with(stored)
        elif owner.name == "tensor.dim":
            owner.operands[use.operand_number] = stored
        else:
            raise PartitionError(f"bool/unsigned tensor {v} is read by {owner.name} in a segment")


def _boxed_type(v: ir.Value) -> ir.Type:
    if _is_tensor(v):
        return v.type
    t = ir.IntegerType.get_signless(64) if isinstance(v.type, ir.IndexType) else v.type
    return ir.RankedTensorType.get([], t)


def _unboxed(box: ir.Value, t: ir.Type) -> ir.Value:
    v = tensor.extract(box, [])
    return arith.index_cast(t, v) if isinstance(t, ir.IndexType) else v


def _each_nested(op: ir.Operation, fn) -> None:
    """Calls `fn` on `op` and every op nested in it. The op objects a walk hands out must not
    outlive its callback (the bindings invalidate them), so `fn` does its work there."""

    def visit(o):
        fn(o.operation)
        return ir.WalkResult.ADVANCE

    op.walk(visit)


def _owner_op(v: ir.Value):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation


def _defined_inside(v: ir.Value, members: int) -> bool:
    owner = v.owner
    if isinstance(owner, ir.Block):
        return _inside(owner.owner.operation, members)
    return _inside(owner.operation, members)


def _used_outside(r: ir.Value, members: int) -> bool:
    return any(not _inside(u.owner.operation, members) for u in r.uses)


def _pull_scalars(s: Step, segment: int) -> None:
    """Clones the pure scalar ops a segment reads (constants, sizes) into it, in order."""
    needed: list[ir.Operation] = []

    def need(v):
        owner = _owner_op(v)
        if owner is None or _is_tensor(v) or owner in needed or not _is_pure_scalar_op(owner):
            return
        if _inside(owner, segment):
            return
        for o in owner.operands:
            need(o)
        needed.append(owner)

    for op in list(s.ops):
        _each_nested(op, lambda nested: [need(v) for v in nested.operands])
    mapping: dict = {}
    clones = [_clone_remapped(owner, s.ops[0], mapping) for owner in needed]

    def remap(nested):
        for i, v in enumerate(nested.operands):
            if v in mapping:
                nested.operands[i] = mapping[v]

    for op in s.ops:
        _each_nested(op, remap)
    s.ops[:0] = clones


def _clone_remapped(owner: ir.Operation, before: ir.Operation, mapping: dict) -> ir.Operation:
    """A clone of `owner` before `before`, reading earlier clones; records its results."""
    clone = owner.clone(ir.InsertionPoint(before)).operation
    last = None  # the latest op of the block the clone reads: it must come after it
    for i, v in enumerate(clone.operands):
        if v in mapping:
            clone.operands[i] = v = mapping[v]
        dep = _owner_op(v)
        if dep is not None and dep.block == clone.block and clone.is_before_in_block(dep):
            if last is None or last.is_before_in_block(dep):
                last = dep
    if last is not None:
        clone.move_after(last)
    mapping.update(zip(owner.results, clone.results))
    return clone


def _function_of(op: ir.Operation) -> str | None:
    """The name of the `func.func` around `op`."""
    while op is not None and op.name != "func.func":
        parent = op.parent
        op = parent.operation if parent is not None else None
    return ir.StringAttr(op.attributes["sym_name"]).value if op is not None else None


def _make_function(module: ir.Module, s: Step) -> None:
    """Creates `@<s.function>` from the step's ops and leaves a `func.call` to it in their
    place, so `@main` stays a valid program: calls, eager ops, casts and scalar glue."""
    first = s.ops[0]
    caller = _function_of(first)
    # Scalars cross the boundary boxed in 0-d tensors (the native ABI passes memrefs only).
    with first.location, ir.InsertionPoint(first):
        operands = [_stored_bool(v) if _is_bool_tensor(v) else v for v in s.inputs]
        operands = [v if _is_tensor(v) else _boxed(v) for v in operands]
        call = func.CallOp([_boxed_type(v) for v in s.outputs], s.function, operands)
        outside = [
            r if _is_tensor(v) else _unboxed(r, v.type) for v, r in zip(s.outputs, call.results)
        ]
    with first.location, ir.InsertionPoint(module.body):
        ftype = ir.FunctionType.get([v.type for v in operands], [r.type for r in call.results])
        fn = func.FuncOp(s.function, ftype)
        # A segment's arguments are the caller's tensors (user inputs, weights, values other
        # steps still read): one-shot-bufferize writes into a writable argument in place (a
        # functional scatter over a user input), so none is.
        readonly = ir.DictAttr.get({"bufferization.writable": ir.BoolAttr.get(False)})
        fn.operation.attributes["arg_attrs"] = ir.ArrayAttr.get([readonly] * len(operands))
        entry = fn.add_entry_block()
    with first.location, ir.InsertionPoint(entry):
        inside = [
            arg if _is_tensor(v) else _unboxed(arg, v.type)
            for v, arg in zip(s.inputs, entry.arguments)
        ]
        ret = func.ReturnOp([])
    for op in s.ops:
        op.move_before(ret.operation)
    with first.location, ir.InsertionPoint(ret):
        func.ReturnOp([v if _is_tensor(v) else _boxed(v) for v in s.outputs])
    ret.operation.erase()
    for old, new in zip(s.outputs, outside):
        _replace_uses_in(old, new, caller)
    for v, new in zip(s.inputs, inside):
        if _is_bool_tensor(v):
            _use_bool_storage(v, new, s.function)
        else:
            _replace_uses_in(v, new, s.function)
    s.op, s.inputs, s.outputs, s.ops = call.operation, list(call.operands), list(call.results), []


def _replace_uses_in(old: ir.Value, new: ir.Value, function: str) -> None:
    """Replaces the uses of `old` inside `@function` (nested regions included) with `new`."""
    for use in list(old.uses):
        owner = use.owner.operation
        if _function_of(owner) == function:
            owner.operands[use.operand_number] = new


def describe_op(op: ir.Operation) -> str:
    return f"{op.name} at {describe_location(op.location)}"

"""`aten.opaque_call`: an op of a namespace the dialect does not express, carried whole.

A user's `torch.library` op (`mylib::foo`) or a torch-internal op outside aten/prims
(`torch_nn::_linear_cross_entropy_batch_chunked`) has no lowering and no decomposition, but its
schema says how its arguments are carried and its node's FakeTensor values say what it returns.
It becomes one `aten.opaque_call` whose `aten.overload` attribute names the overload
(`mylib::foo.default`), its arguments laid out by that overload's schema exactly as an aten op's
are (`ops.py`: tensors as operands, the rest as attributes named after the schema arguments), so
the eager fallback runs it as it runs any aten op that has no lowering.

No pass matches it (no decomposition or lowering is keyed by its name), and MLIR treats the
unregistered op as having unknown side effects, so nothing erases, reorders or merges it.

The name is user data (a `torch.library.Library` namespace may hold quotes): it is only ever
looked up attribute by attribute on `torch.ops` and checked to name the overload it resolves to
(`resolve_overload`), never evaluated or written into generated code.
"""

from __future__ import annotations

import functools

import torch
from mlir import ir

from .opdefs import OpDef, _op_def_from_schema

OPAQUE_CALL = "aten.opaque_call"
OVERLOAD_ATTR = "aten.overload"


class OpaqueOverloadError(LookupError):
    """An `aten.overload` that does not name a registered overload."""


def overload_name(overload: torch._ops.OpOverload) -> str:
    """`mylib::foo.default`: the schema's qualified name and the overload's name."""
    return f"{overload._schema.name}.{overload._overloadname}"


def resolve_overload(name: str) -> torch._ops.OpOverload:
    """The `torch.ops` overload `name` (`mylib::foo.default`) names, looked up one attribute at a
    time (each checked to be what `torch.ops` should hold there), then checked to carry exactly
    that name; raises `OpaqueOverloadError` otherwise."""
    namespace, _, rest = name.partition("::")
    op, _, overload = rest.partition(".")
    try:
        space = getattr(torch.ops, namespace)
        packet = getattr(space, op) if isinstance(space, torch._ops._OpNamespace) else None
        found = (
            getattr(packet, overload) if isinstance(packet, torch._ops.OpOverloadPacket) else None
        )
    except Exception:  # noqa: BLE001 - whatever a failed lookup raises, it names no overload
        found = None
    if not isinstance(found, torch._ops.OpOverload) or overload_name(found) != name:
        raise OpaqueOverloadError(f"'{name}' is not a registered operator overload")
    return found


@functools.lru_cache(maxsize=1024)
def opaque_op_def(overload: torch._ops.OpOverload) -> OpDef:
    """The overload's schema as an `OpDef` (how its arguments and results are carried); its
    `inexpressible` says why it cannot be, as for an aten op."""
    opdef = _op_def_from_schema(overload._schema)
    opdef._overload.append(overload)  # resolved here: its name may not be a Python identifier
    return opdef


def opaque_overload(op: ir.Operation) -> torch._ops.OpOverload:
    """The overload an `aten.opaque_call` runs; raises `OpaqueOverloadError`."""
    if OVERLOAD_ATTR not in op.attributes:
        raise OpaqueOverloadError(f"requires a string attribute '{OVERLOAD_ATTR}'")
    attr = op.attributes[OVERLOAD_ATTR]
    if not isinstance(attr, ir.StringAttr):
        raise OpaqueOverloadError(f"'{OVERLOAD_ATTR}' must be a string, got {attr}")
    return resolve_overload(ir.StringAttr(attr).value)


def op_def_of(op: ir.Operation) -> OpDef | None:
    """The definition of `op`: its schema's for an aten op, its overload's for an opaque call
    (None when it names none)."""
    from .opdefs import get_op_def

    if op.name != OPAQUE_CALL:
        return get_op_def(op.name)
    try:
        return opaque_op_def(opaque_overload(op))
    except OpaqueOverloadError:
        return None


def display_name(op: ir.Operation) -> str:
    """What a fallback is called in reports: the overload an opaque call runs, else the op."""
    if op.name == OPAQUE_CALL and OVERLOAD_ATTR in op.attributes:
        attr = op.attributes[OVERLOAD_ATTR]
        if isinstance(attr, ir.StringAttr):
            return ir.StringAttr(attr).value
    return op.name


def build_opaque_call(
    overload: torch._ops.OpOverload, args, kwargs: dict, *, results, loc=None, ip=None
) -> ir.Operation:
    """An `aten.opaque_call` of `overload` with arguments bound like a torch call (as
    `build_aten`'s); `results` are the types its node's example values give. Raises
    `AtenBuildError` where the schema or an argument cannot be carried."""
    from .ops import AtenBuildError, build_op

    opdef = opaque_op_def(overload)
    if opdef.inexpressible:
        raise AtenBuildError(f"cannot be carried: {opdef.inexpressible}")
    name = ir.StringAttr.get(overload_name(overload))
    return build_op(
        opdef,
        OPAQUE_CALL,
        args,
        kwargs,
        results=results,
        loc=loc,
        ip=ip,
        attributes={OVERLOAD_ATTR: name},
    )

"""`aten-as-strided-storage`: `as_strided` of a view reads the storage of the view's base.

In eager, `x.permute(1, 0).as_strided(size, stride, offset)` indexes *x's storage* (strides and
offset are in storage elements; a missing offset is the view's own), while in the aten IR every
value is a fresh contiguous tensor, so the lowering of `as_strided` indexes its operand's
logical order: right for a contiguous base, wrong after a permute, slice, select, diagonal,
expand, a channels_last copy... This pass, run on the imported program before `aten-decompose`
(which turns views like `unfold` into gathers and drops memory formats), rewrites each
`as_strided` to read its base directly.

How: the chain of view ops (the schema's aliasing result, `Tensor(a) -> Tensor(a)`) from the
`as_strided` up to its base is replayed in eager on a tensor laid out as the base is (contiguous,
or the memory format a `clone`/`_to_copy`/`contiguous` gave it) whose values are its storage
positions; a view that copies in eager (`reshape` of a permute) ends the chain there. The replay
gives the offset eager uses and raises where eager raises (a view running out of its storage).
The `as_strided` then reads the base, or the base permuted into storage order and copied. Needs
static shapes along a chain with views; a dynamic one is an error, not a wrong answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from mlir import ir

from aten_mlir.dialects import build_aten, describe_location, get_op_def, op_arguments

from ..registry import ModulePass, PassFailure, register_pass

_LAYOUT_OPS = ("aten.clone", "aten._to_copy", "aten.contiguous")


def _is_view(op: ir.Operation) -> bool:
    opdef = get_op_def(op.name)
    if opdef is None or opdef.inexpressible:
        return False
    schema = opdef.overload._schema
    if len(schema.returns) != 1 or not schema.arguments:
        return False
    first, ret = schema.arguments[0].alias_info, schema.returns[0].alias_info
    return first is not None and ret is not None and not first.is_write and not ret.is_write


# Views of a contiguous tensor that are contiguous with offset 0 (flat order = storage order).
_ORDER_KEEPING = {
    "aten.alias",
    "aten.detach",
    "aten.view",
    "aten.reshape",
    "aten._unsafe_view",
    "aten.flatten.using_ints",
    "aten.unflatten.int",
    "aten.squeeze",
    "aten.squeeze.dim",
    "aten.squeeze.dims",
    "aten.unsqueeze",
}


def _keeps_storage_order(op: ir.Operation) -> bool:
    if op.name == "aten.contiguous":
        return op_arguments(op).get("memory_format") in (None, torch.contiguous_format)
    return op.name in _ORDER_KEEPING


def _layout_op(base: ir.Value):
    """The op that gave `base` a memory format other than contiguous, if any."""
    op = _producer(base)
    if op is None or op.name not in _LAYOUT_OPS:
        return None
    fmt = op_arguments(op).get("memory_format")
    if not isinstance(fmt, torch.memory_format) or fmt in (
        torch.contiguous_format,
        torch.preserve_format,  # preserve_format: see the module docstring
    ):
        return None
    return fmt


def _producer(v: ir.Value) -> ir.Operation | None:
    return None if isinstance(v.owner, ir.Block) else v.owner.operation


def _static_shape(v: ir.Value) -> list[int] | None:
    t = ir.RankedTensorType(v.type)
    if any(t.is_dynamic_dim(d) for d in range(t.rank)):
        return None
    return list(t.shape)


def _chain(v: ir.Value) -> tuple[ir.Value, list[ir.Operation]]:
    """The base value and the view ops from it down to `v` (in program order)."""
    views = []
    while (op := _producer(v)) is not None and _is_view(op):
        views.append(op)
        v = op.operands[0]
    return v, views[::-1]


def _eager_args(op: ir.Operation, x: torch.Tensor) -> tuple[list, dict] | None:
    """The op's schema arguments with the traced tensor as the first; None if any other
    argument is a runtime value (a symbolic size)."""
    args = op_arguments(op)
    names = list(args)
    kwargs = {names[0]: x}
    for name in names[1:]:
        value = args[name]
        flat = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(a, ir.Value) for a in flat):
            return None
        kwargs[name] = value
    return [], kwargs


class _Unsupported(Exception):
    pass


def _layout_of(base: ir.Value, shape: list[int]) -> torch.Tensor:
    """A tensor of `base`'s shape laid out as eager lays it out, holding storage positions."""
    positions = torch.arange(max(1, int(torch.Size(shape).numel())))
    contiguous = torch.as_strided(positions, shape, torch.empty(shape, device="meta").stride())
    fmt = _layout_op(base)
    if fmt is None:
        return contiguous
    strides = torch.empty(shape, device="meta", memory_format=fmt).stride()
    return torch.as_strided(positions, shape, strides)


def _replay(base: ir.Value, views: list[ir.Operation]):
    """(base, the views left after the last copy, the eager tensor the as_strided reads, the
    base as eager lays it out)."""
    shape = _static_shape(base)
    if shape is None:
        raise _Unsupported(f"the base has a dynamic shape {base.type}")
    traced, kept = _layout_of(base, shape), []
    layout = traced
    for op in views:
        call = _eager_args(op, traced)
        if call is None or _static_shape(op.results[0]) is None:
            raise _Unsupported(f"'{op.name}' has symbolic sizes")
        try:
            out = get_op_def(op.name).overload(*call[0], **call[1])
        except Exception as e:  # noqa: BLE001  (eager rejects the view: say so, located)
            raise _Unsupported(f"'{op.name}' fails in eager: {str(e).splitlines()[0]}") from e
        if out.untyped_storage().data_ptr() != traced.untyped_storage().data_ptr():
            # eager copied here (a reshape that is no view, a `to` or `contiguous` into another
            # memory format): a fresh base, laid out as eager laid out the copy
            base, kept = op.results[0], []
            positions = torch.arange(max(1, out.numel()))
            out = torch.as_strided(positions, out.shape, out.stride())
            layout = out
        else:
            kept.append(op)
        traced = out
    return base, kept, traced, layout


def _storage_order(rewriter_ip, base: ir.Value, traced_base: torch.Tensor) -> ir.Value:
    """`base` as a contiguous tensor in its storage order (itself when contiguous)."""
    strides = traced_base.stride()
    if traced_base.is_contiguous():
        return base
    perm = sorted(range(len(strides)), key=lambda d: -strides[d])
    permuted = build_aten("aten.permute", base, perm, ip=rewriter_ip).results[0]
    return build_aten("aten.clone", permuted, ip=rewriter_ip).results[0]


STORAGE_READ_ATTR = "aten.reads_storage"


def _mark_storage_read(base: ir.Value) -> None:
    """Marks a function argument whose storage an as_strided reads: the runtime hands compiled
    code a contiguous copy of a non-contiguous input, whose storage is not the caller's, so it
    must check (or reject) such an input there."""
    if not isinstance(base.owner, ir.Block):
        return
    fn = base.owner.owner.operation
    if fn.name != "func.func":
        return
    count = len(base.owner.arguments)
    attrs = (
        [ir.DictAttr(d) for d in ir.ArrayAttr(fn.attributes["arg_attrs"])]
        if "arg_attrs" in fn.attributes
        else [ir.DictAttr.get({}) for _ in range(count)]
    )
    index = ir.BlockArgument(base).arg_number
    entries = {a.name: a.attr for a in attrs[index]}
    entries[STORAGE_READ_ATTR] = ir.UnitAttr.get()
    attrs[index] = ir.DictAttr.get(entries)
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)


def _rewrite(op: ir.Operation) -> bool:
    """Rewrites one as_strided; False when nothing changes."""
    a = op_arguments(op)
    x = a["self"]
    base, views = _chain(x)
    with op.location:  # read through its storage whether or not the op changes
        _mark_storage_read(base)
    # storage order is logical order: what the lowering computes, whatever the sizes
    order_kept = all(_keeps_storage_order(v) for v in views) and _layout_op(base) is None
    if any(isinstance(v, ir.Value) for v in [*a["size"], *a["stride"], a["storage_offset"]]):
        if order_kept:
            return False
        raise _Unsupported("symbolic sizes, strides or offset of an as_strided of a view")
    try:
        base, views, traced, layout = _replay(base, views)
    except _Unsupported:
        if order_kept:
            return False
        raise
    offset = a["storage_offset"]
    if offset is None:
        offset = traced.storage_offset()
    # eager's own checks (storage bounds, sizes) on the storage the base has
    torch.as_strided(traced, a["size"], a["stride"], offset)
    if not views and layout.is_contiguous() and a["storage_offset"] is not None:
        return False
    with op.location:
        ip = ir.InsertionPoint(op)
        source = _storage_order(ip, base, layout)
        new = build_aten(
            "aten.as_strided",
            source,
            list(a["size"]),
            list(a["stride"]),
            offset,
            results=[op.results[0].type],
            ip=ip,
        )
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()
    return True


@register_pass
@dataclass(frozen=True)
class AtenAsStridedStorage(ModulePass):
    """Makes every `as_strided` read the storage of its view chain's base, as eager does."""

    name: ClassVar[str] = "aten-as-strided-storage"

    def run(self, module_op: ir.Operation) -> None:
        found = []

        def visit(op):
            if op.operation.name == "aten.as_strided":
                found.append(op.operation)
            return ir.WalkResult.ADVANCE

        module_op.walk(visit)
        failures = []
        for op in found:
            try:
                _rewrite(op)
            except Exception as e:  # noqa: BLE001  (eager's own check, or a view replay fails)
                message = str(e).splitlines()[0]
                op.location.emit_error(f"'aten.as_strided' op on a view: {message}")
                failures.append((op, message))
        if failures:
            op, message = failures[0]
            raise PassFailure(
                f"{self.name}: {describe_location(op.location)}: 'aten.as_strided': {message}"
            )

"""An access through a chain of static views (reshapes, subviews) -> the same element's indices
in an underlying memref, as index arithmetic emitted at the access.

`triton-inline-producers` replaces a load of a producer's buffer by the producer's computation
at the load's indices; a reader often names the buffer through another view (a GQA
`repeat_kv` collapses (heads, 2) into heads, a rotary embedding reads half a row through a
subview), so its indices must be carried back to the producer's view first.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

_DYNAMIC = ir.ShapedType.get_dynamic_size()


def reaches(view: ir.Value, target: ir.Value) -> bool:
    """Whether `view` is `target` seen through views this module can invert."""
    while view != target:
        step = _step(view)
        if step is None:
            return False
        view = step[0]
    return True


def indices_in(view: ir.Value, indices: list, target: ir.Value, ip: ir.InsertionPoint) -> list:
    """`indices` into `view` as indices into `target` (`reaches(view, target)` must hold), with
    the arithmetic inserted at `ip`."""
    with ip, ir.Location.unknown():
        while view != target:
            source, mapping = _step(view)
            indices = mapping(indices)
            view = source
    return indices


def _step(view: ir.Value):
    """(the view's source, indices in the view -> indices in the source), or None."""
    if isinstance(view.owner, ir.Block):
        return None
    op = view.owner.operation
    if op.name == "memref.cast":
        return op.operands[0], lambda idx: idx
    if op.name in ("memref.expand_shape", "memref.collapse_shape"):
        expanded = op.results[0] if op.name == "memref.expand_shape" else op.operands[0]
        shape = ir.MemRefType(expanded.type).shape
        if _DYNAMIC in shape:
            return None
        groups = [[ir.IntegerAttr(d).value for d in g] for g in op.attributes["reassociation"]]
        if op.name == "memref.expand_shape":
            return op.operands[0], lambda idx: [_linearize(idx, g, shape) for g in groups]
        return op.operands[0], lambda idx: [
            x for i, g in enumerate(groups) for x in _delinearize(idx[i], g, shape)
        ]
    if op.name == "memref.subview":
        offsets = list(op.attributes["static_offsets"])
        strides = list(op.attributes["static_strides"])
        source_rank = ir.MemRefType(op.operands[0].type).rank
        if _DYNAMIC in offsets or _DYNAMIC in strides or source_rank != len(offsets):
            return None
        if ir.MemRefType(view.type).rank != source_rank:
            return None  # a rank-reducing subview
        return op.operands[0], lambda idx: [
            _add(_mul(i, s), o) for i, s, o in zip(idx, strides, offsets)
        ]
    return None


def _linearize(idx: list, group: list, shape: list) -> ir.Value:
    out, scale = None, 1
    for d in reversed(group):
        if shape[d] != 1:
            term = _mul(idx[d], scale)
            out = term if out is None else _add_values(out, term)
        scale *= shape[d]
    return out if out is not None else _const(0)


def _delinearize(i: ir.Value, group: list, shape: list) -> list:
    out, inner = [], 1
    for d in reversed(group):
        size = shape[d]
        if size == 1:
            out.append(_const(0))
        else:
            q = i if inner == 1 else arith.DivUIOp(i, _const(inner)).result
            out.append(q if d == group[0] else arith.RemUIOp(q, _const(size)).result)
        inner *= size
    return out[::-1]


def _const(v: int) -> ir.Value:
    index = ir.IndexType.get()
    return arith.ConstantOp(index, ir.IntegerAttr.get(index, v)).result


def _mul(i: ir.Value, k: int) -> ir.Value:
    return i if k == 1 else arith.MulIOp(i, _const(k)).result


def _add(i: ir.Value, k: int) -> ir.Value:
    return i if k == 0 else arith.AddIOp(i, _const(k)).result


def _add_values(a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.AddIOp(a, b).result

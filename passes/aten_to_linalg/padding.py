"""Padding: constant_pad_nd -> fill + insert_slice; reflection / replication pads -> a
`linalg.generic` gathering with index arithmetic on `linalg.index`."""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith

from .builder import tensor_type
from .registry import register_lowering
from .views_common import (
    body_value,
    cast_to,
    extract_slice,
    gather,
    insert_slice,
    iop,
    located,
)


def _pairs(pad, rank: int):
    """torch's pad list (last dim first, low/high pairs) as {dim: (low, high)}."""
    return {rank - 1 - k: (pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)}


@register_lowering("aten.constant_pad_nd")
@located
def lower_constant_pad_nd(op, rw):
    """aten.constant_pad_nd -> tensor.extract_slice (negative pads), linalg.fill,
    tensor.insert_slice"""
    x, result = rw.args["self"], rw.result_type()
    x_t = tensor_type(x)
    if isinstance(x_t.element_type, ir.ComplexType):
        return None
    pads = _pairs(rw.args["pad"], x_t.rank)
    sizes = rw.sizes(x)
    # Negative pads crop first: the kept window of x, then the positive pads around it.
    crop_off = [max(-pads.get(d, (0, 0))[0], 0) for d in range(x_t.rank)]
    crop = [
        iop(rw, "sub", iop(rw, "sub", s, crop_off[d]), max(-pads.get(d, (0, 0))[1], 0))
        for d, s in enumerate(sizes)
    ]
    if any(crop_off) or any(p[1] < 0 for p in pads.values()):
        window_t = ir.RankedTensorType.get(
            [c if isinstance(c, int) else ir.ShapedType.get_dynamic_size() for c in crop],
            x_t.element_type,
        )
        x = extract_slice(rw, x, crop_off, crop, [1] * x_t.rank, window_t)
    low = [max(pads.get(d, (0, 0))[0], 0) for d in range(x_t.rank)]
    high = [max(pads.get(d, (0, 0))[1], 0) for d in range(x_t.rank)]
    out = [iop(rw, "add", iop(rw, "add", c, lo), hi) for c, lo, hi in zip(crop, low, high)]
    value = rw.args["value"]
    value = 0 if value is None else value
    if not isinstance(result.element_type, ir.IntegerType | ir.IndexType):
        value = float(value)
    elif isinstance(value, float):
        value = int(value)  # ATen converts the fill value to the tensor's dtype
    if not any(low) and not any(high):
        return cast_to(rw, x, result)
    dest = rw.full(result, out, value)
    return insert_slice(rw, x, dest, low)


def _reflect(i, size):
    """Index into [0, size) of output index `i` (already shifted by the low pad): mirrored at
    both ends without repeating the edge element."""
    zero = body_value(0)
    i = arith.select(arith.cmpi(arith.CmpIPredicate.slt, i, zero), arith.subi(zero, i), i)
    last = arith.subi(size, body_value(1))
    over = arith.cmpi(arith.CmpIPredicate.sgt, i, last)
    return arith.select(over, arith.subi(arith.addi(last, last), i), i)


def _replicate(i, size):
    """Index into [0, size) of output index `i`: clamped to the edge elements."""
    return arith.minsi(arith.maxsi(i, body_value(0)), arith.subi(size, body_value(1)))


def lower_index_pad(index_fn, n, op, rw):
    x, result = rw.args["self"], rw.result_type()
    rank = tensor_type(x).rank
    pad = rw.args["padding"]
    if len(pad) != 2 * n:
        return None
    pads = _pairs(pad, rank)
    sizes = rw.sizes(x)
    out = [
        iop(rw, "add", iop(rw, "add", s, pads[d][0]), pads[d][1]) if d in pads else s
        for d, s in enumerate(sizes)
    ]

    def at(idx):
        src = []
        for d, i in enumerate(idx):
            if d not in pads:
                src.append(i)
                continue
            shifted = arith.subi(i, body_value(pads[d][0])) if pads[d][0] else i
            src.append(index_fn(shifted, body_value(sizes[d])))
        return src

    return gather(rw, x, result, out, at)


for _name, _index_fn, _n in (
    ("aten.reflection_pad1d", _reflect, 1),
    ("aten.reflection_pad2d", _reflect, 2),
    ("aten.reflection_pad3d", _reflect, 3),
    ("aten.replication_pad2d", _replicate, 2),
    ("aten.replication_pad3d", _replicate, 3),
):
    register_lowering(
        _name,
        located(partial(lower_index_pad, _index_fn, _n)),
        summary=f"{_name} -> linalg.generic(linalg.index, tensor.extract)",
    )

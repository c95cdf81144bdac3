"""Shape-building ops: cat, repeat, flip, the slice scatters and functional resize_ -> tensor
insert/extract slices, `linalg.broadcast` and gathers."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg

from .builder import PARALLEL, convert, tensor_type
from .registry import register_lowering
from .views_common import (
    DYN,
    body_value,
    cast_to,
    collapse,
    dim_sizes,
    expand,
    extract_slice,
    folded,
    gather,
    insert_slice,
    iop,
    located,
    product,
    size_arg,
    size_args,
    slice_bounds,
    wrap_index,
)


def _as_elem(rw, x: ir.Value, elem: ir.Type) -> ir.Value:
    """`x` with element type `elem` (cat promotes its operands to the result dtype; uint8
    storage widens zero-extended)."""
    x_t = tensor_type(x)
    if x_t.element_type == elem:
        return x
    out = ir.RankedTensorType.get(x_t.shape, elem)
    init = rw.empty(out, rw.sizes(x))
    unsigned = rw.is_unsigned(x)
    ident = ir.AffineMap.get_identity(x_t.rank)
    return rw.generic(
        [x],
        [init],
        [ident, ident],
        [PARALLEL] * x_t.rank,
        lambda a, _o: convert(a, elem, unsigned),
    )[0]


@register_lowering("aten.cat", unsigned=True, complex=True)
@located
def lower_cat(op, rw):
    """aten.cat -> tensor.empty, tensor.insert_slice (one per operand)"""
    result = rw.result_type()
    rank = result.rank
    dim = rw.args["dim"] % rank if rank else 0
    # Legacy: 1-D empty operands are skipped whatever the other operands' rank.
    parts = [
        t
        for t in rw.args["tensors"]
        if not (tensor_type(t).rank == 1 and tensor_type(t).shape == [0] and rank != 1)
    ]
    if not parts:
        return rw.empty(result, [0] * rank)
    parts = [_as_elem(rw, t, result.element_type) for t in parts]
    sizes = rw.sizes(parts[0])
    for d in range(rank):  # a `?` dim of the first operand may be known from another
        if not isinstance(folded(sizes[d]), int):
            for t in parts[1:]:
                s = tensor_type(t)
                if not s.is_dynamic_dim(d):
                    sizes[d] = s.get_dim_size(d)
    total = 0
    for t in parts:
        total = iop(rw, "add", total, rw.size(t, dim))
    sizes[dim] = total
    out = rw.empty(result, dim_sizes(rw, result, sizes))
    offset = 0
    for t in parts:
        offsets = [0] * rank
        offsets[dim] = offset
        out = insert_slice(rw, t, out, offsets)
        offset = iop(rw, "add", offset, rw.size(t, dim))
    return out


@register_lowering("aten.repeat", unsigned=True, complex=True)
@located
def lower_repeat(op, rw):
    """aten.repeat -> linalg.broadcast, tensor.collapse_shape"""
    x, result = rw.args["self"], rw.result_type()
    reps = size_args(rw, rw.args["repeats"])
    x_t = tensor_type(x)
    lead = len(reps) - x_t.rank
    sizes = rw.sizes(x)
    # [r0, s0, r1, s1, ...]: x broadcast along the new r dims, then each pair collapsed.
    shape, added, groups = [], [], []
    for i, r in enumerate(reps):
        group = [len(shape)]
        added.append(len(shape))
        shape.append(r)
        if i >= lead:
            group.append(len(shape))
            shape.append(sizes[i - lead])
        groups.append(group)
    wide_t = ir.RankedTensorType.get(
        [s if isinstance(s, int) else DYN for s in shape], x_t.element_type
    )
    init = rw.empty(wide_t, shape)
    with rw.at():
        wide = linalg.broadcast(x, outs=[init], dimensions=added).results[0]
    out = collapse(rw, wide, groups)
    return expand(rw, out, [[d] for d in range(result.rank)], result, rw.sizes(out))


@register_lowering("aten.flip", unsigned=True, complex=True)
@located
def lower_flip(op, rw):
    """aten.flip -> linalg.generic(linalg.index, tensor.extract)"""
    x, result = rw.args["self"], rw.result_type()
    rank = tensor_type(x).rank
    dims = {d % rank for d in rw.args["dims"]} if rank else set()
    sizes = rw.sizes(x)
    if not dims:
        return cast_to(rw, x, result)
    last = {d: iop(rw, "sub", sizes[d], 1) for d in dims}

    def at(idx):
        return [arith.subi(body_value(last[d]), i) if d in dims else i for d, i in enumerate(idx)]

    return gather(rw, x, result, sizes, at)


@register_lowering("aten.select_scatter", unsigned=True, complex=True)
@located
def lower_select_scatter(op, rw):
    """aten.select_scatter -> tensor.insert_slice (rank-extending)"""
    a = rw.args
    x, src = a["self"], a["src"]
    rank = tensor_type(x).rank
    dim = a["dim"] % rank
    offsets = [0] * rank
    offsets[dim] = wrap_index(rw, size_arg(rw, a["index"]), rw.size(x, dim))
    out = insert_slice(rw, _as_elem(rw, src, tensor_type(x).element_type), x, offsets, drop=[dim])
    return _retype(rw, out)


@register_lowering("aten.slice_scatter", unsigned=True, complex=True)
@located
def lower_slice_scatter(op, rw):
    """aten.slice_scatter -> tensor.insert_slice"""
    a = rw.args
    x, src = a["self"], a["src"]
    rank = tensor_type(x).rank
    dim, step = a["dim"] % rank, folded(a["step"])
    if not isinstance(step, int) or step < 1:
        return None  # a symbolic step: no torch program we know of makes one
    start, _length = slice_bounds(
        rw, size_arg(rw, a["start"]), size_arg(rw, a["end"]), step, rw.size(x, dim)
    )
    offsets, strides = [0] * rank, [1] * rank
    offsets[dim], strides[dim] = start, step
    out = insert_slice(rw, _as_elem(rw, src, tensor_type(x).element_type), x, offsets, strides)
    return _retype(rw, out)


def _retype(rw, v):
    return cast_to(rw, v, rw.result_type())


@register_lowering("aten.resize_", unsigned=True, complex=True)
@located
def lower_resize(op, rw):
    """aten.resize_ -> tensor.collapse_shape, tensor.extract_slice, tensor.insert_slice,
    tensor.expand_shape"""
    x, result = rw.args["self"], rw.result_type()
    x_t = tensor_type(x)
    sizes = dim_sizes(rw, result, size_args(rw, rw.args["size"]))
    # The functional resize: the first elements of `self` in the new shape; the elements past
    # them are zeros (ATen leaves them uninitialised).
    flat = _flatten(rw, x)
    have, want = product(rw, rw.sizes(x)), product(rw, sizes)
    keep = iop(rw, "min", have, want)
    flat_t = ir.RankedTensorType.get([want if isinstance(want, int) else DYN], x_t.element_type)
    kept_t = ir.RankedTensorType.get([keep if isinstance(keep, int) else DYN], x_t.element_type)
    kept = extract_slice(rw, flat, [0], [keep], [1], kept_t)
    if keep == want:
        out = kept
    else:
        zero = rw.full(flat_t, [want], 0)
        out = insert_slice(rw, kept, zero, [0])
    return expand(rw, out, [list(range(result.rank))] if result.rank else [], result, sizes)


def _flatten(rw, x):
    x_t = tensor_type(x)
    if x_t.rank == 0:
        one = ir.RankedTensorType.get([1], x_t.element_type)
        return expand(rw, x, [], one, [1])
    return collapse(rw, x, [list(range(x_t.rank))])

"""Slicing views -> `tensor.extract_slice`; views no slice expresses (diagonal, as_strided) ->
a `linalg.generic` gathering with `tensor.extract`; the symbolic size queries -> index values."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .builder import tensor_type
from .registry import register_lowering
from .views_common import (
    body_value,
    collapse,
    expand,
    extract_slice,
    folded,
    gather,
    index_value,
    iop,
    located,
    product,
    size_arg,
    size_args,
    slice_bounds,
    wrap_index,
)


def _dim(d: int, rank: int) -> int:
    return d % rank if rank else 0


@register_lowering("aten.slice.Tensor", unsigned=True, complex=True)
@located
def lower_slice(op, rw):
    """aten.slice.Tensor -> tensor.extract_slice"""
    a = rw.args
    x = a["self"]
    rank = tensor_type(x).rank
    dim, step = _dim(a["dim"], rank), folded(a["step"])
    if not isinstance(step, int) or step < 1:
        return None  # a symbolic step: no torch program we know of makes one
    sizes = rw.sizes(x)
    start, length = slice_bounds(
        rw, size_arg(rw, a["start"]), size_arg(rw, a["end"]), step, sizes[dim]
    )
    offsets, strides = [0] * rank, [1] * rank
    offsets[dim], strides[dim], sizes[dim] = start, step, length
    return extract_slice(rw, x, offsets, sizes, strides, rw.result_type())


@register_lowering("aten.select.int", unsigned=True, complex=True)
@located
def lower_select(op, rw):
    """aten.select.int -> tensor.extract_slice (rank-reducing)"""
    a = rw.args
    x = a["self"]
    rank = tensor_type(x).rank
    dim = _dim(a["dim"], rank)
    sizes = rw.sizes(x)
    offsets = [0] * rank
    offsets[dim] = wrap_index(rw, size_arg(rw, a["index"]), sizes[dim])
    sizes[dim] = 1
    return extract_slice(rw, x, offsets, sizes, [1] * rank, rw.result_type(), drop=[dim])


@register_lowering("aten.split_with_sizes", unsigned=True, complex=True)
@located
def lower_split_with_sizes(op, rw):
    """aten.split_with_sizes -> tensor.extract_slice (one per part)"""
    a = rw.args
    x = a["self"]
    rank = tensor_type(x).rank
    dim = _dim(a["dim"], rank)
    offset, parts = 0, []
    for i, size in enumerate(size_args(rw, a["split_sizes"])):
        sizes, offsets = rw.sizes(x), [0] * rank
        offsets[dim], sizes[dim] = offset, folded(size)
        parts.append(extract_slice(rw, x, offsets, sizes, [1] * rank, rw.result_type(i)))
        offset = iop(rw, "add", offset, folded(size))
    return parts


@register_lowering("aten.diagonal", unsigned=True, complex=True)
@located
def lower_diagonal(op, rw):
    """aten.diagonal -> linalg.generic(linalg.index, tensor.extract)"""
    a = rw.args
    x = a["self"]
    rank = tensor_type(x).rank
    d1, d2, off = _dim(a["dim1"], rank), _dim(a["dim2"], rank), a["offset"]
    sizes = rw.sizes(x)
    rest = [d for d in range(rank) if d not in (d1, d2)]
    row, col = max(-off, 0), max(off, 0)
    length = iop(
        rw, "max", iop(rw, "min", iop(rw, "sub", sizes[d1], row), iop(rw, "sub", sizes[d2], col)), 0
    )

    def at(idx):
        k = idx[-1]
        src = [None] * rank
        for i, d in enumerate(rest):
            src[d] = idx[i]
        src[d1] = arith.addi(k, body_value(row)) if row else k
        src[d2] = arith.addi(k, body_value(col)) if col else k
        return src

    return gather(rw, x, rw.result_type(), [sizes[d] for d in rest] + [length], at)


@register_lowering("aten.as_strided", unsigned=True, complex=True)
@located
def lower_as_strided(op, rw):
    """aten.as_strided -> tensor.collapse_shape, linalg.generic(linalg.index, tensor.extract)"""
    a = rw.args
    x, result = a["self"], rw.result_type()
    rank = tensor_type(x).rank
    # The operand is contiguous (a functional program has no other storage): index its flat
    # form at storage_offset + sum(i * stride).
    if rank == 0:
        flat = expand(rw, x, [], ir.RankedTensorType.get([1], tensor_type(x).element_type), [1])
    else:
        flat = collapse(rw, x, [list(range(rank))])
    strides = [index_value(rw, s) for s in size_args(rw, a["stride"])]
    offset = index_value(rw, size_arg(rw, a["storage_offset"] or 0))

    def at(idx):
        pos = offset
        for i, s in zip(idx, strides):
            pos = arith.addi(pos, arith.muli(i, s))
        return [pos]

    return gather(rw, flat, result, size_args(rw, a["size"]), at)


# -- symbolic size queries: the importer makes `tensor.dim`s of most; these cover the rest ------
def _index_result(rw, v):
    """`v` as the op's result: an index (what the importer gives symbolic ints)."""
    if not isinstance(rw.op.results[0].type, ir.IndexType):
        return None
    return index_value(rw, v)


@register_lowering("aten.sym_size.int", unsigned=True, complex=True)
@located
def lower_sym_size(op, rw):
    """aten.sym_size.int -> tensor.dim"""
    x = rw.args["self"]
    return _index_result(rw, rw.size(x, _dim(rw.args["dim"], tensor_type(x).rank)))


@register_lowering("aten.sym_numel", unsigned=True, complex=True)
@located
def lower_sym_numel(op, rw):
    """aten.sym_numel -> tensor.dim, arith.muli"""
    return _index_result(rw, product(rw, rw.sizes(rw.args["self"])))


@register_lowering("aten.sym_stride.int", unsigned=True, complex=True)
@located
def lower_sym_stride(op, rw):
    """aten.sym_stride.int -> tensor.dim, arith.muli (contiguous strides)"""
    x = rw.args["self"]
    dim = _dim(rw.args["dim"], tensor_type(x).rank)
    return _index_result(rw, product(rw, rw.sizes(x)[dim + 1 :]))


@register_lowering("aten.sym_storage_offset", unsigned=True, complex=True)
@located
def lower_sym_storage_offset(op, rw):
    """aten.sym_storage_offset -> arith.constant 0"""
    return _index_result(rw, 0)


@register_lowering("aten.sym_is_contiguous", unsigned=True, complex=True)
@located
def lower_sym_is_contiguous(op, rw):
    """aten.sym_is_contiguous -> arith.constant true (compiled tensors are contiguous)"""
    t = op.results[0].type
    if not isinstance(t, ir.IntegerType) or ir.IntegerType(t).width != 1:
        return None
    return rw.const(1, t)

"""Indexing, scatter and masking ops -> core aten (index.Tensor, index_put, gather, scatter_reduce,
where.self).

A dim-wise index op (`index_copy(x, dim, index, src)`) is `index_put` with `None` at the dims
before `dim`: a single advanced index keeps its place, so `src` already has the shape of
`x[:, ..., index]`. Rank-0 operands are viewed as rank 1 first, as ATen's kernels do.
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import verify_op

from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition
from .views import broadcast_size, rank, result_type, view


def along(dim: int, index):
    """`index_put`/`index.Tensor` indices selecting `index` along `dim`."""
    return [None] * dim + [index]


def as_rank1(rewriter, v):
    """`v` viewed as rank 1 when it is rank 0 (ATen treats a scalar as a 1-vector here)."""
    return view(rewriter, v, [1]) if rank(v) == 0 else v


def fill_value(rewriter, value, like):
    """A 0-d tensor of `like`'s dtype holding `value` (a python number or a tensor)."""
    if isinstance(value, (bool, int, float)):
        return rewriter.aten("aten.scalar_tensor", value, dtype=dtype(like))
    return to_dtype(rewriter, value, dtype(like))


def _index_put_along(op, rewriter, values, accumulate=False):
    x, dim, index = (rewriter.args[k] for k in ("self", "dim", "index"))
    x1 = as_rank1(rewriter, x)
    dim %= rank(x1)
    out = rewriter.aten(
        "aten.index_put", x1, along(dim, as_rank1(rewriter, index)), values, accumulate
    )
    return view(rewriter, out, [], results=result_type(op)) if rank(x) == 0 else out


@register_decomposition("aten.index_fill.int_Scalar")
def decompose_index_fill_scalar(op, rewriter):
    """aten.index_fill.int_Scalar -> aten.scalar_tensor, aten.index_put"""
    x = rewriter.args["self"]
    return _index_put_along(op, rewriter, fill_value(rewriter, rewriter.args["value"], x))


@register_decomposition("aten.index_fill.int_Tensor")
def decompose_index_fill_tensor(op, rewriter):
    """aten.index_fill.int_Tensor -> aten._to_copy, aten.index_put"""
    x = rewriter.args["self"]
    return _index_put_along(op, rewriter, fill_value(rewriter, rewriter.args["value"], x))


@register_decomposition("aten.index_copy")
def decompose_index_copy(op, rewriter):
    """aten.index_copy -> aten.index_put"""
    return _index_put_along(op, rewriter, as_rank1(rewriter, rewriter.args["source"]))


@register_decomposition("aten.index_add")
def decompose_index_add(op, rewriter):
    """aten.index_add -> aten.mul.Scalar (alpha != 1), aten.index_put (accumulate)"""
    source, alpha = rewriter.args["source"], rewriter.args["alpha"]
    if alpha != 1:
        source = rewriter.aten("aten.mul.Scalar", source, alpha)
    return _index_put_along(op, rewriter, as_rank1(rewriter, source), accumulate=True)


@register_decomposition("aten.index_reduce")
def decompose_index_reduce(op, rewriter):
    """aten.index_reduce -> aten.view, aten.expand, aten.scatter_reduce.two: the index, spread
    along `dim` over the source's shape, is scatter_reduce's (same reductions, same include_self)"""
    x, dim, index, source = (rewriter.args[k] for k in ("self", "dim", "index", "source"))
    x1, source = as_rank1(rewriter, x), as_rank1(rewriter, source)
    dim %= rank(x1)
    shape = [1] * rank(source)
    shape[dim] = rewriter.size(as_rank1(rewriter, index), 0)
    index = view(rewriter, as_rank1(rewriter, index), shape)
    spread = _expand(op, rewriter, index, shape, rewriter.sizes(source))
    reduce, include_self = rewriter.args["reduce"], rewriter.args["include_self"]
    out = rewriter.aten(
        "aten.scatter_reduce.two", x1, dim, spread, source, reduce, include_self=include_self
    )
    return view(rewriter, out, [], results=result_type(op)) if rank(x) == 0 else out


@register_decomposition("aten.masked_fill.Scalar")
def decompose_masked_fill_scalar(op, rewriter):
    """aten.masked_fill.Scalar -> aten.scalar_tensor, aten.where.self (the value in self's dtype)"""
    x, mask = rewriter.args["self"], rewriter.args["mask"]
    value = fill_value(rewriter, rewriter.args["value"], x)
    return rewriter.aten("aten.where.self", mask, value, x, results=result_type(op))


@register_decomposition("aten.masked_fill.Tensor")
def decompose_masked_fill_tensor(op, rewriter):
    """aten.masked_fill.Tensor -> aten._to_copy, aten.where.self (the value in self's dtype)"""
    x, mask = rewriter.args["self"], rewriter.args["mask"]
    value = fill_value(rewriter, rewriter.args["value"], x)
    return rewriter.aten("aten.where.self", mask, value, x, results=result_type(op))


def _clamped(rewriter, x, indices):
    """Each index clamped into [-size, size - 1] of its dim: the masked-off ones may be anything."""
    out = []
    for d, index in enumerate(indices):
        if index is None:
            out.append(None)
            continue
        size = rewriter.size(x, d)
        if not isinstance(size, int):
            return None
        out.append(rewriter.aten("aten.clamp", index, -size, size - 1))
    return out


@register_decomposition("aten._unsafe_masked_index")
def decompose_unsafe_masked_index(op, rewriter):
    """aten._unsafe_masked_index -> aten.clamp, aten.index.Tensor, aten.scalar_tensor,
    aten.where.self. Precondition: static sizes at the indexed dims."""
    x, mask, indices = (rewriter.args[k] for k in ("self", "mask", "indices"))
    clamped = _clamped(rewriter, x, indices)
    if clamped is None:
        return None
    picked = rewriter.aten("aten.index.Tensor", x, clamped)
    fill = fill_value(rewriter, rewriter.args["fill"], x)
    return rewriter.aten("aten.where.self", mask, picked, fill, results=result_type(op))


@register_decomposition("aten._unsafe_masked_index_put_accumulate")
def decompose_unsafe_masked_index_put_accumulate(op, rewriter):
    """aten._unsafe_masked_index_put_accumulate -> aten.clamp, aten.scalar_tensor,
    aten.where.self, aten.index_put (accumulate). Precondition: static sizes at the indexed dims."""
    x, mask, indices = (rewriter.args[k] for k in ("self", "mask", "indices"))
    values = rewriter.args["values"]
    clamped = _clamped(rewriter, x, indices)
    if clamped is None:
        return None
    zero = fill_value(rewriter, 0, values)
    kept = rewriter.aten("aten.where.self", mask, values, zero)
    return rewriter.aten("aten.index_put", x, clamped, kept, True, results=result_type(op))


def flat(rewriter, x):
    """`x` viewed as rank 1 (its numel, a runtime value when a dim is `?`)."""
    if rank(x) == 1:
        return x
    numel = 1
    for s in rewriter.sizes(x):
        numel = rewriter.index_arith(arith.MulIOp, numel, s)
    return view(rewriter, x, [numel])


@register_decomposition("aten.take")
def decompose_take(op, rewriter):
    """aten.take -> aten.view, aten.index.Tensor (the flat self, negative indices wrap)"""
    x, index = rewriter.args["self"], rewriter.args["index"]
    return rewriter.aten("aten.index.Tensor", flat(rewriter, x), [index], results=result_type(op))


def _expand(op, rewriter, x, sizes, shape):
    if all(a is b or a == b for a, b in zip(sizes, shape)):
        return x
    return rewriter.aten("aten.expand", x, shape, results=[tensor_of(op, shape, dtype(x))])


def _wrapped(rewriter, indices, size):
    """Negative indices wrapped (take_along_dim takes them, gather does not); None when the size
    is only known at run time."""
    if not isinstance(size, int):
        return None
    return rewriter.aten("aten.remainder.Scalar", indices, size) if size else indices


@register_decomposition("aten.take_along_dim")
def decompose_take_along_dim(op, rewriter):
    """aten.take_along_dim -> aten.view (dim=None), aten.remainder.Scalar (negative indices),
    aten.expand (the broadcast), aten.gather. Precondition: a static size at `dim`."""
    x, indices, dim = (rewriter.args[k] for k in ("self", "indices", "dim"))
    if dim is None:
        x, indices = flat(rewriter, x), flat(rewriter, indices)
    n = rank(x)
    dim = 0 if dim is None else dim % max(n, 1)
    indices = _wrapped(rewriter, indices, rewriter.size(x, dim) if n else 1)
    if indices is None:
        return None
    if n == 0:
        return rewriter.aten("aten.gather", x, 0, indices, results=result_type(op))
    xs, ins = rewriter.sizes(x), rewriter.sizes(indices)
    shape = [broadcast_size(rewriter, [a, b]) for a, b in zip(xs, ins)]
    x_shape, i_shape = list(shape), list(shape)
    x_shape[dim], i_shape[dim] = xs[dim], ins[dim]
    x = _expand(op, rewriter, x, xs, x_shape)
    indices = _expand(op, rewriter, indices, ins, i_shape)
    return rewriter.aten("aten.gather", x, dim, indices, results=result_type(op))


@register_decomposition("aten.put")
def decompose_put(op, rewriter):
    """aten.put -> aten.view, aten.index_put (on the flat self), aten.view"""
    x, index, source = (rewriter.args[k] for k in ("self", "index", "source"))
    out = rewriter.aten(
        "aten.index_put",
        flat(rewriter, x),
        [flat(rewriter, index)],
        flat(rewriter, source),
        rewriter.args["accumulate"],
    )
    return view(rewriter, out, rewriter.sizes(x), results=result_type(op))


def _embedding_bag(op, rewriter, padding_idx):
    """The composite's results from `aten._embedding_bag`. torch's meta function of the
    composite mixes kernels for the side outputs (with `include_last_offset` and a padding_idx,
    bag_size as `_embedding_bag`'s meta kernel, max_indices as its CPU one), which no kernel
    of `_embedding_bag` gives: when the declared types are not `_embedding_bag`'s, it is built
    with its own, and an unused side output that still differs is a placeholder of the declared
    type (a used one leaves the op alone)."""
    names = ("weight", "indices", "offsets", "scale_grad_by_freq", "mode", "sparse")
    names += ("per_sample_weights", "include_last_offset")
    args = [rewriter.args[k] for k in names]
    declared = [r.type for r in op.results]
    bag = rewriter.build("aten._embedding_bag", *args, padding_idx, results=declared)
    if not verify_op(bag.operation):
        return bag.results
    rewriter.discard()  # only what this rule built: the rejected op
    bag = rewriter.build("aten._embedding_bag", *args, padding_idx)
    out = []
    for i, (value, want) in enumerate(zip(bag.results, declared)):
        if value.type == want:
            out.append(value)
            continue
        t = ir.RankedTensorType(want)
        if list(op.results[i].uses) or not t.has_static_shape:
            return None
        out.append(rewriter.aten("aten.full", t.shape, 0, dtype=dtype(op.results[i])))
    return out


@register_decomposition("aten.embedding_bag")
def decompose_embedding_bag(op, rewriter):
    """aten.embedding_bag -> aten._embedding_bag (padding_idx -1: none)"""
    return _embedding_bag(op, rewriter, -1)


@register_decomposition("aten.embedding_bag.padding_idx")
def decompose_embedding_bag_padding_idx(op, rewriter):
    """aten.embedding_bag.padding_idx -> aten._embedding_bag

    A negative padding_idx counts from the end here but means "none" to _embedding_bag, so it
    is wrapped, as ATen's embedding_bag does (precondition then: a static number of embeddings)."""
    padding_idx = rewriter.args["padding_idx"]
    if padding_idx is not None and padding_idx < 0:
        rows = rewriter.size(rewriter.args["weight"], 0)
        if not isinstance(rows, int):
            return None
        padding_idx += rows
    return _embedding_bag(op, rewriter, -1 if padding_idx is None else padding_idx)


@register_decomposition("aten.embedding_renorm")
def decompose_embedding_renorm(op, rewriter):
    """aten.embedding_renorm -> aten.linalg_vector_norm, aten.index_put, aten.where.self

    Rows that `indices` names and whose norm exceeds max_norm are scaled by
    max_norm / (norm + 1e-7), as ATen's kernel does row by row"""
    a = rewriter.args
    weight, indices, max_norm = a["self"], a["indices"], a["max_norm"]
    if rank(weight) != 2:
        return None
    norms = rewriter.aten("aten.linalg_vector_norm", weight, a["norm_type"], [1], True)
    n = rewriter.size(weight, 0)
    rows = rewriter.aten(
        "aten.full", [n], False, dtype=torch.bool, results=[tensor_of(op, [n], torch.bool)]
    )
    named = rewriter.aten("aten.scalar_tensor", True, dtype=torch.bool)
    rows = rewriter.aten("aten.index_put", rows, [indices], named)
    too_long = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.unsqueeze", rows, 1),
        rewriter.aten("aten.gt.Scalar", norms, max_norm),
    )
    limit = rewriter.aten("aten.full_like", norms, max_norm)
    scale = rewriter.aten("aten.div.Tensor", limit, rewriter.aten("aten.add.Tensor", norms, 1e-7))
    scale = rewriter.aten(
        "aten.where.self", too_long, scale, rewriter.aten("aten.full_like", scale, 1.0)
    )
    return rewriter.aten("aten.mul.Tensor", weight, scale, results=result_type(op))

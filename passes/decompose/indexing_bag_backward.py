"""Backward ops of `embedding_bag` -> core aten: what AOTAutograd leaves in a training graph for
`nn.EmbeddingBag` / `F.embedding_bag` (before these rules each ran eagerly between native
segments). Semantics of `aten/src/ATen/native/EmbeddingBag.cpp`:

- sum / mean: each index's row of the weight gradient receives its bag's gradient row (divided
  by the bag's size in mean mode, times its per-sample weight), rows at `padding_idx` none:
  `embedding_dense_backward` of the per-index rows, which also divides by the index's frequency
  under `scale_grad_by_freq`. That is the documented scaling and ATen's CUDA kernel's; torch
  2.13's CPU kernel divides by the count of another index when counts differ (pytorch#190063).
- max: each bag's gradient goes to the row its maximum came from, per column
  (`scatter_add` at `maximum_indices`), empty bags (bag_size 0) giving nothing.
- per_sample_weights (sum mode): the dot product of the index's bag gradient with its weight
  row, 0 at `padding_idx`.

The index -> bag map is rebuilt from `offsets` rather than taken from the forward's
`offset2bag`, which ATen's fast sum path (and torch's meta function) leaves empty: ones added at
the bags' first offsets, summed cumulatively. Bag b is then [offsets[b], offsets[b + 1]) and the
last bag runs to the end of `indices`, as the forward's max / mean / slow sum paths. Indices and
offsets were range-checked where they entered (the forward's checks); the gathers and scatters
here clamp what they read and write, so a bad one cannot leave a buffer.
"""

from __future__ import annotations

import torch
from mlir.dialects import arith

from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition
from .views import result_type, slice_dim

SUM, MEAN, MAX = 0, 1, 2


def _bag_of_each_index(rewriter, indices, offsets, bags):
    """offset2bag: (len(indices),) int64, the bag each index belongs to."""
    n = rewriter.size(indices, 0)
    if not _same(
        rewriter.size(offsets, 0), bags
    ):  # include_last_offset: the last offset ends a bag
        offsets = slice_dim(rewriter, offsets, 0, 0, bags)
    offsets = to_dtype(rewriter, offsets, torch.int64)
    ends = rewriter.index_arith(arith.AddIOp, n, 1)  # offsets may equal len(indices)
    i64 = torch.int64
    marks = rewriter.aten("aten.full", [ends], 0, dtype=i64, results=[_t(rewriter, [ends], i64)])
    ones = rewriter.aten("aten.full", [bags], 1, dtype=i64, results=[_t(rewriter, [bags], i64)])
    marks = rewriter.aten("aten.index_put", marks, [offsets], ones, True)
    starts = rewriter.aten("aten.cumsum", slice_dim(rewriter, marks, 0, 0, n), 0)
    return rewriter.aten("aten.sub.Scalar", starts, 1)


def _t(rewriter, sizes, elem):
    return tensor_of(rewriter.op, sizes, elem)


def _at_bags(rewriter, per_bag, bag_of, fill):
    """per_bag[bag_of] along dim 0, from `per_bag` with one more entry of `fill` at its end: an
    index in no bag (bag -1: before the first offset, or there are no bags at all, where ATen's
    kernel reads past the gradient) wraps to that entry, and the gather never reads an empty
    tensor."""
    pad = [0, 0] * (len(rewriter.sizes(per_bag)) - 1) + [0, 1]
    sizes = rewriter.sizes(per_bag)
    sizes[0] = rewriter.index_arith(arith.AddIOp, sizes[0], 1)
    padded = rewriter.aten(
        "aten.constant_pad_nd", per_bag, pad, fill, results=[_t(rewriter, sizes, dtype(per_bag))]
    )
    sizes[0] = rewriter.size(bag_of, 0)
    return rewriter.aten(
        "aten.index.Tensor", padded, [bag_of], results=[_t(rewriter, sizes, dtype(per_bag))]
    )


def _per_index_rows(rewriter, grad, bag_of):
    """grad[offset2bag]: each index's bag gradient row, (len(indices), D); zeros for an index
    in no bag."""
    return _at_bags(rewriter, grad, bag_of, 0)


def _zero(rewriter, like):
    return rewriter.aten("aten.scalar_tensor", 0, dtype=dtype(like))


def _sum_or_mean(op, rewriter, bag_of):
    a = rewriter.args
    grad, mode, psw = a["grad"], a["mode"], a["per_sample_weights"]
    rows = _per_index_rows(rewriter, grad, bag_of)
    scale = None
    if mode == MEAN:
        # ATen scales by 1 / bag_size worked out in double (an empty bag: no division), then
        # rounded to the gradient's dtype
        sizes = _at_bags(rewriter, a["bag_size"], bag_of, 0)
        sizes = to_dtype(rewriter, sizes, torch.float64)
        one = rewriter.aten("aten.scalar_tensor", 1.0, dtype=torch.float64)
        empty = rewriter.aten("aten.eq.Scalar", sizes, 0)
        scale = rewriter.aten(
            "aten.reciprocal", rewriter.aten("aten.where.self", empty, one, sizes)
        )
    if psw is not None and mode == SUM:
        w = to_dtype(rewriter, psw, torch.float64)
        scale = w if scale is None else rewriter.aten("aten.mul.Tensor", scale, w)
    if scale is not None:
        scale = rewriter.aten("aten.unsqueeze", to_dtype(rewriter, scale, dtype(grad)), 1)
        rows = rewriter.aten("aten.mul.Tensor", rows, scale)
    return rewriter.aten(
        "aten.embedding_dense_backward",
        rows,
        a["indices"],
        a["num_weights"],
        a["padding_idx"],
        a["scale_grad_by_freq"],
        results=result_type(op),
    )


def _max(op, rewriter):
    a = rewriter.args
    grad, bag_size = a["grad"], a["bag_size"]
    bags = rewriter.size(grad, 0)
    if not _same(rewriter.size(bag_size, 0), bags):
        bag_size = slice_dim(rewriter, bag_size, 0, 0, bags)
    filled = rewriter.aten("aten.unsqueeze", rewriter.aten("aten.ne.Scalar", bag_size, 0), 1)
    at = to_dtype(rewriter, a["maximum_indices"], torch.int64)
    at = rewriter.aten("aten.where.self", filled, at, _zero(rewriter, at))
    src = rewriter.aten("aten.where.self", filled, grad, _zero(rewriter, grad))
    zeros = rewriter.aten(
        "aten.full",
        [a["num_weights"], rewriter.size(grad, 1)],
        0,
        dtype=dtype(grad),
        results=result_type(op),
    )
    return rewriter.aten("aten.scatter_add", zeros, 0, at, src, results=result_type(op))


def _same(a, b) -> bool:
    return a is b or (isinstance(a, int) and isinstance(b, int) and a == b)


@register_decomposition("aten._embedding_bag_backward")
def decompose_embedding_bag_backward(op, rewriter):
    """aten._embedding_bag_backward -> aten.slice.Tensor, aten.full, aten.index_put,
    aten.cumsum, aten.constant_pad_nd, aten.index.Tensor, aten.mul.Tensor,
    aten.embedding_dense_backward (sum, mean), aten.where.self, aten.scatter_add (max).
    sparse=True is left whole: its sparse COO gradient has no tensor type here (the import
    rejects such a graph, naming the layout)."""
    a = rewriter.args
    if a["sparse"] or a["mode"] not in (SUM, MEAN, MAX):
        return None
    if a["mode"] == MAX:
        return _max(op, rewriter)
    bags = rewriter.size(a["grad"], 0)
    return _sum_or_mean(
        op, rewriter, _bag_of_each_index(rewriter, a["indices"], a["offsets"], bags)
    )


@register_decomposition("aten._embedding_bag_dense_backward")
def decompose_embedding_bag_dense_backward(op, rewriter):
    """aten._embedding_bag_dense_backward -> aten.constant_pad_nd, aten.index.Tensor,
    aten.mul.Tensor, aten.embedding_dense_backward (sum, mean), aten.where.self,
    aten.scatter_add (max). Without offsets, the forward's offset2bag is the index -> bag map
    (precondition in sum and mean mode: it is not the empty one ATen's fast sum path leaves)"""
    a = rewriter.args
    if a["mode"] == MAX:
        return _max(op, rewriter)
    bag_of = a["offset2bag"]
    if a["mode"] not in (SUM, MEAN) or not _same(
        rewriter.size(bag_of, 0), rewriter.size(a["indices"], 0)
    ):
        return None
    return _sum_or_mean(op, rewriter, to_dtype(rewriter, bag_of, torch.int64))


@register_decomposition("aten._embedding_bag_per_sample_weights_backward")
def decompose_embedding_bag_per_sample_weights_backward(op, rewriter):
    """aten._embedding_bag_per_sample_weights_backward -> aten.full, aten.index_put,
    aten.cumsum, aten.constant_pad_nd, aten.index.Tensor, aten.mul.Tensor,
    aten.sum.dim_IntList, aten.where.self (padding_idx): per index, its bag's gradient row
    dotted with its weight row. Sum mode only, as ATen (which raises for the others)."""
    a = rewriter.args
    grad, weight, indices, padding_idx = a["grad"], a["weight"], a["indices"], a["padding_idx"]
    if a["mode"] != SUM:
        return None
    bag_of = _bag_of_each_index(rewriter, indices, a["offsets"], rewriter.size(grad, 0))
    rows = _per_index_rows(rewriter, grad, bag_of)
    sizes = [rewriter.size(indices, 0), rewriter.size(weight, 1)]
    picked = rewriter.aten(
        "aten.index.Tensor", weight, [indices], results=[_t(rewriter, sizes, dtype(weight))]
    )
    dots = rewriter.aten("aten.mul.Tensor", rows, picked)
    dots = rewriter.aten("aten.sum.dim_IntList", dots, [1], results=result_type(op))
    if padding_idx < 0:
        return dots
    padded = rewriter.aten("aten.eq.Scalar", indices, padding_idx)
    return rewriter.aten(
        "aten.where.self", padded, _zero(rewriter, dots), dots, results=result_type(op)
    )

"""Backward and alias forms of the indexing ops -> a zero tensor plus the matching core scatter
(the gradient of a view is the view's scatter into zeros), and old scatter spellings ->
`aten.scatter_reduce.two`."""

from __future__ import annotations

import torch
from mlir import ir

from aten_mlir.dialects import element_type

from .common import dtype
from .registry import register_decomposition
from .views import rank, result_type


def _zeros(op, rewriter, sizes, like):
    """A zero tensor of the op's result type (`sizes` may hold runtime values)."""
    return rewriter.aten("aten.full", list(sizes), 0, dtype=dtype(like), results=result_type(op))


@register_decomposition("aten.select_backward")
def decompose_select_backward(op, rewriter):
    """aten.select_backward -> aten.full, aten.select_scatter"""
    grad, sizes = rewriter.args["grad_output"], rewriter.args["input_sizes"]
    zeros = _zeros(op, rewriter, sizes, grad)
    dim, index = rewriter.args["dim"], rewriter.args["index"]
    return rewriter.aten("aten.select_scatter", zeros, grad, dim, index, results=result_type(op))


@register_decomposition("aten.slice_backward")
def decompose_slice_backward(op, rewriter):
    """aten.slice_backward -> aten.full, aten.slice_scatter"""
    grad, sizes = rewriter.args["grad_output"], rewriter.args["input_sizes"]
    zeros = _zeros(op, rewriter, sizes, grad)
    a = rewriter.args
    return rewriter.aten(
        "aten.slice_scatter",
        zeros,
        grad,
        a["dim"],
        a["start"],
        a["end"],
        a["step"],
        results=result_type(op),
    )


@register_decomposition("aten.diagonal_backward")
def decompose_diagonal_backward(op, rewriter):
    """aten.diagonal_backward -> aten.full, aten.diagonal_scatter"""
    grad, sizes = rewriter.args["grad_output"], rewriter.args["input_sizes"]
    zeros = _zeros(op, rewriter, sizes, grad)
    a = rewriter.args
    return rewriter.aten(
        "aten.diagonal_scatter",
        zeros,
        grad,
        a["offset"],
        a["dim1"],
        a["dim2"],
        results=result_type(op),
    )


@register_decomposition("aten.index_select_backward")
def decompose_index_select_backward(op, rewriter):
    """aten.index_select_backward -> aten.full, aten.index_add"""
    grad, sizes = rewriter.args["grad"], rewriter.args["self_sizes"]
    zeros = _zeros(op, rewriter, sizes, grad)
    dim, index = rewriter.args["dim"], rewriter.args["index"]
    return rewriter.aten("aten.index_add", zeros, dim, index, grad, results=result_type(op))


@register_decomposition("aten.gather_backward")
def decompose_gather_backward(op, rewriter):
    """aten.gather_backward -> aten.full_like, aten.scatter_add (dense: sparse_grad is a
    layout request this IR has no layout for)"""
    grad, x = rewriter.args["grad"], rewriter.args["self"]
    zeros = rewriter.aten("aten.full_like", x, 0, dtype=dtype(grad))
    dim, index = rewriter.args["dim"], rewriter.args["index"]
    return rewriter.aten("aten.scatter_add", zeros, dim, index, grad, results=result_type(op))


# scatter's reduce names -> scatter_reduce's.
_REDUCE = {"add": "sum", "multiply": "prod"}


@register_decomposition("aten.scatter.reduce")
def decompose_scatter_reduce_src(op, rewriter):
    """aten.scatter.reduce -> aten.scatter_reduce.two (include_self: self takes part, as in
    scatter's reduce)"""
    x, dim, index, src = (rewriter.args[k] for k in ("self", "dim", "index", "src"))
    reduce = _REDUCE[rewriter.args["reduce"]]
    return rewriter.aten(
        "aten.scatter_reduce.two", x, dim, index, src, reduce, results=result_type(op)
    )


@register_decomposition("aten.scatter.value_reduce")
def decompose_scatter_value_reduce(op, rewriter):
    """aten.scatter.value_reduce -> aten.full_like (the value, at every index),
    aten.scatter_reduce.two"""
    x, dim, index = (rewriter.args[k] for k in ("self", "dim", "index"))
    src = rewriter.aten("aten.full_like", index, rewriter.args["value"], dtype=dtype(x))
    reduce = _REDUCE[rewriter.args["reduce"]]
    return rewriter.aten(
        "aten.scatter_reduce.two", x, dim, index, src, reduce, results=result_type(op)
    )


@register_decomposition("aten._unsafe_index.Tensor")
def decompose_unsafe_index(op, rewriter):
    """aten._unsafe_index.Tensor -> aten.index.Tensor (the same gather, bounds unchecked)"""
    x, indices = rewriter.args["self"], rewriter.args["indices"]
    return rewriter.aten("aten.index.Tensor", x, indices, results=result_type(op))


@register_decomposition("aten._unsafe_index_put")
def decompose_unsafe_index_put(op, rewriter):
    """aten._unsafe_index_put -> aten.index_put"""
    a = rewriter.args
    return rewriter.aten(
        "aten.index_put",
        a["self"],
        a["indices"],
        a["values"],
        a["accumulate"],
        results=result_type(op),
    )


@register_decomposition("aten.embedding_backward")
def decompose_embedding_backward(op, rewriter):
    """aten.embedding_backward -> aten.embedding_dense_backward (sparse=False only)"""
    a = rewriter.args
    if a["sparse"]:
        return None
    return rewriter.aten(
        "aten.embedding_dense_backward",
        a["grad"],
        a["indices"],
        a["num_weights"],
        a["padding_idx"],
        a["scale_grad_by_freq"],
        results=result_type(op),
    )


@register_decomposition("aten.nonzero_numpy")
def decompose_nonzero_numpy(op, rewriter):
    """aten.nonzero_numpy -> aten.nonzero, aten.select.int (one index tensor per dim; a 0-d
    input counts as 1-d, as ATen's `nonzero(as_tuple=True)`, after aten.unsqueeze)"""
    x = rewriter.args["self"]
    if rank(x) == 0:
        x = rewriter.aten("aten.unsqueeze", x, 0)
    n = rank(x)
    with rewriter.op.location:
        dyn = ir.ShapedType.get_dynamic_size()
        found_type = ir.RankedTensorType.get([dyn, n], element_type(torch.int64))
    found = rewriter.aten("aten.nonzero", x, results=[found_type])
    return [
        rewriter.aten("aten.select.int", found, 1, d, results=[r.type])
        for d, r in enumerate(op.results)
    ]

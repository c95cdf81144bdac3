"""Backward ops of pools and pads that neither torch's core table nor a lowering takes ->
core aten: what AOTAutograd leaves in a training graph for `nn.AdaptiveMaxPool{1,2,3}d`,
`nn.MaxPool3d` and `nn.ReplicationPad{1,2,3}d` (before these rules each ran eagerly between
native segments).

Max pools with indices scatter-add their gradient at the indices the forward gave, per
(batch, channel) plane, as ATen's kernels do; replication pads' gradients are slices of
grad_output whose border rows and columns also receive the sums of the pad they were copied to.
"""

from __future__ import annotations

import functools

from mlir import ir
from mlir.dialects import arith

from .common import dtype, int_list, rank
from .pooling import _static_product
from .registry import register_decomposition
from .views import as_result, reshape, slice_dim, view


def _plane_scatter(n: int, op, rewriter):
    """grad_input = zeros(lead, plane).scatter_add(-1, indices, grad_output) viewed as `self`:
    each gradient element added at the flat index into its plane that the forward recorded."""
    a = rewriter.args
    grad, x, indices = a["grad_output"], a["self"], a["indices"]
    sizes, grad_sizes = rewriter.sizes(x), rewriter.sizes(grad)
    if len(sizes) not in (n + 1, n + 2) or len(grad_sizes) != len(sizes):
        return None
    lead = sizes[:-n]
    plane = functools.reduce(lambda p, s: rewriter.index_arith(arith.MulIOp, p, s), sizes[-n:], 1)
    count = functools.reduce(
        lambda p, s: rewriter.index_arith(arith.MulIOp, p, s), grad_sizes[-n:], 1
    )
    result = ir.RankedTensorType(op.results[0].type)
    with op.location:
        flat = ir.RankedTensorType.get(
            list(result.shape[:-n]) + [_static_product(result.shape[-n:])], result.element_type
        )
    zeros = rewriter.aten("aten.full", [*lead, plane], 0, dtype=dtype(grad), results=[flat])
    flat_grad = reshape(rewriter, grad, [*lead, count])
    flat_index = reshape(rewriter, indices, [*lead, count])
    out = rewriter.aten("aten.scatter_add", zeros, -1, flat_index, flat_grad, results=[flat])
    # scatter_add's result has the layout of `zeros`, fresh and contiguous: a view suffices
    return view(rewriter, out, sizes, results=[op.results[0].type])


for _n, _name in (
    (2, "aten.adaptive_max_pool2d_backward"),
    (3, "aten.adaptive_max_pool3d_backward"),
    (3, "aten.max_pool3d_with_indices_backward"),
):
    _rule = functools.partial(_plane_scatter, _n)
    _rule.__name__ = "decompose_" + _name.removeprefix("aten.")
    _rule.__doc__ = (
        f"{_name} -> aten.full, aten.view, aten.clone (a grad a view cannot flatten), "
        "aten.scatter_add: grad_output added at the forward's flat indices in each plane"
    )
    register_decomposition(_name)(_rule)


def _add_at(rewriter, t, dim: int, at, extra):
    """t with `extra` (size 1 along dim) added to its slice [at, at + 1) along dim."""
    after = rewriter.index_arith(arith.AddIOp, at, 1)
    piece = rewriter.aten("aten.add.Tensor", slice_dim(rewriter, t, dim, at, after), extra)
    return rewriter.aten("aten.slice_scatter", t, piece, dim, at, after, results=[t.type])


def _replication_pad_backward(n: int, op, rewriter):
    """Per padded dim, the last first (as the pad's own order): the middle slice of the
    gradient, where the first position also gets the left pad's sum and the last the right
    pad's (one position gets both when the input is 1 wide). A negative pad crops the input
    (`F.pad(x, (-4, 5), "replicate")`): the cropped positions get no gradient, zeros."""
    a = rewriter.args
    grad, x = a["grad_output"], a["self"]
    pad = int_list(a["padding"], 2 * n)
    if any(not isinstance(p, int) for p in pad) or rank(x) not in (n + 1, n + 2):
        return None
    for i in range(n):
        dim, left, right = rank(x) - 1 - i, pad[2 * i], pad[2 * i + 1]
        if left == 0 and right == 0:
            continue
        size = rewriter.size(x, dim)
        # input i is output i + left; the kept inputs' outputs are [max(left, 0), end)
        end = rewriter.index_arith(arith.AddIOp, size, left + min(right, 0))
        middle = slice_dim(rewriter, grad, dim, max(left, 0), end)
        if left < 0 or right < 0:
            zeros = [0] * (2 * (rank(x) - dim))
            zeros[-2:] = [max(-left, 0), max(-right, 0)]
            middle = rewriter.aten("aten.constant_pad_nd", middle, zeros, 0.0)
            end = rewriter.index_arith(arith.AddIOp, size, left)
        if left > 0:
            border = slice_dim(rewriter, grad, dim, 0, left)
            middle = _add_at(
                rewriter, middle, dim, 0, rewriter.aten("aten.sum.dim_IntList", border, [dim], True)
            )
        if right > 0:
            border = slice_dim(rewriter, grad, dim, end, rewriter.size(grad, dim))
            last = rewriter.index_arith(arith.SubIOp, size, 1)
            middle = _add_at(
                rewriter,
                middle,
                dim,
                last,
                rewriter.aten("aten.sum.dim_IntList", border, [dim], True),
            )
        grad = middle
    if grad is a["grad_output"]:  # no pad at all: ATen returns a new tensor
        grad = rewriter.aten("aten.clone", grad)
    return as_result(rewriter, op, grad)


for _n in (1, 2, 3):
    _name = f"aten.replication_pad{_n}d_backward"
    _rule = functools.partial(_replication_pad_backward, _n)
    _rule.__name__ = f"decompose_replication_pad{_n}d_backward"
    _rule.__doc__ = (
        f"{_name} -> aten.slice.Tensor, aten.sum.dim_IntList, aten.add.Tensor, "
        "aten.slice_scatter, aten.clone (no pad): the middle slice plus the pads' sums at "
        "the borders"
    )
    register_decomposition(_name)(_rule)

"""Strided scatters and copies -> index_put / index.Tensor on computed positions (never
`as_strided`: the positions an as_strided view would touch are built with `aten.arange`)."""

from __future__ import annotations

import torch
from mlir.dialects import arith

from .registry import register_decomposition
from .views import rank, reshape, result_type


def _row_major(rewriter, x):
    """`x` as its row-major storage: a rank-1 tensor of its numel."""
    numel = 1
    for s in rewriter.sizes(x):
        numel = rewriter.index_arith(arith.MulIOp, numel, s)
    return reshape(rewriter, x, [numel])


def _positions(rewriter, size, stride, offset):
    """Storage positions of an as_strided(size, stride, offset) view: offset + sum_d i_d*stride_d,
    an int64 tensor of shape `size`."""
    out = rewriter.aten("aten.scalar_tensor", offset, dtype=torch.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        steps = rewriter.aten("aten.arange.start_step", 0, n, 1, dtype=torch.int64)
        steps = rewriter.aten("aten.mul.Scalar", steps, st)
        shape = [1] * len(size)
        shape[d] = n
        out = rewriter.aten("aten.add.Tensor", out, rewriter.aten("aten.view", steps, shape))
    return out


@register_decomposition("aten.as_strided_copy")
def decompose_as_strided_copy(op, rewriter):
    """aten.as_strided_copy -> aten.arange.start_step, aten.mul.Scalar, aten.add.Tensor,
    aten.view, aten.index.Tensor: a gather at the view's storage positions, on the row-major
    storage of self (a value in this IR has no other). Precondition: static size and stride."""
    x, size, stride = (rewriter.args[k] for k in ("self", "size", "stride"))
    if not all(isinstance(v, int) for v in list(size) + list(stride)):
        return None
    positions = _positions(rewriter, size, stride, rewriter.args["storage_offset"] or 0)
    storage = _row_major(rewriter, x)
    return rewriter.aten("aten.index.Tensor", storage, [positions], results=result_type(op))


@register_decomposition("aten.as_strided_scatter")
def decompose_as_strided_scatter(op, rewriter):
    """aten.as_strided_scatter -> aten.arange.start_step, aten.mul.Scalar, aten.add.Tensor,
    aten.view, aten.index_put: src written at the view's storage positions of self's row-major
    storage. Precondition: static size and stride."""
    x, src, size, stride = (rewriter.args[k] for k in ("self", "src", "size", "stride"))
    if not all(isinstance(v, int) for v in list(size) + list(stride)):
        return None
    positions = _positions(rewriter, size, stride, rewriter.args["storage_offset"] or 0)
    storage = rewriter.aten("aten.index_put", _row_major(rewriter, x), [positions], src)
    return reshape(rewriter, storage, rewriter.sizes(x), results=result_type(op))


@register_decomposition("aten.diagonal_scatter")
def decompose_diagonal_scatter(op, rewriter):
    """aten.diagonal_scatter -> aten.permute, aten.arange.start_step, aten.index_put: src written
    at (i + max(-offset, 0), i + max(offset, 0)) of dims (dim1, dim2) moved last. Precondition:
    a static diagonal length."""
    x, src, offset = (rewriter.args[k] for k in ("self", "src", "offset"))
    n = rank(x)
    dim1, dim2 = rewriter.args["dim1"] % n, rewriter.args["dim2"] % n
    length = rewriter.size(src, -1)
    if not isinstance(length, int):
        return None
    perm = [d for d in range(n) if d not in (dim1, dim2)] + [dim1, dim2]
    moved = rewriter.aten("aten.permute", x, perm)
    first, second = max(-offset, 0), max(offset, 0)
    rows = rewriter.aten("aten.arange.start_step", first, first + length, 1, dtype=torch.int64)
    cols = rewriter.aten("aten.arange.start_step", second, second + length, 1, dtype=torch.int64)
    written = rewriter.aten("aten.index_put", moved, [None] * (n - 2) + [rows, cols], src)
    inverse = sorted(range(n), key=perm.__getitem__)
    return rewriter.aten("aten.permute", written, inverse, results=result_type(op))

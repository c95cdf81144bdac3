"""Matrix-shaped ops -> core aten: triangles and diagonals as `where` over an index mask (so NaN
outside the kept part becomes 0 as in ATen, never NaN * 0), `eye`, `block_diag` as padded rows,
cross products and Vandermonde matrices as the products ATen's kernels form.
"""

from __future__ import annotations

import itertools

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .registry import register_decomposition
from .views import arange, aten_sized, rank, result_type


def _offsets(rewriter, rows, cols) -> ir.Value:
    """`j - i` for the (rows, cols) grid, int64."""
    i, j = arange(rewriter, 0, rows), arange(rewriter, 0, cols)
    return rewriter.aten(
        "aten.sub.Tensor",
        rewriter.aten("aten.unsqueeze", j, 0),
        rewriter.aten("aten.unsqueeze", i, 1),
    )


def _zero(rewriter, like: ir.Value) -> ir.Value:
    return rewriter.aten("aten.full", [], 0, dtype=dtype(like))


def _triangle(compare: str, op, rewriter):
    x, diagonal = rewriter.args["self"], rewriter.args["diagonal"]
    offsets = _offsets(rewriter, rewriter.size(x, -2), rewriter.size(x, -1))
    keep = rewriter.aten(compare, offsets, diagonal)
    return rewriter.aten("aten.where.self", keep, x, _zero(rewriter, x), results=result_type(op))


@register_decomposition("aten.tril")
def decompose_tril(op, rewriter):
    """aten.tril -> aten.arange.start_step, aten.unsqueeze, aten.sub.Tensor, aten.le.Scalar,
    aten.full, aten.where.self: keeps `j - i <= diagonal`"""
    return _triangle("aten.le.Scalar", op, rewriter)


@register_decomposition("aten.triu")
def decompose_triu(op, rewriter):
    """aten.triu -> aten.arange.start_step, aten.unsqueeze, aten.sub.Tensor, aten.ge.Scalar,
    aten.full, aten.where.self: keeps `j - i >= diagonal`"""
    return _triangle("aten.ge.Scalar", op, rewriter)


# -- diagonals ------------------------------------------------------------------------------------


@register_decomposition("aten.diag_embed")
def decompose_diag_embed(op, rewriter):
    """aten.diag_embed -> aten.constant_pad_nd, aten.unsqueeze, aten.arange.start_step,
    aten.sub.Tensor, aten.eq.Scalar, aten.full, aten.where.self, aten.permute: the last dim,
    padded to m = n + |offset|, broadcast along the rows (offset >= 0) or columns, masked to the
    diagonal `j - i == offset`, its two dims moved to dim1, dim2"""
    x, offset, dim1, dim2 = (rewriter.args[k] for k in ("self", "offset", "dim1", "dim2"))
    n = rank(x) + 1
    dim1, dim2 = dim1 % n, dim2 % n
    m = rewriter.index_arith(arith.AddIOp, rewriter.size(x, -1), abs(offset))
    values = rewriter.aten("aten.constant_pad_nd", x, [0, abs(offset)], 0) if offset else x
    values = rewriter.aten("aten.unsqueeze", values, -1 if offset >= 0 else -2)
    on_diagonal = rewriter.aten("aten.eq.Scalar", _offsets(rewriter, m, m), offset)
    square = rewriter.aten("aten.where.self", on_diagonal, values, _zero(rewriter, x))
    batch = iter(range(n - 2))
    dims = [n - 2 if d == dim1 else n - 1 if d == dim2 else next(batch) for d in range(n)]
    if dims == list(range(n)):
        return square
    return rewriter.aten("aten.permute", square, dims, results=result_type(op))


@register_decomposition("aten.diag")
def decompose_diag(op, rewriter):
    """aten.diag -> aten.diag_embed (a vector), aten.diagonal, aten.clone (a matrix)"""
    x, diagonal = rewriter.args["self"], rewriter.args["diagonal"]
    if rank(x) == 1:
        return rewriter.aten("aten.diag_embed", x, diagonal, 0, 1, results=result_type(op))
    taken = rewriter.aten("aten.diagonal", x, diagonal, 0, 1)
    return rewriter.aten("aten.clone", taken, results=result_type(op))


@register_decomposition("aten.diagflat")
def decompose_diagflat(op, rewriter):
    """aten.diagflat -> aten.flatten.using_ints, aten.diag_embed"""
    x = rewriter.aten("aten.flatten.using_ints", rewriter.args["self"], 0, -1)
    return rewriter.aten(
        "aten.diag_embed", x, rewriter.args["offset"], 0, 1, results=result_type(op)
    )


@register_decomposition("aten.trace")
def decompose_trace(op, rewriter):
    """aten.trace -> aten.diagonal, aten.sum.dim_IntList (integers summed as int64, as ATen)"""
    taken = rewriter.aten("aten.diagonal", rewriter.args["self"], 0, 0, 1)
    return rewriter.aten(
        "aten.sum.dim_IntList", taken, [0], dtype=dtype(op.results[0]), results=result_type(op)
    )


# -- eye, block_diag ------------------------------------------------------------------------------


def _eye(op, rewriter, n, m):
    on_diagonal = rewriter.aten("aten.eq.Scalar", _offsets(rewriter, n, m), 0)
    return to_dtype(rewriter, on_diagonal, dtype(op.results[0]))


@register_decomposition("aten.eye")
def decompose_eye(op, rewriter):
    """aten.eye -> aten.arange.start_step, aten.unsqueeze, aten.sub.Tensor, aten.eq.Scalar,
    aten._to_copy"""
    return _eye(op, rewriter, rewriter.args["n"], rewriter.args["n"])


@register_decomposition("aten.eye.m")
def decompose_eye_m(op, rewriter):
    """aten.eye.m -> aten.arange.start_step, aten.unsqueeze, aten.sub.Tensor, aten.eq.Scalar,
    aten._to_copy"""
    return _eye(op, rewriter, rewriter.args["n"], rewriter.args["m"])


@register_decomposition("aten.block_diag")
def decompose_block_diag(op, rewriter):
    """aten.block_diag -> aten.view, aten._to_copy, aten.constant_pad_nd, aten.cat: each block
    (as a matrix of the result dtype) padded with zero columns left and right, stacked"""
    elem = dtype(op.results[0])
    blocks = []
    for t in rewriter.args["tensors"]:
        if rank(t) < 2:
            t = rewriter.aten("aten.view", t, [1, rewriter.size(t, 0) if rank(t) else 1])
        blocks.append(to_dtype(rewriter, t, elem))
    if not blocks:
        return None
    widths = [rewriter.size(b, 1) for b in blocks]
    total = 0
    for w in widths:
        total = rewriter.index_arith(arith.AddIOp, total, w)
    rows, left = [], 0
    for b, w in zip(blocks, widths):
        after = rewriter.index_arith(arith.AddIOp, left, w)
        right = rewriter.index_arith(arith.SubIOp, total, after)
        sizes = [rewriter.size(b, 0), total]
        rows.append(
            aten_sized(
                rewriter, "aten.constant_pad_nd", b, [left, right], 0, sizes=sizes, elem=elem
            )
        )
        left = after
    return rewriter.aten("aten.cat", rows, 0, results=result_type(op))


# -- cross products, Vandermonde, combinations -----------------------------------------------------


@register_decomposition("aten.linalg_cross")
def decompose_linalg_cross(op, rewriter):
    """aten.linalg_cross -> aten.slice.Tensor, aten.mul.Tensor, aten.sub.Tensor, aten.cat:
    `a1 * b2 - a2 * b1` and its rotations, the products ATen's cross kernel forms"""
    a, b, dim = (rewriter.args[k] for k in ("self", "other", "dim"))
    n = max(rank(a), rank(b))
    dim %= n
    a_parts = [rewriter.aten("aten.slice.Tensor", a, dim - n, i, i + 1) for i in range(3)]
    b_parts = [rewriter.aten("aten.slice.Tensor", b, dim - n, i, i + 1) for i in range(3)]

    def component(i, j):
        return rewriter.aten(
            "aten.sub.Tensor",
            rewriter.aten("aten.mul.Tensor", a_parts[i], b_parts[j]),
            rewriter.aten("aten.mul.Tensor", a_parts[j], b_parts[i]),
        )

    parts = [component(1, 2), component(2, 0), component(0, 1)]
    out = rewriter.aten("aten.cat", parts, dim)
    return to_dtype(rewriter, out, dtype(op.results[0]))


@register_decomposition("aten.cross")
def decompose_cross(op, rewriter):
    """aten.cross -> aten.linalg_cross (dim None: the first dim of size 3, torch's legacy
    default)"""
    a, b, dim = (rewriter.args[k] for k in ("self", "other", "dim"))
    if dim is None:
        shape = ir.RankedTensorType(op.results[0].type).shape
        dim = next((d for d, s in enumerate(shape) if s == 3), None)
        if dim is None:
            return None
    return rewriter.aten("aten.linalg_cross", a, b, dim=dim, results=result_type(op))


@register_decomposition("aten.linalg_vander")
def decompose_linalg_vander(op, rewriter):
    """aten.linalg_vander -> aten._to_copy, aten.unsqueeze, aten.full_like, aten.mul.Tensor,
    aten.cat: columns 1, x, x*x, ... multiplied one after the other as ATen's cumprod does
    (integers as int64)"""
    x, n = rewriter.args["x"], rewriter.args["N"]
    n = rewriter.size(x, -1) if n is None else n
    if not isinstance(n, int):
        return None  # a runtime column count: kept until a rule needs it
    if rank(x) == 0:  # a scalar is one sample: a 1 x N matrix
        x = rewriter.aten("aten.view", x, [1])
    column = rewriter.aten("aten.unsqueeze", to_dtype(rewriter, x, dtype(op.results[0])), -1)
    columns = [rewriter.aten("aten.full_like", column, 1)]
    for _ in range(n - 1):
        columns.append(rewriter.aten("aten.mul.Tensor", columns[-1], column))
    return rewriter.aten("aten.cat", columns, -1, results=result_type(op))


def _index_runs(rewriter, values: list[int]) -> ir.Value:
    """A constant int64 index vector, as a `cat` of runs that are constant (`aten.full`) or
    count up by one (`aten.arange.start_step`)."""
    pieces, start = [], 0
    while start < len(values):
        end = start + 1
        step = values[end] - values[start] if end < len(values) else 0
        step = step if step in (0, 1) else 0
        while end < len(values) and values[end] - values[end - 1] == step:
            end += 1
        first, count = values[start], end - start
        if step == 0:
            pieces.append(rewriter.aten("aten.full", [count], first, dtype=torch.int64))
        else:
            pieces.append(
                rewriter.aten("aten.arange.start_step", first, first + count, 1, dtype=torch.int64)
            )
        start = end
    return pieces[0] if len(pieces) == 1 else rewriter.aten("aten.cat", pieces, 0)


@register_decomposition("aten.combinations")
def decompose_combinations(op, rewriter):
    """aten.combinations -> aten.full, aten.arange.start_step, aten.cat, aten.index_select,
    aten.stack: the index tuples are known at compile time from the static length"""
    x, r, repeat = (rewriter.args[k] for k in ("self", "r", "with_replacement"))
    n = ir.RankedTensorType(x.type).get_dim_size(0)
    if n < 0:
        return None  # the tuples depend on a runtime length
    pick = itertools.combinations_with_replacement if repeat else itertools.combinations
    tuples = list(pick(range(n), r))
    if not tuples or r == 0:
        shape = [0, r] if r else [0]
        return rewriter.aten("aten.full", shape, 0, dtype=dtype(x), results=result_type(op))
    columns = [
        rewriter.aten("aten.index_select", x, 0, _index_runs(rewriter, [t[c] for t in tuples]))
        for c in range(r)
    ]
    return rewriter.aten("aten.stack", columns, 1, results=result_type(op))

"""Matrix norms and renorm -> vector norms, amax/amin and (for the spectral and nuclear norms)
`aten.linalg_svdvals`, as ATen's `linalg_matrix_norm` composes them."""

from __future__ import annotations

import math

from mlir import ir

from .common import _UPCAST, dtype, to_dtype
from .common import rank as _rank
from .registry import register_decomposition


def _matrix_dims(x: ir.Value, dims) -> tuple[int, int] | None:
    rank = _rank(x)
    if len(dims) != 2 or rank < 2:
        return None
    d0, d1 = (d % rank for d in dims)
    return None if d0 == d1 else (d0, d1)


def _extreme_of_norms(rewriter, x: ir.Value, dim: int, keepdim: bool, largest: bool):
    """amax / amin of non-negative `x` along `dim`. ATen gives 0 for the max over an empty dim
    (a norm of an empty matrix): a 0 appended along a dim that may be empty is the identity of
    that max. The min over an empty dim is an error in ATen: None leaves the op to raise it."""
    t = ir.RankedTensorType(x.type)
    size = t.get_dim_size(dim % t.rank)
    if size == 0 and not largest:
        return None
    if largest and size <= 0:  # empty or `?`
        rank = t.rank
        pad = [0, 0] * (rank - 1 - dim % rank) + [0, 1]
        x = rewriter.aten("aten.constant_pad_nd", x, pad, 0)
    return rewriter.aten("aten.amax" if largest else "aten.amin", x, [dim], keepdim)


def _singular_values(rewriter, x: ir.Value, d0: int, d1: int, dtype_):
    """svdvals of `x` with (d0, d1) moved last (ATen's create_dim_backshift_permutation)."""
    order = [d for d in range(_rank(x)) if d not in (d0, d1)] + [d0, d1]
    if dtype_ is not None:
        x = to_dtype(rewriter, x, dtype_)
    if order != list(range(_rank(x))):
        x = rewriter.aten("aten.permute", x, order)
    return rewriter.aten("aten.linalg_svdvals", x), order


def _restore(rewriter, reduced: ir.Value, order: list[int], keepdim: bool) -> ir.Value:
    """A [batch..., 1] reduction back in the input's dim order (keepdim) or squeezed."""
    if not keepdim:
        return rewriter.aten("aten.squeeze.dims", reduced, [-1])
    reduced = rewriter.aten("aten.unsqueeze", reduced, -1)
    if order == list(range(len(order))):
        return reduced
    inverse = [order.index(d) for d in range(len(order))]
    return rewriter.aten("aten.permute", reduced, inverse)


@register_decomposition("aten.linalg_matrix_norm")
def decompose_linalg_matrix_norm(op, rewriter):
    """aten.linalg_matrix_norm -> aten.linalg_vector_norm (ord 1), aten.amax / aten.amin
    (ord +-1, +-inf: column / row sums), or aten.permute, aten.linalg_svdvals, aten.amax /
    aten.amin (ord +-2) (+ aten.squeeze.dims / aten.unsqueeze, aten.permute, and
    aten.constant_pad_nd: a 0 before a max over a dim that may be empty, as ATen's 0 norm)"""
    a = rewriter.args
    x, keepdim, out_dtype = a["self"], a["keepdim"], a["dtype"]
    dims = _matrix_dims(x, a["dim"])
    ord_ = float(a["ord"])
    if dims is None or abs(ord_) not in (1.0, 2.0, math.inf):
        return None
    d0, d1 = dims
    if abs(ord_) == 2.0:
        values, order = _singular_values(rewriter, x, d0, d1, out_dtype)
        extreme = _extreme_of_norms(rewriter, values, -1, True, ord_ > 0)
        return None if extreme is None else _restore(rewriter, extreme, order, keepdim)
    if math.isinf(ord_):  # the inf norm is the 1 norm of the transpose
        d0, d1 = d1, d0
    sums = rewriter.aten("aten.linalg_vector_norm", x, 1, [d0], keepdim, dtype=out_dtype)
    if not keepdim and d0 < d1:
        d1 -= 1
    return _extreme_of_norms(rewriter, sums, d1, keepdim, ord_ > 0)


@register_decomposition("aten.linalg_matrix_norm.str_ord")
def decompose_linalg_matrix_norm_str(op, rewriter):
    """aten.linalg_matrix_norm.str_ord -> aten.linalg_vector_norm (fro), or aten.permute,
    aten.linalg_svdvals, aten.sum.dim_IntList (nuc) (+ aten.squeeze.dims / aten.unsqueeze,
    aten.permute)"""
    a = rewriter.args
    x, keepdim, out_dtype, ord_ = a["self"], a["keepdim"], a["dtype"], a["ord"]
    dims = _matrix_dims(x, a["dim"])
    if dims is None or ord_ not in ("fro", "nuc"):
        return None
    if ord_ == "fro":
        return rewriter.aten("aten.linalg_vector_norm", x, 2, list(dims), keepdim, dtype=out_dtype)
    values, order = _singular_values(rewriter, x, *dims, out_dtype)
    total = rewriter.aten("aten.sum.dim_IntList", values, [-1], True)
    return _restore(rewriter, total, order, keepdim)


@register_decomposition("aten.linalg_norm.ord_str")
def decompose_linalg_norm_ord_str(op, rewriter):
    """aten.linalg_norm.ord_str -> aten.linalg_matrix_norm.str_ord (dims (0, 1) by default)"""
    a = rewriter.args
    dims = a["dim"] if a["dim"] is not None else [0, 1]
    return rewriter.aten(
        "aten.linalg_matrix_norm.str_ord", a["self"], a["ord"], dims, a["keepdim"], dtype=a["dtype"]
    )


@register_decomposition("aten.renorm")
def decompose_renorm(op, rewriter):
    """aten.renorm -> aten.linalg_vector_norm, aten.gt.Scalar, aten.add.Scalar, aten.full_like,
    aten.div.Tensor, aten.where.self, aten.mul.Tensor (+ aten._to_copy for half floats): slices
    along `dim` whose p-norm exceeds maxnorm are scaled by maxnorm / (norm + 1e-7), as ATen"""
    a = rewriter.args
    x, p, dim, maxnorm = a["self"], a["p"], a["dim"], a["maxnorm"]
    rank = _rank(x)
    if rank == 0:
        return None
    dim %= rank
    others = [d for d in range(rank) if d != dim]
    compute = _UPCAST.get(dtype(x))  # reduced-precision floats: the norm in float32, as ATen
    norm = rewriter.aten("aten.linalg_vector_norm", x, p, others, True, dtype=compute)
    over = rewriter.aten("aten.gt.Scalar", norm, maxnorm)
    factor = rewriter.aten(
        "aten.div.Tensor",
        rewriter.aten("aten.full_like", norm, maxnorm),
        rewriter.aten("aten.add.Scalar", norm, 1e-7),
    )
    factor = rewriter.aten(
        "aten.where.self", over, factor, rewriter.aten("aten.full_like", norm, 1)
    )
    return rewriter.aten("aten.mul.Tensor", x, to_dtype(rewriter, factor, dtype(x)))

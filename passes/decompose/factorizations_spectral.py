"""Pseudo-inverse, numerical rank and condition number -> an SVD (or, for Hermitian input, an
eigendecomposition) and core elementwise ops, as ATen's `linalg_pinv`, `matrix_rank_impl` and
`linalg_cond` in `LinearAlgebra.cpp`.

The float tolerance overloads first become 0-d float64 tensors (ATen's `get_atol_rtol`); the
threshold max(atol, rtol * max(S)) is then compared in float64, as ATen's promotion does.
The largest singular value is taken with `amax` over S padded with one zero (S >= 0), which is
S[..., 0] for a non-empty S and also covers the empty matrices ATen special-cases.
"""

from __future__ import annotations

import torch
from mlir import ir

from .common import dtype
from .registry import register_decomposition
from .views import permute, rank, transposed_dims

_EPS = {
    torch.float32: torch.finfo(torch.float32).eps,
    torch.float64: torch.finfo(torch.float64).eps,
}
_REAL = {torch.complex64: torch.float32, torch.complex128: torch.float64}


def _types(op) -> list[ir.Type]:
    return [r.type for r in op.results]


def _is_complex(v: ir.Value) -> bool:
    return isinstance(ir.RankedTensorType(v.type).element_type, ir.ComplexType)


def _adjoint(rewriter, x: ir.Value) -> ir.Value:
    swapped = permute(rewriter, x, transposed_dims(rank(x), -2, -1))
    return rewriter.aten("aten.conj_physical", swapped) if _is_complex(x) else swapped


def _f64(rewriter, value: float) -> ir.Value:
    return rewriter.aten("aten.scalar_tensor", value, dtype=torch.float64)


def _as_tensor(rewriter, value) -> ir.Value | None:
    """A tolerance argument as a tensor: a Python number (wrapped) as a 0-d float64 tensor."""
    if value is None or isinstance(value, ir.Value):
        return value
    return _f64(rewriter, float(value))


def _default_rtol(rewriter, x: ir.Value) -> float | None:
    """eps(real dtype) * max(m, n), or None when a matrix dim is only known at run time."""
    m, n = rewriter.size(x, -2), rewriter.size(x, -1)
    if not (isinstance(m, int) and isinstance(n, int)):
        return None
    return _EPS[_REAL.get(dtype(x), dtype(x))] * max(m, n)


def _float_tolerances(rewriter, x, atol, rtol):
    """ATen's `get_atol_rtol` for float tolerances: (atol, rtol) as Python floats or None."""
    if rtol is None:
        if atol is not None and atol > 0.0:
            rtol = 0.0
        else:
            rtol = _default_rtol(rewriter, x)
    return (0.0 if atol is None else atol), rtol


def _tensor_tolerances(rewriter, x, atol, rtol):
    """ATen's `get_atol_rtol` for tensor tolerances: (atol, rtol) tensors, or None."""
    default = _default_rtol(rewriter, x) if rtol is None else None
    if rtol is None and default is None:
        return None
    atol_t = _as_tensor(rewriter, atol)
    if rtol is not None:
        rtol_t = _as_tensor(rewriter, rtol)
    elif atol is None:
        rtol_t = _f64(rewriter, default)
    else:
        positive = rewriter.aten("aten.gt.Scalar", atol_t, 0)
        rtol_t = rewriter.aten(
            "aten.where.self", positive, _f64(rewriter, 0.0), _f64(rewriter, default)
        )
    return (atol_t if atol_t is not None else _f64(rewriter, 0.0)), rtol_t


def _threshold(rewriter, magnitudes: ir.Value, atol: ir.Value, rtol: ir.Value) -> ir.Value:
    """max(atol, rtol * max(magnitudes)) per matrix, keepdim (float64 as ATen promotes)."""
    padded = rewriter.aten("aten.constant_pad_nd", magnitudes, [0, 1], 0.0)
    largest = rewriter.aten("aten.amax", padded, [-1], True)
    scaled = rewriter.aten("aten.mul.Tensor", rewriter.aten("aten.unsqueeze", rtol, -1), largest)
    return rewriter.aten("aten.maximum", rewriter.aten("aten.unsqueeze", atol, -1), scaled)


def _spectrum(rewriter, x: ir.Value, hermitian: bool):
    """(values, their magnitudes, left vectors, right vectors^H) with x = L diag(values) R^H."""
    if hermitian:
        values, vectors = rewriter.build("aten.linalg_eigh", x).results
        return values, rewriter.aten("aten.abs", values), vectors, vectors
    u, s, vh = rewriter.build("aten.linalg_svd", x, False).results
    return s, s, u, _adjoint(rewriter, vh)


# -- pseudo-inverse -------------------------------------------------------------------------------


@register_decomposition("aten.linalg_pinv.atol_rtol_tensor")
def decompose_linalg_pinv(op, rewriter):
    """aten.linalg_pinv.atol_rtol_tensor -> aten.linalg_svd | aten.linalg_eigh (hermitian),
    aten.abs, aten.constant_pad_nd, aten.amax, aten.unsqueeze, aten.mul.Tensor, aten.maximum,
    aten.gt.Tensor, aten.reciprocal, aten.where.self, aten.permute, aten.matmul: V diag(1/S) U^H
    over the values above max(atol, rtol * max(S)) (a default rtol needs a static matrix size)"""
    x, hermitian = rewriter.args["self"], rewriter.args["hermitian"]
    tolerances = _tensor_tolerances(rewriter, x, rewriter.args["atol"], rewriter.args["rtol"])
    if tolerances is None:
        return None
    values, magnitudes, left, right = _spectrum(rewriter, x, hermitian)
    kept = rewriter.aten(
        "aten.gt.Tensor", magnitudes, _threshold(rewriter, magnitudes, *tolerances)
    )
    zero = rewriter.aten("aten.scalar_tensor", 0, dtype=dtype(values))
    inverse = rewriter.aten("aten.where.self", kept, rewriter.aten("aten.reciprocal", values), zero)
    if dtype(inverse) != dtype(x):
        inverse = rewriter.aten("aten._to_copy", inverse, dtype=dtype(x))
    scaled = rewriter.aten("aten.mul.Tensor", right, rewriter.aten("aten.unsqueeze", inverse, -2))
    return rewriter.aten("aten.matmul", scaled, _adjoint(rewriter, left), results=_types(op))


@register_decomposition("aten.linalg_pinv.atol_rtol_float")
def decompose_linalg_pinv_float(op, rewriter):
    """aten.linalg_pinv.atol_rtol_float -> aten.scalar_tensor, aten.linalg_pinv.atol_rtol_tensor
    (float64 tolerances, as ATen's get_atol_rtol; a default rtol needs a static matrix size)"""
    x, hermitian = rewriter.args["self"], rewriter.args["hermitian"]
    atol, rtol = _float_tolerances(rewriter, x, rewriter.args["atol"], rewriter.args["rtol"])
    if rtol is None:
        return None
    return rewriter.aten(
        "aten.linalg_pinv.atol_rtol_tensor",
        x,
        atol=_f64(rewriter, atol),
        rtol=_f64(rewriter, rtol),
        hermitian=hermitian,
        results=_types(op),
    )


@register_decomposition("aten.linalg_pinv")
def decompose_linalg_pinv_rcond(op, rewriter):
    """aten.linalg_pinv -> aten.linalg_pinv.atol_rtol_float (atol 0, rtol = rcond)"""
    x, rcond, hermitian = (rewriter.args[k] for k in ("self", "rcond", "hermitian"))
    return rewriter.aten(
        "aten.linalg_pinv.atol_rtol_float",
        x,
        atol=0.0,
        rtol=rcond,
        hermitian=hermitian,
        results=_types(op),
    )


@register_decomposition("aten.linalg_pinv.rcond_tensor")
def decompose_linalg_pinv_rcond_tensor(op, rewriter):
    """aten.linalg_pinv.rcond_tensor -> aten.scalar_tensor, aten.linalg_pinv.atol_rtol_tensor
    (atol 0, rtol = rcond)"""
    x, rcond, hermitian = (rewriter.args[k] for k in ("self", "rcond", "hermitian"))
    return rewriter.aten(
        "aten.linalg_pinv.atol_rtol_tensor",
        x,
        atol=_f64(rewriter, 0.0),
        rtol=_as_tensor(rewriter, rcond),
        hermitian=hermitian,
        results=_types(op),
    )


@register_decomposition("aten.pinverse")
def decompose_pinverse(op, rewriter):
    """aten.pinverse -> aten.linalg_pinv (rcond, not hermitian)"""
    x, rcond = rewriter.args["self"], rewriter.args["rcond"]
    return rewriter.aten("aten.linalg_pinv", x, rcond, False, results=_types(op))


# -- rank -----------------------------------------------------------------------------------------


@register_decomposition("aten.linalg_matrix_rank.atol_rtol_tensor")
def decompose_linalg_matrix_rank(op, rewriter):
    """aten.linalg_matrix_rank.atol_rtol_tensor -> aten.linalg_svdvals | aten.linalg_eigvalsh,
    aten.abs (hermitian), aten.constant_pad_nd, aten.amax, aten.unsqueeze, aten.mul.Tensor,
    aten.maximum, aten.gt.Tensor, aten.sum.dim_IntList: how many values exceed the threshold (a
    default rtol needs a static matrix size)"""
    x, hermitian = rewriter.args["input"], rewriter.args["hermitian"]
    tolerances = _tensor_tolerances(rewriter, x, rewriter.args["atol"], rewriter.args["rtol"])
    if tolerances is None:
        return None
    if hermitian:
        values = rewriter.aten("aten.abs", rewriter.aten("aten.linalg_eigvalsh", x))
    else:
        values = rewriter.aten("aten.linalg_svdvals", x)
    kept = rewriter.aten("aten.gt.Tensor", values, _threshold(rewriter, values, *tolerances))
    return rewriter.aten(
        "aten.sum.dim_IntList", kept, [-1], False, dtype=torch.int64, results=_types(op)
    )


@register_decomposition("aten.linalg_matrix_rank.atol_rtol_float")
def decompose_linalg_matrix_rank_float(op, rewriter):
    """aten.linalg_matrix_rank.atol_rtol_float -> aten.scalar_tensor,
    aten.linalg_matrix_rank.atol_rtol_tensor (float64 tolerances, as ATen's get_atol_rtol)"""
    x, hermitian = rewriter.args["self"], rewriter.args["hermitian"]
    atol, rtol = _float_tolerances(rewriter, x, rewriter.args["atol"], rewriter.args["rtol"])
    if rtol is None:
        return None
    return rewriter.aten(
        "aten.linalg_matrix_rank.atol_rtol_tensor",
        x,
        atol=_f64(rewriter, atol),
        rtol=_f64(rewriter, rtol),
        hermitian=hermitian,
        results=_types(op),
    )


@register_decomposition("aten.linalg_matrix_rank")
def decompose_linalg_matrix_rank_tol(op, rewriter):
    """aten.linalg_matrix_rank -> aten.linalg_matrix_rank.atol_rtol_float (atol = tol, rtol 0)"""
    x, tol, hermitian = (rewriter.args[k] for k in ("self", "tol", "hermitian"))
    return rewriter.aten(
        "aten.linalg_matrix_rank.atol_rtol_float",
        x,
        atol=tol,
        rtol=0.0,
        hermitian=hermitian,
        results=_types(op),
    )


@register_decomposition("aten.linalg_matrix_rank.tol_tensor")
def decompose_linalg_matrix_rank_tol_tensor(op, rewriter):
    """aten.linalg_matrix_rank.tol_tensor -> aten.full_like,
    aten.linalg_matrix_rank.atol_rtol_tensor (atol = tol, rtol zeros like tol)"""
    x, tol, hermitian = (rewriter.args[k] for k in ("input", "tol", "hermitian"))
    tol = _as_tensor(rewriter, tol)
    return rewriter.aten(
        "aten.linalg_matrix_rank.atol_rtol_tensor",
        x,
        atol=tol,
        rtol=rewriter.aten("aten.scalar_tensor", 0, dtype=dtype(tol)),
        hermitian=hermitian,
        results=_types(op),
    )


# -- condition number -----------------------------------------------------------------------------


@register_decomposition("aten.linalg_cond")
def decompose_linalg_cond(op, rewriter):
    """aten.linalg_cond -> aten.linalg_svdvals, aten.slice.Tensor, aten.div.Tensor,
    aten.squeeze.dims (p = None or +-2: a ratio of singular values) | aten.linalg_inv_ex,
    aten.where.self, aten.linalg_matrix_norm, aten.mul.Tensor, aten.nan_to_num (p = +-1, +-inf),
    as ATen (needs static matrix sizes, not 0)"""
    x, p = rewriter.args["self"], rewriter.args["p"]
    m, n = rewriter.size(x, -2), rewriter.size(x, -1)
    if not (isinstance(m, int) and isinstance(n, int)) or m == 0 or n == 0:
        return None
    p = 2 if p is None else p
    if abs(p) != 2:
        return _cond_by_norms(op, rewriter, x, p)
    s = rewriter.aten("aten.linalg_svdvals", x)
    k = min(m, n)
    largest = rewriter.aten("aten.slice.Tensor", s, -1, 0, 1)
    smallest = rewriter.aten("aten.slice.Tensor", s, -1, k - 1, k)
    ratio = (smallest, largest) if p == -2 else (largest, smallest)
    quotient = rewriter.aten("aten.div.Tensor", *ratio)
    return rewriter.aten("aten.squeeze.dims", quotient, [-1], results=_types(op))


@register_decomposition("aten.linalg_cond.p_str")
def decompose_linalg_cond_str(op, rewriter):
    """aten.linalg_cond.p_str -> aten.linalg_inv_ex, aten.where.self,
    aten.linalg_matrix_norm.str_ord, aten.mul.Tensor, aten.nan_to_num ('fro', 'nuc'; needs
    static matrix sizes, not 0)"""
    x = rewriter.args["self"]
    n = rewriter.size(x, -1)
    if not isinstance(n, int) or n == 0:
        return None
    return _cond_by_norms(op, rewriter, x, rewriter.args["p"])


def _cond_by_norms(op, rewriter, x, p):
    """norm(A) * norm(A^-1), A^-1 = inf where singular, 0 * inf = inf (ATen's
    `_linalg_cond_helper`)"""
    inverse, info = rewriter.build("aten.linalg_inv_ex", x).results
    info = rewriter.aten("aten.unsqueeze", rewriter.aten("aten.unsqueeze", info, -1), -1)
    singular = rewriter.aten("aten.gt.Scalar", info, 0)
    inf = rewriter.aten("aten.full_like", inverse, float("inf"))
    inverse = rewriter.aten("aten.where.self", singular, inf, inverse)
    norm = "aten.linalg_matrix_norm.str_ord" if isinstance(p, str) else "aten.linalg_matrix_norm"
    product = rewriter.aten(
        "aten.mul.Tensor", rewriter.aten(norm, x, p), rewriter.aten(norm, inverse, p)
    )
    inf = float("inf")
    return rewriter.aten("aten.nan_to_num", product, inf, inf, -inf, results=_types(op))

"""Dense factorizations (QR, SVD, eigen, Cholesky, LU, LDL, determinants) -> the LAPACK-backed aten
ops ATen itself ends at, one step each (the CompositeImplicitAutograd kernels of
`aten/src/ATen/native/BatchLinearAlgebra.cpp` and `LinearAlgebra.cpp`).

The `*_ex` forms take `check_errors=True` where the op they replace raises on a singular or
non-positive-definite input (ATen calls `_linalg_check_errors` on the info tensor instead), so the
error is not lost. The ops at the bottom are kept whole: ATen calls LAPACK (cuSOLVER/MAGMA on GPU)
for them, and torch has no aten-level decomposition of any of them (checked: no
CompositeImplicitAutograd kernel, no entry in `torch._decomp`). Solves, inverses and powers are in
`factorizations_solve`, pseudo-inverse, rank and condition number in `factorizations_spectral`.
"""

from __future__ import annotations

import torch
from mlir import ir

from .common import dtype
from .registry import keep_whole, register_decomposition
from .views import permute, rank, transposed_dims


def result_types(op) -> list[ir.Type]:
    return [r.type for r in op.results]


def is_complex(v: ir.Value) -> bool:
    return isinstance(ir.RankedTensorType(v.type).element_type, ir.ComplexType)


def adjoint(rewriter, x: ir.Value) -> ir.Value:
    """`x.mH`: the last two dims swapped, conjugated when complex."""
    swapped = permute(rewriter, x, transposed_dims(rank(x), -2, -1))
    return rewriter.aten("aten.conj_physical", swapped) if is_complex(x) else swapped


def _results(op, rewriter, op_name: str, *args, keep: tuple[int, ...], **kwargs) -> list:
    """The results `keep` of one `op_name`, typed as the op's results (same order)."""
    built = rewriter.build(op_name, *args, **kwargs)
    return _retype(rewriter, [built.results[i] for i in keep], result_types(op))


# -- QR -------------------------------------------------------------------------------------------

keep_whole(
    "aten.linalg_qr",
    "Householder QR via LAPACK geqrf + orgqr (cuSOLVER/MAGMA on GPU); torch has no decomposition",
)
keep_whole("aten.geqrf", "LAPACK geqrf (Householder reflectors); torch has no decomposition")
keep_whole(
    "aten.ormqr", "LAPACK ormqr/unmqr (apply Householder reflectors); torch has no decomposition"
)
keep_whole(
    "aten.linalg_householder_product",
    "LAPACK orgqr/ungqr (Householder reflectors to Q); torch has no decomposition",
)


@register_decomposition("aten.qr")
def decompose_qr(op, rewriter):
    """aten.qr -> aten.linalg_qr (some=True is mode 'reduced', else 'complete')"""
    mode = "reduced" if rewriter.args["some"] else "complete"
    return _results(op, rewriter, "aten.linalg_qr", rewriter.args["self"], mode, keep=(0, 1))


# -- SVD ------------------------------------------------------------------------------------------

keep_whole(
    "aten._linalg_svd",
    "iterative SVD via LAPACK gesdd/gesvd (cuSOLVER gesvdj on GPU); torch has no decomposition",
)


@register_decomposition("aten.linalg_svd")
def decompose_linalg_svd(op, rewriter):
    """aten.linalg_svd -> aten._linalg_svd (compute_uv=True)"""
    a, full, driver = (rewriter.args[k] for k in ("A", "full_matrices", "driver"))
    return _results(op, rewriter, "aten._linalg_svd", a, full, True, driver=driver, keep=(0, 1, 2))


@register_decomposition("aten.linalg_svdvals")
def decompose_linalg_svdvals(op, rewriter):
    """aten.linalg_svdvals -> aten._linalg_svd (compute_uv=False, as ATen without autograd)"""
    a, driver = rewriter.args["A"], rewriter.args["driver"]
    return _results(op, rewriter, "aten._linalg_svd", a, False, False, driver=driver, keep=(1,))[0]


@register_decomposition("aten.svd")
def decompose_svd(op, rewriter):
    """aten.svd -> aten._linalg_svd, aten.permute (V = Vh.mH) | aten.linalg_svdvals, aten.full
    (compute_uv=False: U and V are zeros of the full shapes, as ATen's svd)"""
    x, some, compute_uv = (rewriter.args[k] for k in ("self", "some", "compute_uv"))
    u_type, s_type, v_type = result_types(op)
    if compute_uv:
        u, s, vh = rewriter.build("aten._linalg_svd", x, not some, True).results
        u, s = _retype(rewriter, [u, s], [u_type, s_type])
        v = adjoint(rewriter, vh)
        return [u, s, v if v.type == v_type else rewriter.aten("aten.alias", v, results=[v_type])]
    s = rewriter.aten("aten.linalg_svdvals", x, results=[s_type])
    sizes = rewriter.sizes(x)
    m, n = sizes[-2:]
    elem = dtype(x)
    u = rewriter.aten("aten.full", sizes[:-2] + [m, m], 0, dtype=elem, results=[u_type])
    v = rewriter.aten("aten.full", sizes[:-2] + [n, n], 0, dtype=elem, results=[v_type])
    return [u, s, v]


# -- eigendecompositions --------------------------------------------------------------------------

keep_whole(
    "aten.linalg_eig",
    "general eigendecomposition via LAPACK geev (computed on CPU even for CUDA tensors); "
    "torch has no decomposition",
)
keep_whole("aten._linalg_eigvals", "LAPACK geev without eigenvectors; torch has no decomposition")
keep_whole(
    "aten._linalg_eigh",
    "symmetric eigendecomposition via LAPACK syevd/heevd; torch has no decomposition",
)


@register_decomposition("aten.linalg_eigvals")
def decompose_linalg_eigvals(op, rewriter):
    """aten.linalg_eigvals -> aten._linalg_eigvals (ATen's path without autograd)"""
    return rewriter.aten("aten._linalg_eigvals", rewriter.args["self"], results=result_types(op))


@register_decomposition("aten.linalg_eigh")
def decompose_linalg_eigh(op, rewriter):
    """aten.linalg_eigh -> aten._linalg_eigh (compute_v=True)"""
    a, uplo = rewriter.args["self"], rewriter.args["UPLO"]
    return _results(op, rewriter, "aten._linalg_eigh", a, uplo, True, keep=(0, 1))


@register_decomposition("aten.linalg_eigvalsh")
def decompose_linalg_eigvalsh(op, rewriter):
    """aten.linalg_eigvalsh -> aten._linalg_eigh (compute_v=False, as ATen without autograd)"""
    a, uplo = rewriter.args["self"], rewriter.args["UPLO"]
    return _results(op, rewriter, "aten._linalg_eigh", a, uplo, False, keep=(0,))[0]


# -- Cholesky -------------------------------------------------------------------------------------

keep_whole("aten.linalg_cholesky_ex", "LAPACK potrf (Cholesky); torch has no decomposition")
keep_whole(
    "aten.cholesky_solve", "LAPACK potrs (two triangular solves); torch has no decomposition"
)
keep_whole("aten.cholesky_inverse", "LAPACK potri; torch has no decomposition")


@register_decomposition("aten.linalg_cholesky")
def decompose_linalg_cholesky(op, rewriter):
    """aten.linalg_cholesky -> aten.linalg_cholesky_ex (check_errors=True: still raises on a
    matrix that is not positive-definite)"""
    a, upper = rewriter.args["self"], rewriter.args["upper"]
    return _results(
        op, rewriter, "aten.linalg_cholesky_ex", a, upper=upper, check_errors=True, keep=(0,)
    )[0]


@register_decomposition("aten.cholesky")
def decompose_cholesky(op, rewriter):
    """aten.cholesky -> aten.linalg_cholesky (the deprecated spelling; same factor, upper or not)"""
    x, upper = rewriter.args["self"], rewriter.args["upper"]
    return rewriter.aten("aten.linalg_cholesky", x, upper=upper, results=result_types(op))


# -- LU and LDL -----------------------------------------------------------------------------------

keep_whole(
    "aten.linalg_lu_factor_ex",
    "LAPACK getrf (partial pivoting: data-dependent row swaps); torch has no decomposition",
)
keep_whole("aten.linalg_lu", "LAPACK getrf, then P, L, U unpacked; torch has no decomposition")
keep_whole("aten.linalg_lu_solve", "LAPACK getrs; torch has no decomposition")
keep_whole(
    "aten.lu_unpack",
    "pivots -> permutation applies the row swaps in sequence (a data-dependent loop); torch has "
    "no decomposition",
)
keep_whole(
    "aten.linalg_ldl_factor_ex",
    "LAPACK sytrf (Bunch-Kaufman pivoting); torch has no decomposition",
)
keep_whole("aten.linalg_ldl_solve", "LAPACK sytrs; torch has no decomposition")


@register_decomposition("aten.linalg_lu_factor")
def decompose_linalg_lu_factor(op, rewriter):
    """aten.linalg_lu_factor -> aten.linalg_lu_factor_ex (check_errors=True)"""
    a, pivot = rewriter.args["A"], rewriter.args["pivot"]
    return _results(
        op, rewriter, "aten.linalg_lu_factor_ex", a, pivot=pivot, check_errors=True, keep=(0, 1)
    )


@register_decomposition("aten._lu_with_info")
def decompose_lu_with_info(op, rewriter):
    """aten._lu_with_info -> aten.linalg_lu_factor_ex (check_errors=False, as ATen passes)"""
    x, pivot = rewriter.args["self"], rewriter.args["pivot"]
    return _results(
        op, rewriter, "aten.linalg_lu_factor_ex", x, pivot=pivot, check_errors=False, keep=(0, 1, 2)
    )


@register_decomposition("aten.lu_solve")
def decompose_lu_solve(op, rewriter):
    """aten.lu_solve -> aten.linalg_lu_solve (LU, pivots, B)"""
    b, lu, pivots = (rewriter.args[k] for k in ("self", "LU_data", "LU_pivots"))
    return rewriter.aten("aten.linalg_lu_solve", lu, pivots, b, results=result_types(op))


@register_decomposition("aten.linalg_ldl_factor")
def decompose_linalg_ldl_factor(op, rewriter):
    """aten.linalg_ldl_factor -> aten.linalg_ldl_factor_ex (check_errors=True)"""
    x, hermitian = rewriter.args["self"], rewriter.args["hermitian"]
    return _results(
        op,
        rewriter,
        "aten.linalg_ldl_factor_ex",
        x,
        hermitian=hermitian,
        check_errors=True,
        keep=(0, 1),
    )


# -- determinants ---------------------------------------------------------------------------------


def _lu_of(rewriter, a: ir.Value) -> ir.Operation:
    """`linalg_lu_factor_ex` of A, or of A^T for real A (ATen's `_linalg_det` does so for a
    contiguous A: the LAPACK call then needs no copy, and det(A^T) = det(A))."""
    source = a if is_complex(a) else permute(rewriter, a, transposed_dims(rank(a), -2, -1))
    return rewriter.build("aten.linalg_lu_factor_ex", source)


def _pivot_sign(rewriter, pivots: ir.Value) -> ir.Value:
    """The permutation's sign: (-1)^(#pivots[i] != i + 1), as int64 (ATen's `lu_det_P`). The
    positions 1..n are a cumsum of ones, so that `?` sizes need no index arithmetic."""
    ones = rewriter.aten("aten.full_like", pivots, 1)
    positions = rewriter.aten("aten.cumsum", ones, -1, dtype=dtype(pivots))
    swaps = rewriter.aten("aten.ne.Tensor", positions, pivots)
    count = rewriter.aten("aten.sum.dim_IntList", swaps, [-1], False, dtype=torch.int64)
    parity = rewriter.aten("aten.fmod.Scalar", count, 2)
    return rewriter.aten("aten.add.Scalar", rewriter.aten("aten.mul.Scalar", parity, -2), 1)


@register_decomposition("aten._linalg_det")
def decompose_linalg_det_lu(op, rewriter):
    """aten._linalg_det -> aten.linalg_lu_factor_ex, aten.diagonal, aten.prod.dim_int,
    aten.full_like, aten.cumsum, aten.ne.Tensor, aten.sum.dim_IntList, aten.fmod.Scalar,
    aten.mul.Scalar, aten.add.Scalar, aten.mul.Tensor: det = sign(P) * prod(diag(U)), as ATen's
    `_linalg_det_out`"""
    a = rewriter.args["A"]
    lu = _lu_of(rewriter, a)
    sign = _pivot_sign(rewriter, lu.results[1])
    diag = rewriter.aten("aten.diagonal", lu.results[0], 0, -2, -1)
    det = rewriter.aten("aten.prod.dim_int", diag, -1)
    det_type, lu_type, piv_type = result_types(op)
    det = rewriter.aten("aten.mul.Tensor", sign, det, results=[det_type])
    return [det] + _retype(rewriter, lu.results[:2], [lu_type, piv_type])


def _retype(rewriter, values, types) -> list:
    return [
        v if v.type == t else rewriter.aten("aten.alias", v, results=[t])
        for v, t in zip(values, types)
    ]


@register_decomposition("aten._linalg_slogdet")
def decompose_linalg_slogdet_lu(op, rewriter):
    """aten._linalg_slogdet -> aten.linalg_lu_factor_ex, aten.diagonal, aten.sign (aten.sgn when
    complex), aten.prod.dim_int, aten.abs, aten.log, aten.sum.dim_IntList and the pivot sign, as
    ATen's `_linalg_slogdet_out`"""
    a = rewriter.args["A"]
    lu = _lu_of(rewriter, a)
    sign_p = _pivot_sign(rewriter, lu.results[1])
    sign_type, logabs_type, lu_type, piv_type = result_types(op)
    diag = rewriter.aten("aten.diagonal", lu.results[0], 0, -2, -1)
    unit = rewriter.aten("aten.sgn" if is_complex(a) else "aten.sign", diag)
    sign = rewriter.aten(
        "aten.mul.Tensor", rewriter.aten("aten.prod.dim_int", unit, -1), sign_p, results=[sign_type]
    )
    log_abs = rewriter.aten("aten.log", rewriter.aten("aten.abs", diag))
    logabsdet = rewriter.aten("aten.sum.dim_IntList", log_abs, [-1], False, results=[logabs_type])
    return [sign, logabsdet] + _retype(rewriter, lu.results[:2], [lu_type, piv_type])


@register_decomposition("aten.linalg_det")
def decompose_linalg_det(op, rewriter):
    """aten.linalg_det -> aten._linalg_det"""
    return _results(op, rewriter, "aten._linalg_det", rewriter.args["A"], keep=(0,))[0]


@register_decomposition("aten.det")
def decompose_det(op, rewriter):
    """aten.det -> aten.linalg_det"""
    return rewriter.aten("aten.linalg_det", rewriter.args["self"], results=result_types(op))


@register_decomposition("aten.linalg_slogdet")
def decompose_linalg_slogdet(op, rewriter):
    """aten.linalg_slogdet -> aten._linalg_slogdet"""
    return _results(op, rewriter, "aten._linalg_slogdet", rewriter.args["A"], keep=(0, 1))


@register_decomposition("aten.slogdet")
def decompose_slogdet(op, rewriter):
    """aten.slogdet -> aten.linalg_slogdet"""
    return _results(op, rewriter, "aten.linalg_slogdet", rewriter.args["self"], keep=(0, 1))


@register_decomposition("aten.logdet")
def decompose_logdet(op, rewriter):
    """aten.logdet -> aten.linalg_slogdet, aten.eq.Scalar, aten.full_like, aten.where.self (real:
    NaN where det < 0) | aten.log, aten.add.Tensor (complex: log(sign) + log|det|), as ATen"""
    x = rewriter.args["self"]
    sign, logabs = rewriter.build("aten.linalg_slogdet", x).results
    res = result_types(op)
    if is_complex(x):
        return rewriter.aten(
            "aten.add.Tensor", rewriter.aten("aten.log", sign), logabs, results=res
        )
    negative = rewriter.aten("aten.eq.Scalar", sign, -1)
    nan = rewriter.aten("aten.full_like", logabs, float("nan"))
    return rewriter.aten("aten.where.self", negative, nan, logabs, results=res)

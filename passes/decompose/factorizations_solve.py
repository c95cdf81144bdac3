"""Linear solves, inverses, matrix powers and the matrix exponential -> the LAPACK-backed aten ops
ATen ends at (`_linalg_solve_ex`, `linalg_inv_ex`, ...) plus core reshapes and products, one step
each as ATen's CompositeImplicitAutograd kernels in `BatchLinearAlgebra.cpp` / `LinearAlgebra.cpp`.
"""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype
from .registry import keep_whole, register_decomposition
from .views import permute, rank, reshape

keep_whole(
    "aten._linalg_solve_ex",
    "LU solve via LAPACK getrf + getrs; torch has no decomposition",
)
keep_whole(
    "aten.linalg_inv_ex",
    "LAPACK getrf + getrs against the identity (ATen solves A X = I); torch has no decomposition",
)
keep_whole(
    "aten.linalg_solve_triangular", "BLAS trsm (triangular solve); torch has no decomposition"
)
keep_whole(
    "aten.triangular_solve",
    "BLAS trsm (triangular solve), returns the cloned coefficient too; torch has no decomposition",
)
keep_whole(
    "aten.linalg_lstsq",
    "LAPACK gels/gelsy/gelsd/gelss least squares (driver-dependent); torch has no decomposition",
)
keep_whole(
    "aten.linalg_matrix_exp",
    "scaling-and-squaring Taylor/Pade: the degree and the number of squarings depend on the "
    "matrix norm at run time; torch has no decomposition",
)


def _types(op) -> list[ir.Type]:
    return [r.type for r in op.results]


def _retyped(rewriter, v: ir.Value, t: ir.Type) -> ir.Value:
    return v if v.type == t else rewriter.aten("aten.alias", v, results=[t])


@register_decomposition("aten.linalg_solve")
def decompose_linalg_solve(op, rewriter):
    """aten.linalg_solve -> aten._linalg_solve_ex (check_errors=True: still raises on a singular
    matrix)"""
    a, b, left = (rewriter.args[k] for k in ("A", "B", "left"))
    out = rewriter.build("aten._linalg_solve_ex", a, b, left=left, check_errors=True)
    return _retyped(rewriter, out.results[0], _types(op)[0])


@register_decomposition("aten.linalg_solve_ex")
def decompose_linalg_solve_ex(op, rewriter):
    """aten.linalg_solve_ex -> aten._linalg_solve_ex (its result and info)"""
    a, b, left, check = (rewriter.args[k] for k in ("A", "B", "left", "check_errors"))
    out = rewriter.build("aten._linalg_solve_ex", a, b, left=left, check_errors=check)
    return [_retyped(rewriter, out.results[i], t) for i, t in zip((0, 3), _types(op))]


@register_decomposition("aten.linalg_inv")
def decompose_linalg_inv(op, rewriter):
    """aten.linalg_inv -> aten.linalg_inv_ex (check_errors=True: still raises on a singular
    matrix)"""
    out = rewriter.build("aten.linalg_inv_ex", rewriter.args["A"], check_errors=True)
    return _retyped(rewriter, out.results[0], _types(op)[0])


@register_decomposition("aten.inverse")
def decompose_inverse(op, rewriter):
    """aten.inverse -> aten.linalg_inv"""
    return rewriter.aten("aten.linalg_inv", rewriter.args["self"], results=_types(op))


def _product(rewriter, sizes) -> int | ir.Value:
    out = 1
    for s in sizes:
        out = rewriter.index_arith(arith.MulIOp, out, s)
    return out


@register_decomposition("aten.linalg_tensorinv")
def decompose_linalg_tensorinv(op, rewriter):
    """aten.linalg_tensorinv -> aten.view, aten.linalg_inv: the tensor as a square matrix
    (prod(shape[ind:]) on each side), inverted, viewed back as shape[ind:] + shape[:ind]"""
    x, ind = rewriter.args["self"], rewriter.args["ind"]
    sizes = rewriter.sizes(x)
    n = _product(rewriter, sizes[ind:])
    inverse = rewriter.aten("aten.linalg_inv", reshape(rewriter, x, [n, n]))
    return reshape(rewriter, inverse, sizes[ind:] + sizes[:ind], results=_types(op))


@register_decomposition("aten.linalg_tensorsolve")
def decompose_linalg_tensorsolve(op, rewriter):
    """aten.linalg_tensorsolve -> aten.permute (dims moved last), aten.view, aten.linalg_solve:
    A as an (n, n) matrix, B as a vector, the solution viewed as A.shape[B.ndim:]"""
    a, b, dims = (rewriter.args[k] for k in ("self", "other", "dims"))
    if dims:
        moved = [d % rank(a) for d in dims]
        a = permute(rewriter, a, [d for d in range(rank(a)) if d not in moved] + moved)
    sizes = rewriter.sizes(a)
    result_sizes = sizes[rank(b) :]
    n = _product(rewriter, result_sizes)
    a2 = reshape(rewriter, a, [n, n])
    b1 = reshape(rewriter, b, [_product(rewriter, rewriter.sizes(b))])
    solution = rewriter.aten("aten.linalg_solve", a2, b1)
    return reshape(rewriter, solution, result_sizes, results=_types(op))


def _identity_like(rewriter, x: ir.Value, result: ir.Type) -> ir.Value:
    """Identity matrices shaped like the square (batched) `x`, in its dtype."""
    sizes = rewriter.sizes(x)
    n = sizes[-1]
    if not isinstance(n, int):
        return None
    rows = rewriter.aten("aten.arange.start_step", 0, n, 1)
    columns = rewriter.aten("aten.unsqueeze", rows, 1)
    eye = rewriter.aten(
        "aten._to_copy", rewriter.aten("aten.eq.Tensor", columns, rows), dtype=dtype(x)
    )
    return rewriter.aten("aten.expand", eye, sizes, results=[result])


@register_decomposition("aten.linalg_matrix_power")
def decompose_linalg_matrix_power(op, rewriter):
    """aten.linalg_matrix_power -> aten.matmul (square-and-multiply on the bits of n, as ATen),
    aten.linalg_inv (n < 0), aten.clone (n = 1), identity from aten.arange.start_step,
    aten.eq.Tensor, aten._to_copy, aten.expand (n = 0; needs a static matrix size)"""
    x, n = rewriter.args["self"], rewriter.args["n"]
    res = _types(op)
    if n == 0:
        return _identity_like(rewriter, x, res[0])
    if n == 1:
        return rewriter.aten("aten.clone", x, memory_format=torch.contiguous_format, results=res)
    a = rewriter.aten("aten.linalg_inv", x) if n < 0 else x
    n = abs(n)
    if n == 1:
        return _retyped(rewriter, a, res[0])
    if n <= 3:
        square = rewriter.aten("aten.matmul", a, a)
        return _retyped(
            rewriter, square if n == 2 else rewriter.aten("aten.matmul", square, a), res[0]
        )
    power, result = None, None
    while n > 0:
        bit, n = n % 2, n // 2
        power = a if power is None else rewriter.aten("aten.matmul", power, power)
        if bit:
            result = power if result is None else rewriter.aten("aten.matmul", result, power)
    return _retyped(rewriter, result, res[0])


@register_decomposition("aten.matrix_power")
def decompose_matrix_power(op, rewriter):
    """aten.matrix_power -> aten.linalg_matrix_power"""
    x, n = rewriter.args["self"], rewriter.args["n"]
    return rewriter.aten("aten.linalg_matrix_power", x, n, results=_types(op))


@register_decomposition("aten.matrix_exp")
def decompose_matrix_exp(op, rewriter):
    """aten.matrix_exp -> aten.linalg_matrix_exp"""
    return rewriter.aten("aten.linalg_matrix_exp", rewriter.args["self"], results=_types(op))

"""Each factorization decomposition equals the op it replaces (eager kernels on both sides) and
leaves only target-set ops or the LAPACK-backed ops kept whole; `?` dims where the rule supports
them; the factorization OpInfo samples decompose (to core plus the kept ops)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import KEPT_WHOLE, ops_outside, target_set
from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN = float("nan")


def _gen():
    return torch.Generator().manual_seed(0)


def r(*shape):
    return torch.randn(*shape, generator=_gen())


def spd(*shape):
    a = r(*shape)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1])


SINGULAR = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
NEG_DET = torch.tensor([[0.0, 1.0], [1.0, 0.0]])  # det -1: logdet is NaN

# (op, inputs, kwargs, supports `?` dims, ops it may leave besides core)
CASES = [
    ("aten.qr", [r(3, 4, 4)], {}, True, {"aten.linalg_qr"}),
    ("aten.qr", [r(5, 3)], {"some": False}, True, {"aten.linalg_qr"}),
    ("aten.linalg_svd", [r(2, 5, 3)], {"full_matrices": False}, True, {"aten._linalg_svd"}),
    ("aten.linalg_svdvals", [r(2, 5, 3)], {}, True, {"aten._linalg_svd"}),
    ("aten.svd", [r(2, 3, 5)], {}, True, {"aten._linalg_svd"}),
    ("aten.svd", [r(2, 5, 3)], {"compute_uv": False}, True, {"aten._linalg_svd"}),
    ("aten.linalg_eigvals", [r(3, 4, 4)], {}, True, {"aten._linalg_eigvals"}),
    ("aten.linalg_eigh", [spd(2, 4, 4)], {}, True, {"aten._linalg_eigh"}),
    ("aten.linalg_eigvalsh", [spd(2, 4, 4)], {"UPLO": "U"}, True, {"aten._linalg_eigh"}),
    ("aten.linalg_cholesky", [spd(2, 4, 4)], {"upper": True}, True, {"aten.linalg_cholesky_ex"}),
    ("aten.cholesky", [spd(4, 4)], {}, True, {"aten.linalg_cholesky_ex"}),
    ("aten.linalg_lu_factor", [r(3, 4, 4)], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten._lu_with_info", [r(4, 4)], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.linalg_ldl_factor", [spd(4, 4)], {}, True, {"aten.linalg_ldl_factor_ex"}),
    ("aten.linalg_det", [r(3, 4, 4)], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.linalg_det", [SINGULAR], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.det", [NEG_DET], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.linalg_slogdet", [r(3, 4, 4)], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.slogdet", [SINGULAR], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.logdet", [r(3, 4, 4)], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.logdet", [NEG_DET], {}, True, {"aten.linalg_lu_factor_ex"}),
    ("aten.linalg_solve", [r(3, 4, 4), r(3, 4, 2)], {}, True, {"aten._linalg_solve_ex"}),
    ("aten.linalg_solve", [r(4, 4), r(3, 4)], {"left": False}, True, {"aten._linalg_solve_ex"}),
    ("aten.linalg_solve_ex", [r(3, 4, 4), r(3, 4)], {}, True, {"aten._linalg_solve_ex"}),
    ("aten.linalg_inv", [r(3, 4, 4)], {}, True, {"aten.linalg_inv_ex"}),
    ("aten.inverse", [r(4, 4)], {}, True, {"aten.linalg_inv_ex"}),
    ("aten.linalg_tensorinv", [r(4, 6, 8, 3)], {"ind": 2}, True, {"aten.linalg_inv_ex"}),
    ("aten.linalg_tensorsolve", [r(2, 3, 6), r(2, 3)], {}, False, {"aten._linalg_solve_ex"}),
    (
        "aten.linalg_tensorsolve",
        [r(6, 2, 3), r(2, 3)],
        {"dims": [0]},
        False,
        {"aten._linalg_solve_ex"},
    ),
    ("aten.linalg_matrix_power", [r(3, 4, 4)], {"n": 0}, False, set()),
    ("aten.linalg_matrix_power", [r(3, 4, 4)], {"n": 1}, True, set()),
    ("aten.linalg_matrix_power", [r(3, 4, 4)], {"n": 6}, True, set()),
    ("aten.linalg_matrix_power", [r(4, 4)], {"n": -3}, True, {"aten.linalg_inv_ex"}),
    ("aten.matrix_power", [r(3, 4, 4)], {"n": 3}, True, set()),
    ("aten.matrix_exp", [r(3, 4, 4)], {}, True, {"aten.linalg_matrix_exp"}),
    ("aten.linalg_pinv.atol_rtol_tensor", [r(2, 5, 3)], {}, False, {"aten._linalg_svd"}),
    (
        "aten.linalg_pinv.atol_rtol_float",
        [SINGULAR],
        {"atol": 0.5},
        True,
        {"aten._linalg_svd"},
    ),
    (
        "aten.linalg_pinv",
        [spd(4, 4)],
        {"rcond": 0.1, "hermitian": True},
        False,
        {"aten._linalg_eigh"},
    ),
    ("aten.pinverse", [r(3, 5)], {}, False, {"aten._linalg_svd"}),
    ("aten.pinverse", [r(0, 3)], {}, False, {"aten._linalg_svd"}),
    ("aten.linalg_matrix_rank.atol_rtol_tensor", [SINGULAR], {}, False, {"aten._linalg_svd"}),
    ("aten.linalg_matrix_rank", [r(2, 5, 3)], {"tol": 0.5}, True, {"aten._linalg_svd"}),
    (
        "aten.linalg_matrix_rank.atol_rtol_float",
        [spd(4, 4)],
        {"hermitian": True, "rtol": 0.3},
        True,
        {"aten._linalg_eigh"},
    ),
    ("aten.linalg_cond", [r(3, 4, 4)], {}, False, {"aten._linalg_svd"}),
    ("aten.linalg_cond", [r(3, 4, 5)], {"p": -2}, False, {"aten._linalg_svd"}),
    ("aten.chain_matmul", [r(2, 3), r(3, 4), r(4, 2)], {}, True, set()),
    ("aten.chain_matmul", [r(2, 3)], {}, True, set()),
]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def check(op_name, tensors, kwargs, allowed, dynamic=False):
    """`check_decomposition` allowing the ops of `allowed` that are kept whole to stay."""
    chain = op_name == "aten.chain_matmul"  # a Tensor[] operand (its kwargs unused)
    check_decomposition(
        op_name,
        tensors,
        {} if chain else kwargs,
        dynamic,
        tensor_list=chain,
        keep=sorted(set(allowed) & set(KEPT_WHOLE)),
        atol=1e-4,
        rtol=1e-4,
    )


@pytest.mark.parametrize(
    ("op_name", "tensors", "kwargs", "dynamic", "allowed"), CASES, ids=_ids(CASES)
)
def test_factorization_decomposition_matches_the_op(op_name, tensors, kwargs, dynamic, allowed):
    check(op_name, tensors, kwargs, allowed)


DYNAMIC = [c for c in CASES if c[3]]


@pytest.mark.parametrize(
    ("op_name", "tensors", "kwargs", "dynamic", "allowed"), DYNAMIC, ids=_ids(DYNAMIC)
)
def test_factorization_decomposition_with_dynamic_dims(op_name, tensors, kwargs, dynamic, allowed):
    check(op_name, tensors, kwargs, allowed, dynamic=True)


def test_matrix_power_on_integers():
    x = torch.randint(-3, 4, (2, 3, 3), generator=_gen())
    check("aten.linalg_matrix_power", [x], {"n": 5}, set())


def test_default_tolerance_needs_a_static_matrix_size():
    """pinv's default rtol is eps * max(m, n): with `?` matrix dims the op stays."""
    x = r(5, 3)
    program = single_op_program("aten.linalg_pinv.atol_rtol_tensor", [x], dynamic=True)
    decomposed = aten_mlir.decompose(program)
    left = {op.name for op in ops_outside(decomposed.module.operation, target_set())}
    assert left == {"aten.linalg_pinv.atol_rtol_tensor"}


def test_singular_matrices_still_raise():
    """linalg_inv -> linalg_inv_ex(check_errors=True): the error is not lost."""
    program = single_op_program("aten.linalg_inv", [SINGULAR])
    decomposed = aten_mlir.decompose(program)
    with pytest.raises(Exception, match="singular|invertible"):
        aten_mlir.run_reference(decomposed, SINGULAR)


def test_terminal_ops_are_kept_whole_with_a_reason():
    for name in (
        "aten.linalg_qr",
        "aten._linalg_svd",
        "aten._linalg_eigh",
        "aten.linalg_eig",
        "aten.linalg_cholesky_ex",
        "aten.linalg_lu_factor_ex",
        "aten._linalg_solve_ex",
        "aten.linalg_inv_ex",
        "aten.linalg_solve_triangular",
        "aten.linalg_matrix_exp",
        "aten.geqrf",
        "aten.ormqr",
    ):
        assert "torch has no decomposition" in KEPT_WHOLE[name], name


FACTORIZATION_OPINFOS = (
    "linalg.qr linalg.svd linalg.svdvals svd linalg.det linalg.slogdet logdet linalg.eigh "
    "linalg.eigvalsh linalg.eigvals linalg.cholesky linalg.lu_factor linalg.solve linalg.inv "
    "linalg.tensorinv linalg.tensorsolve linalg.matrix_power linalg.pinv linalg.pinv.hermitian "
    "pinverse linalg.matrix_rank linalg.cond matrix_exp linalg.ldl_factor"
).split()


def test_factorization_opinfo_samples_decompose():
    check_opinfo_samples(FACTORIZATION_OPINFOS, limit=1, allow_kept_whole=True)

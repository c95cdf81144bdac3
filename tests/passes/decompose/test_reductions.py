"""Reduction decompositions equal the ops they replace (eager kernels on both sides), on special
values (NaN, +-inf, zeros) and random ones, float32 and the integer dtypes the ops accept, with
static and dynamic dims; they leave only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import KEPT_WHOLE, ops_outside, reductions, target_set
from tests.support.decomposition import (
    assert_family_decomposes,
    check_decomposition,
    family_ops,
)
from tests.support.opinfo_samples import check_opinfo_samples, opinfo_cases
from tests.support.programs import single_op_program

INF, NAN = float("inf"), float("nan")


def _float():
    torch.manual_seed(0)
    x = torch.randn(3, 4, 5) * 3
    x[0, 0, :3] = torch.tensor([NAN, INF, -INF])
    x[1, 1] = 0.0
    x[2, 2] = -INF  # a whole row of -inf: logsumexp's masked max
    x[2, 3, 1] = INF
    return x


X = _float()
X_FINITE = torch.nan_to_num(X, nan=0.5, posinf=7.0, neginf=-7.0)
X_INT = torch.randint(-3, 4, (3, 4, 5))
X_BOOL = X_INT > -2
X_U8 = (X_INT + 3).to(torch.uint8)

CASES = {
    "sum": ("aten.sum", [X_FINITE], {}),
    "sum-int": ("aten.sum", [X_INT], {}),
    "sum-dtype": ("aten.sum", [X_INT], {"dtype": torch.float64}),
    "max": ("aten.max", [X_FINITE], {}),
    "min-int": ("aten.min", [X_INT], {}),
    "max.other": ("aten.max.other", [X, X_FINITE.flip(0)], {}),
    "min.other": ("aten.min.other", [X_INT, X_INT.flip(1)], {}),
    "var": ("aten.var", [X_FINITE], {"unbiased": False}),
    "std": ("aten.std", [X_FINITE], {}),
    "std.dim": ("aten.std.dim", [X_FINITE], {"dim": [1, 2], "keepdim": True}),
    "std.correction": ("aten.std.correction", [X_FINITE], {"dim": [0], "correction": 2}),
    "var_mean": ("aten.var_mean", [X_FINITE], {}),
    "var_mean.dim": ("aten.var_mean.dim", [X_FINITE], {"dim": [2], "unbiased": False}),
    "std_mean": ("aten.std_mean", [X_FINITE], {"unbiased": False}),
    "std_mean.dim": ("aten.std_mean.dim", [X_FINITE], {"dim": [0, 2], "keepdim": True}),
    "std_mean.correction": ("aten.std_mean.correction", [X_FINITE], {"dim": [1]}),
    "all": ("aten.all", [X_BOOL], {}),
    "all-float": ("aten.all", [X], {}),
    "all-u8": ("aten.all", [X_U8], {}),
    "all.dim": ("aten.all.dim", [X_BOOL], {"dim": 1, "keepdim": True}),
    "all.dim-u8": ("aten.all.dim", [X_U8], {"dim": 2}),
    "all.dims": ("aten.all.dims", [X_INT], {"dim": [0, 2]}),
    "count_nonzero": ("aten.count_nonzero", [X], {}),
    "count_nonzero-dim": ("aten.count_nonzero", [X_INT], {"dim": 1}),
    "count_nonzero.dim_IntList": ("aten.count_nonzero.dim_IntList", [X_BOOL], {"dim": [0, 1]}),
    "nansum": ("aten.nansum", [X_FINITE.masked_fill(X.isnan(), NAN)], {"dim": [1]}),
    "nansum-int": ("aten.nansum", [X_INT], {"dtype": torch.float32}),
    "nanmean": ("aten.nanmean", [X], {"dim": [2], "keepdim": True}),
    "logsumexp": ("aten.logsumexp", [X], {"dim": [2]}),
    "logsumexp-keep": ("aten.logsumexp", [X_FINITE * 30], {"dim": [0, -1], "keepdim": True}),
    "logsumexp-int": ("aten.logsumexp", [X_INT], {"dim": [1]}),
    "vector_norm": ("aten.linalg_vector_norm", [X_FINITE], {}),
    "vector_norm-1": ("aten.linalg_vector_norm", [X_FINITE], {"ord": 1, "dim": [1]}),
    "vector_norm-3": (
        "aten.linalg_vector_norm",
        [X_FINITE],
        {"ord": 3, "dim": [2], "keepdim": True},
    ),
    "vector_norm-0": ("aten.linalg_vector_norm", [X], {"ord": 0, "dim": [0]}),
    "vector_norm-inf": ("aten.linalg_vector_norm", [X], {"ord": INF, "dim": [2]}),
    "vector_norm--inf": ("aten.linalg_vector_norm", [X_FINITE], {"ord": -INF}),
    "vector_norm-f64": (
        "aten.linalg_vector_norm",
        [X_FINITE],
        {"ord": 1.5, "dtype": torch.float64},
    ),
    "linalg_norm": ("aten.linalg_norm", [X_FINITE], {"dim": [1]}),
    "linalg_norm-flat": ("aten.linalg_norm", [X_FINITE], {}),
    "aminmax": ("aten.aminmax", [X_FINITE], {}),
    "aminmax-dim": ("aten.aminmax", [X_INT], {"dim": 1, "keepdim": True}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_reduction_decomposition_matches_the_op(case):
    check_decomposition(*CASES[case])


@pytest.mark.parametrize("case", sorted(CASES))
def test_reduction_decomposition_with_dynamic_dims(case):
    check_decomposition(*CASES[case], dynamic=True)


REDUCTION_OPINFOS = {
    "sum",
    "max",
    "min",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "norm",
    "linalg.vector_norm",
    "linalg.norm",
    "logsumexp",
    "all",
    "count_nonzero",
    "aminmax",
    "nansum",
    "nanmean",
}


@pytest.mark.parametrize("case", opinfo_cases(REDUCTION_OPINFOS), ids=lambda c: c.id)
def test_reduction_opinfo_samples_decompose(case):
    from aten_mlir.tests.opinfo import harness

    program = aten_mlir.import_program(harness.export_case(case))
    assert_family_decomposes(program, case.inputs, harness.eager(case), family_ops(reductions))


# -- scans (cumprod, logcumsumexp, cummax, cummin) ----------------------------------------------

SCAN_ROW = torch.tensor([1.0, 3, 3, 2, 3, NAN, 1, NAN, 4, -INF, INF, 0.0, -0.0])
SCAN_CASES = {
    "cumprod": ("aten.cumprod", [X], {"dim": 2}),
    "cumprod-int": ("aten.cumprod", [X_INT], {"dim": 1}),
    "cumprod-dtype": ("aten.cumprod", [X_INT.int()], {"dim": 0, "dtype": torch.float64}),
    "cumprod-bool": ("aten.cumprod", [X_BOOL], {"dim": 2}),
    "cumprod-half": ("aten.cumprod", [X_FINITE.half() / 2], {"dim": 2}),
    "cumprod-0d": ("aten.cumprod", [torch.tensor(3.0)], {"dim": 0}),
    # ATen multiplies float32 in double: past float32's range and back is finite again (fuzz
    # seed 9601 #6: a float32 scan made inf * 0 = NaN of it)
    "cumprod-overflow-and-back": (
        "aten.cumprod",
        [torch.tensor([[1e20, 1e20, 1e-30, 1e-30, 1.0, 3e38, 3e38, 0.0, 2.0]]).T.contiguous()],
        {"dim": 0},
    ),
    "logcumsumexp": ("aten.logcumsumexp", [X * 100], {"dim": 2}),
    "logcumsumexp-inf": (
        "aten.logcumsumexp",
        [torch.tensor([[-INF, -INF, 0.0, -1000.0, INF, INF, -INF, 3.0, NAN, 1.0]])],
        {"dim": 1},
    ),
    # torch's own decomposition underflows here: exp(-1000 - 0) is 0 in float32.
    "logcumsumexp-far": (
        "aten.logcumsumexp",
        [torch.tensor([[-1000.0, 0.0, -1000.0]])],
        {"dim": 1},
    ),
    "cummax": ("aten.cummax", [X], {"dim": 2}),
    "cummax-ties": ("aten.cummax", [SCAN_ROW.reshape(1, -1)], {"dim": 1}),
    "cummax-int": ("aten.cummax", [X_INT], {"dim": 0}),
    "cummax-bool": ("aten.cummax", [X_BOOL], {"dim": 2}),
    "cummin": ("aten.cummin", [X], {"dim": 1}),
    "cummin-ties": ("aten.cummin", [SCAN_ROW.reshape(-1, 1)], {"dim": 0}),
    "cummin-int": ("aten.cummin", [X_INT], {"dim": -1}),
    "cummin-0d": ("aten.cummin", [torch.tensor(2.0)], {"dim": 0}),
}


@pytest.mark.parametrize("case", sorted(SCAN_CASES))
def test_scan_decomposition_matches_the_op(case):
    check_decomposition(*SCAN_CASES[case])


@pytest.mark.parametrize("case", sorted(c for c in SCAN_CASES if "0d" not in c))
def test_scan_decomposition_with_dynamic_dims_beside_the_scanned_one(case):
    op_name, tensors, kwargs = SCAN_CASES[case]
    rank = tensors[0].dim()
    scanned = kwargs["dim"] % rank
    check_decomposition(op_name, tensors, kwargs, [set(range(rank)) - {scanned}])


@pytest.mark.parametrize("op_name", ["aten.cumprod", "aten.logcumsumexp", "aten.cummax"])
def test_scan_over_a_dynamic_dim_is_left_whole(op_name):
    program = single_op_program(op_name, [X], dynamic=True, dim=1)
    decomposed = aten_mlir.decompose(program)
    assert [op.name for op in ops_outside(decomposed.module.operation, target_set())] == [op_name]


# -- matrix norms and renorm ----------------------------------------------------------------------

A = torch.randn(2, 3, 4)
MATRIX_CASES = {
    **{
        f"matrix_norm-{o}": ("aten.linalg_matrix_norm", [A], {"ord": o})
        for o in (1, -1, 2, -2, INF, -INF)
    },
    **{
        f"matrix_norm-{o}-keepdim": (
            "aten.linalg_matrix_norm",
            [A],
            {"ord": o, "dim": [2, 0], "keepdim": True},
        )
        for o in (1, -2, INF)
    },
    "matrix_norm-dtype": ("aten.linalg_matrix_norm", [A], {"ord": -1, "dtype": torch.float64}),
    "matrix_norm-fro": ("aten.linalg_matrix_norm.str_ord", [A], {"ord": "fro", "dim": [0, 2]}),
    "matrix_norm-nuc": (
        "aten.linalg_matrix_norm.str_ord",
        [A],
        {"ord": "nuc", "dim": [-1, -2], "keepdim": True},
    ),
    # ATen's norm of an empty matrix is 0: the max over an empty dim must not fail.
    "matrix_norm-1-empty": ("aten.linalg_matrix_norm", [torch.randn(3, 0)], {"ord": 1}),
    "matrix_norm-inf-empty": ("aten.linalg_matrix_norm", [torch.randn(0, 3)], {"ord": INF}),
    "matrix_norm-2-empty": ("aten.linalg_matrix_norm", [torch.randn(2, 0, 0)], {"ord": 2}),
    "linalg_norm-matrix": ("aten.linalg_norm", [A[0]], {"ord": INF}),
    "linalg_norm-matrix-dims": ("aten.linalg_norm", [A], {"ord": 2, "dim": [1, 2]}),
    "linalg_norm-two-dims-no-ord": ("aten.linalg_norm", [A], {"dim": [0, 2], "keepdim": True}),
    "linalg_norm.ord_str": ("aten.linalg_norm.ord_str", [A[1]], {"ord": "nuc"}),
    "renorm": ("aten.renorm", [A * 3], {"p": 2, "dim": 1, "maxnorm": 1.0}),
    "renorm-half": ("aten.renorm", [(A * 3).half()], {"p": 1.5, "dim": 0, "maxnorm": 2.0}),
}


def _check_allowing_kept_whole(op_name, tensors, kwargs, dynamic=False):
    """As check_decomposition, accepting the ops kept whole (the SVD the 2/nuc norms need);
    NaN never equals NaN here (these norms take finite inputs)."""
    check_decomposition(op_name, tensors, kwargs, dynamic, keep=KEPT_WHOLE, equal_nan=False)


@pytest.mark.parametrize("case", sorted(MATRIX_CASES))
def test_matrix_norm_decomposition_matches_the_op(case):
    _check_allowing_kept_whole(*MATRIX_CASES[case])


@pytest.mark.parametrize("case", sorted(MATRIX_CASES))
def test_matrix_norm_decomposition_with_dynamic_dims(case):
    _check_allowing_kept_whole(*MATRIX_CASES[case], dynamic=True)


def test_scan_and_matrix_norm_opinfo_samples():
    check_opinfo_samples(
        ["cumprod", "logcumsumexp", "cummax", "cummin", "renorm", "linalg.matrix_norm"],
        limit=3,
        allow_kept_whole=True,
    )

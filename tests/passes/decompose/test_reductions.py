"""Reduction decompositions equal the ops they replace (eager kernels on both sides), on special
values (NaN, +-inf, zeros) and random ones, float32 and the integer dtypes the ops accept, with
static and dynamic dims; they leave only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, reductions, target_set

from .test_normalization import check_decomposition, check_program, family_ops, opinfo_cases

INF, NAN = float("inf"), float("nan")
MATRIX_NORMS = {"aten.linalg_matrix_norm.str_ord", "aten.linalg_norm"}


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
    if any(op.name in MATRIX_NORMS for op in ops_outside(program.module.operation, target_set())):
        pytest.skip("matrix norms are left whole")
    check_program(program, case.inputs, harness.eager(case), family_ops(reductions))

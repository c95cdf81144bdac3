"""Each matrix-product decomposition equals the op it replaces (eager kernels on both sides), for
every rank combination, alpha/beta special cases (beta = 0 ignores NaN in `self`), integer dtypes
and `?` dims, and leaves only target-set ops; the linalg OpInfo samples decompose to core."""

from __future__ import annotations

import pytest
import torch

from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples

NAN = float("nan")


def r(*shape):
    return torch.randn(*shape)


# (op, float32 inputs, kwargs, supports `?` dims)
CASES = [
    ("aten.linear", [r(5, 3), r(4, 3), r(4)], {}, True),
    ("aten.linear", [r(2, 5, 3), r(4, 3), r(4)], {}, True),
    ("aten.linear", [r(2, 5, 3), r(4, 3)], {}, True),
    ("aten.linear", [r(3), r(4, 3)], {}, True),
    ("aten.matmul", [r(3), r(3)], {}, True),
    ("aten.matmul", [r(2, 3), r(3)], {}, True),
    ("aten.matmul", [r(3), r(3, 4)], {}, True),
    ("aten.matmul", [r(2, 3), r(3, 4)], {}, True),
    ("aten.matmul", [r(5, 2, 3), r(3, 4)], {}, True),
    ("aten.matmul", [r(5, 2, 3), r(3)], {}, True),
    ("aten.matmul", [r(3), r(5, 3, 4)], {}, True),
    ("aten.matmul", [r(2, 3), r(5, 3, 4)], {}, True),
    ("aten.matmul", [r(5, 1, 2, 3), r(4, 3, 2)], {}, False),
    ("aten.matmul", [r(5, 4, 2, 3), r(4, 3, 2)], {}, True),
    ("aten.mv", [r(2, 3), r(3)], {}, True),
    ("aten.dot", [torch.tensor([NAN, 1.0, 2.0]), r(3)], {}, True),
    ("aten.vdot", [r(4), r(4)], {}, True),
    ("aten.linalg_vecdot", [r(2, 3), r(3)], {"dim": -1}, True),
    ("aten.outer", [r(3), torch.tensor([NAN, float("inf"), 0.0, 2.0])], {}, True),
    ("aten.inner", [r(2, 3), r(4, 3)], {}, True),
    ("aten.inner", [r(2, 3), torch.tensor(2.0)], {}, True),
    ("aten.tensordot", [r(2, 3, 4), r(4, 3, 5)], {"dims_self": [1, 2], "dims_other": [1, 0]}, True),
    ("aten.linalg_multi_dot", [r(3), r(3, 4), r(4, 2)], {}, True),
    ("aten.linalg_multi_dot", [r(2, 3), r(3, 4), r(4)], {}, True),
    ("aten.linalg_multi_dot", [r(3), r(3, 4), r(4)], {}, True),
    ("aten.linalg_multi_dot", [r(2, 3), r(3, 4)], {}, True),
    ("aten.kron", [r(2, 3), r(4, 2)], {}, False),
    ("aten.kron", [r(3), r(2, 2)], {}, False),
    ("aten.bilinear", [r(2, 5, 3), r(2, 5, 4), r(6, 3, 4), r(6)], {}, False),
    ("aten.bilinear", [r(5, 3), r(5, 4), r(6, 3, 4)], {}, False),
    ("aten.addmv", [r(2), r(2, 3), r(3)], {"beta": 0.5, "alpha": 2}, True),
    ("aten.addmv", [torch.tensor([NAN, 1.0]), r(2, 3), r(3)], {"beta": 0}, True),
    ("aten.addmv", [r(2), torch.full((2, 3), NAN), r(3)], {"alpha": 0}, True),
    ("aten.addr", [r(2, 1), r(2), r(3)], {"beta": 2, "alpha": -1}, True),
    ("aten.addr", [torch.full((2, 3), NAN), r(2), r(3)], {"beta": 0}, True),
    ("aten.addr", [r(3), torch.tensor([NAN, 1.0]), r(3)], {"alpha": 0}, True),
    ("aten.baddbmm", [r(1, 2, 4), r(3, 2, 5), r(3, 5, 4)], {"beta": -1, "alpha": 0.5}, True),
    ("aten.baddbmm", [torch.full((3, 2, 4), NAN), r(3, 2, 5), r(3, 5, 4)], {"beta": 0}, True),
    ("aten.baddbmm", [r(3, 2, 4), torch.full((3, 2, 5), NAN), r(3, 5, 4)], {"alpha": 0}, True),
    ("aten.addbmm", [r(4), r(3, 2, 5), r(3, 5, 4)], {"beta": 2, "alpha": 3}, True),
    ("aten.addbmm", [torch.full((2, 4), NAN), r(3, 2, 5), r(3, 5, 4)], {"beta": 0}, True),
    ("aten.addbmm", [r(2, 4), torch.full((3, 2, 5), NAN), r(3, 5, 4)], {"alpha": 0}, True),
]
# Integer variants: the ops with integer kernels on CPU, scalars kept integral.
INT_OPS = {
    "aten.matmul",
    "aten.mv",
    "aten.dot",
    "aten.outer",
    "aten.tensordot",
    "aten.kron",
    "aten.addmv",
    "aten.addr",
    "aten.baddbmm",
    "aten.addbmm",
    "aten.inner",
}


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def check(op_name, tensors, kwargs, dynamic=False, tol=None):
    check_decomposition(op_name, tensors, kwargs, dynamic, tensor_list=True, **(tol or {}))


@pytest.mark.parametrize(("op_name", "tensors", "kwargs", "dynamic"), CASES, ids=_ids(CASES))
def test_linalg_decomposition_matches_the_op(op_name, tensors, kwargs, dynamic):
    check(op_name, tensors, kwargs)


DYNAMIC = [c for c in CASES if c[3]]


@pytest.mark.parametrize(("op_name", "tensors", "kwargs", "dynamic"), DYNAMIC, ids=_ids(DYNAMIC))
def test_linalg_decomposition_with_dynamic_dims(op_name, tensors, kwargs, dynamic):
    check(op_name, tensors, kwargs, dynamic=True)


INT_CASES = [
    (op, [t.nan_to_num(3.0).clamp(-50, 50).mul(3).to(torch.int32) for t in ts], kw)
    for op, ts, kw, _ in CASES
    if op in INT_OPS and all(isinstance(v, int) for v in kw.values() if not isinstance(v, list))
]


@pytest.mark.parametrize(("op_name", "tensors", "kwargs"), INT_CASES, ids=_ids(INT_CASES))
def test_linalg_decomposition_on_integers(op_name, tensors, kwargs):
    check(op_name, tensors, kwargs, tol={"rtol": 0, "atol": 0})


LINALG_OPINFOS = (
    "matmul nn.functional.linear mv dot vdot addmv addbmm baddbmm addr outer inner tensordot "
    "kron linalg.multi_dot linalg.vecdot nn.functional.bilinear"
).split()


def test_linalg_opinfo_samples_decompose_to_core():
    check_opinfo_samples(LINALG_OPINFOS)

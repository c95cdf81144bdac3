"""Scalar `where` and `rsub` decompositions equal the ops they replace, across dtypes where the
scalar's kind differs from the tensor's (the promotion cases)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set

from .single_op import single_op_program

X_FLOAT = torch.tensor([[float("nan"), -2.5, 0.0, 3.0], [1e-30, -1.0, 7.0, float("inf")]])
X_INT = torch.tensor([[4, -2, 0, 3], [1, -1, 7, 9]])

CASES = [
    ("aten.where.ScalarSelf", lambda x: [x > 0, x], {"self": 2.5, "names": ["condition", "other"]}),
    ("aten.where.ScalarOther", lambda x: [x > 0, x], {"other": -1}),
    ("aten.where.Scalar", lambda x: [x > 0], {"self": 2.5, "other": 1}),
    ("aten.rsub.Tensor", lambda x: [x, x * 3], {"alpha": 2}),
    ("aten.rsub.Scalar", lambda x: [x], {"other": 2.5, "alpha": 2}),
    ("aten.rsub.Scalar", lambda x: [x], {"other": 3, "alpha": 1}),
]


@pytest.mark.parametrize("x", [X_FLOAT, X_INT], ids=["f32", "i64"])
@pytest.mark.parametrize(("op_name", "inputs", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_elementwise_decomposition_matches_the_op(op_name, inputs, kwargs, x):
    tensors = inputs(x)
    program = single_op_program(op_name, tensors, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual, expected, equal_nan=True)

"""Factory and alias decompositions equal the ops they replace, dtypes included (the default
dtype, `self`'s dtype for `new_*`, an explicit one)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set

from .single_op import single_op_program

X_INT = torch.tensor([[4, -2, 0], [1, -1, 7]], dtype=torch.int32)
X_FLOAT = torch.tensor([[float("nan"), -2.5, 0.0], [1e-30, float("inf"), 7.0]])

CASES = [
    ("aten.ones", [], {"size": [2, 3]}),
    ("aten.zeros", [], {"size": [4], "dtype": torch.int64}),
    ("aten.new_ones", [X_INT], {"size": [3, 1]}),
    ("aten.new_zeros", [X_FLOAT], {"size": [2], "dtype": torch.float64}),
    ("aten.new_full", [X_INT], {"size": [2, 2], "fill_value": 7}),
    ("aten.new_full", [X_FLOAT], {"size": [1, 2], "fill_value": 2.5}),
    ("aten.ones_like", [X_INT], {}),
    ("aten.zeros_like", [X_FLOAT], {"dtype": torch.bfloat16}),
    ("aten.clamp_min", [X_FLOAT], {"min": 0.5}),
    ("aten.clamp_max", [X_INT], {"max": 1}),
    ("aten.divide.Tensor", [X_INT, X_INT + 9], {}),
    ("aten.subtract.Tensor", [X_FLOAT, X_FLOAT * 2], {"alpha": 3}),
    ("aten.multiply.Tensor", [X_INT, X_INT], {}),
]


@pytest.mark.parametrize(("op_name", "tensors", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_creation_decomposition_matches_the_op(op_name, tensors, kwargs):
    program = single_op_program(op_name, tensors, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert op_name not in str(decomposed)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    torch.testing.assert_close(actual, expected, equal_nan=True)


def test_zeros_like_keeps_dynamic_dims():
    program = single_op_program("aten.zeros_like", [X_FLOAT], dynamic=True)
    decomposed = aten_mlir.decompose(program)
    assert "tensor<?x?xf32>" in str(decomposed) and "aten.full_like" in str(decomposed)
    torch.testing.assert_close(aten_mlir.run_reference(decomposed, X_FLOAT[:1]), torch.zeros(1, 3))

"""Each alias overload decomposes to the op it names (and on to core) with the same values."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.dialects import ArgKind, get_op_def
from aten_mlir.passes.decompose.aliases import ALIASES
from tests.support.decomposition import assert_decomposes
from tests.support.programs import list_op_program

X = torch.tensor([[0.5, -0.25, 0.0, -0.0], [0.9, -0.9, float("nan"), 0.3]])
Y = torch.tensor([[0.25, 0.5, -1.0, 2.0], [0.9, 0.1, 1.0, -0.3]])
SCALAR_ARGS = {
    "aten.clip": {"min": -0.3, "max": 0.4},
    "aten.divide.Scalar": {"other": 4.0},
    "aten.divide.Scalar_mode": {"other": 0.3, "rounding_mode": "floor"},
    "aten.divide.Tensor_mode": {"rounding_mode": "trunc"},
    "aten.multiply.Scalar": {"other": 3},
    "aten.subtract.Scalar": {"other": 2, "alpha": 2},
    "aten.concat": {"dim": 1},
    "aten.greater.Scalar": {"other": 0.25},
    "aten.greater_equal.Scalar": {"other": 0.25},
    "aten.less.Scalar": {"other": 0.25},
    "aten.less_equal.Scalar": {"other": 0.25},
    "aten.not_equal.Scalar": {"other": 0.25},
    "aten.concatenate": {"dim": 0},
}


def _tensors(op_name):
    """As many inputs as the schema has tensor operands (vectors for `ger`)."""
    if op_name == "aten.ger":
        return [X[0], Y[1]]
    if op_name == "aten.linalg_matmul":
        return [X, Y.T.contiguous()]
    kinds = [a.kind for a in get_op_def(op_name).args]
    n = sum(k is ArgKind.TENSOR for k in kinds)
    if ArgKind.TENSOR_LIST in kinds:
        n = 2
    return [X, Y, (X + Y).abs()][:n]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("op_name", sorted(ALIASES))
def test_alias_decomposes_to_its_target(op_name, dynamic):
    tensors = _tensors(op_name)
    kwargs = SCALAR_ARGS.get(op_name, {})
    program = list_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    assert_decomposes(program, tensors)
    assert f'"{op_name}"' not in str(aten_mlir.decompose(program).module)

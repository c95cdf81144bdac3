"""Each activation decomposition equals the op it replaces (eager kernels on both sides), on
special values as well as random ones, and leaves only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set

from .single_op import single_op_program

SPECIAL = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -50.0, 50.0])

CASES = {
    "aten.silu": {},
    "aten.hardsigmoid": {},
    "aten.hardswish": {},
    "aten.relu6": {},
    "aten.mish": {},
    "aten.softplus": {"beta": 2, "threshold": 3},
    "aten.selu": {},
    "aten.celu": {"alpha": 0.7},
    "aten.glu": {"dim": -1},
    "aten.hardshrink": {"lambd": 0.3},
    "aten.softshrink": {"lambd": 0.4},
    "aten.threshold": {"threshold": 0.1, "value": 2.0},
}


def _input() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.cat([SPECIAL, torch.randn(24) * 4]).reshape(4, 8)


def _check(op_name: str, dynamic: bool) -> None:
    x = _input()
    program = single_op_program(op_name, [x], dynamic=dynamic, **CASES[op_name])
    expected = aten_mlir.run_reference(program, x)
    decomposed = aten_mlir.decompose(program)
    assert op_name not in str(decomposed), str(decomposed)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, x)
    torch.testing.assert_close(actual, expected, equal_nan=True)


@pytest.mark.parametrize("op_name", sorted(CASES))
def test_activation_decomposition_matches_the_op(op_name):
    _check(op_name, dynamic=False)


@pytest.mark.parametrize("op_name", sorted(set(CASES) - {"aten.glu"}))
def test_activation_decomposition_with_dynamic_dims(op_name):
    _check(op_name, dynamic=True)


def test_only_and_keep_choose_what_is_decomposed():
    x = _input()
    program = single_op_program("aten.hardswish", [x])
    kept = aten_mlir.decompose(program, keep=("aten.hardswish",))
    assert "aten.hardswish" in str(kept)
    one_step = aten_mlir.decompose(program, keep=("aten.hardsigmoid",))
    assert "aten.hardsigmoid" in str(one_step) and "aten.hardswish" not in str(one_step)
    untouched = aten_mlir.decompose(program, only=("aten.silu",))
    assert "aten.hardswish" in str(untouched)

"""Each activation decomposition equals the op it replaces (eager kernels on both sides), on
special values as well as random ones, and leaves only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from tests.support.decomposition import check_decomposition
from tests.support.programs import single_op_program

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
    "aten.log_sigmoid": {},
}


def _input() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.cat([SPECIAL, torch.randn(24) * 4]).reshape(4, 8)


def _check(op_name: str, dynamic: bool) -> None:
    check_decomposition(op_name, [_input()], CASES[op_name], dynamic, absent=(op_name,))


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


def _check_tensors(op_name, tensors, dynamic=False, **kwargs):
    check_decomposition(op_name, tensors, kwargs, dynamic)


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16, torch.float16])
def test_log_sigmoid_other_dtypes(dtype):
    """Half types are computed in float32 and rounded once, as ATen's CPU kernel."""
    _check_tensors("aten.log_sigmoid", [(_input() * 10).to(dtype)])


def _prelu_cases():
    x4 = _input().reshape(2, 4, 2, 2)
    return {
        "channels": [x4, torch.tensor([0.1, -0.5, 2.0, 0.0])],
        "one-weight": [x4, torch.tensor([0.25])],
        "scalar-weight": [_input(), torch.tensor(0.3)],
        "1d": [_input().flatten()[:7], torch.tensor([0.2])],
    }


PRELU_CASES = _prelu_cases()


@pytest.mark.parametrize("case", sorted(PRELU_CASES))
@pytest.mark.parametrize("dynamic", [False, True])
def test_prelu_decomposition_matches_the_op(case, dynamic):
    x, weight = PRELU_CASES[case]
    # `?` input dims but the channels (type inference checks them against the weight's size)
    dims = [set(range(x.dim())) - {1} if dynamic else set(), set()]
    _check_tensors("aten.prelu", [x, weight], dynamic=dims)


def _safe_softmax_input():
    x = _input()
    x[1] = -float("inf")  # a fully masked row: 0, not NaN
    x[2, :4] = -float("inf")
    return x


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dynamic", [False, True])
def test_safe_softmax_decomposition_matches_the_op(dim, dynamic):
    _check_tensors("aten._safe_softmax", [_safe_softmax_input()], dynamic=dynamic, dim=dim)


def test_safe_softmax_with_a_dtype():
    _check_tensors("aten._safe_softmax", [_safe_softmax_input().half()], dim=1, dtype=torch.float32)


def test_activation_opinfo_samples_decompose():
    from tests.support.opinfo_samples import check_opinfo_samples

    check_opinfo_samples(
        ["nn.functional.logsigmoid", "nn.functional.prelu", "torch.ops.aten._safe_softmax.default"],
        limit=3,
    )

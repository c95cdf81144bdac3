"""Factory and alias decompositions equal the ops they replace, dtypes included (the default
dtype, `self`'s dtype for `new_*`, an explicit one)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.decomposition import assert_decomposes
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

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


# -- ranges, uninitialised tensors, zero ----------------------------------------------------------

RANGE_CASES = [
    ("aten.arange", [], {"end": 7}),
    ("aten.arange", [], {"end": 5.5, "dtype": torch.float64}),
    ("aten.arange.start", [], {"start": -2, "end": 9, "dtype": torch.int32}),
    ("aten.arange.start", [], {"start": 0.5, "end": 3}),
    *[
        ("aten.linspace", [], {"start": -3.3, "end": 10, "steps": n, "dtype": dt})
        for n in (0, 1, 2, 7, 50)
        for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.float16)
    ],
    *[
        ("aten.logspace", [], {"start": -2, "end": 2.5, "steps": n, "base": 3.0, "dtype": dt})
        for n in (0, 1, 2, 9)
        for dt in (torch.float32, torch.float64, torch.int64)
    ],
    ("aten.logspace", [], {"start": 1, "end": 10, "steps": 10, "base": 2.0, "dtype": torch.int32}),
    ("aten.linspace.Tensor_Tensor", [torch.tensor(1.5), torch.tensor(-4.0)], {"steps": 9}),
    (
        "aten.linspace.Tensor_Scalar",
        [torch.tensor(2.7)],
        {"end": 11, "steps": 6, "dtype": torch.int64},
    ),
    ("aten.linspace.Scalar_Tensor", [torch.tensor(3)], {"start": -1, "steps": 5}),
    (
        "aten.logspace.Tensor_Tensor",
        [torch.tensor(-1.0), torch.tensor(2.0)],
        {"steps": 7, "base": 10.0},
    ),
    (
        "aten.logspace.Tensor_Scalar",
        [torch.tensor(1.5, dtype=torch.float64)],
        {"end": 4, "steps": 9, "base": 2.0, "dtype": torch.int64},
    ),
    ("aten.zero", [X_FLOAT], {}),
    ("aten.zero", [X_INT], {}),
]


def _names(case):
    op_name, tensors, _ = case
    if op_name.endswith("Scalar_Tensor"):
        return ["end"]
    return ["start", "end"][: len(tensors)] if "Tensor" in op_name.split(".")[-1] else None


@pytest.mark.parametrize(
    ("op_name", "tensors", "kwargs"),
    RANGE_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(RANGE_CASES)],
)
def test_range_decomposition_matches_the_op(op_name, tensors, kwargs):
    """Bit-exact is not asked: ATen's vectorised linspace adds `i * step` to the vector's first
    element, the scalar tail (and this rewrite) to `start`; they differ in the last bit."""
    program = single_op_program(
        op_name, tensors, names=_names((op_name, tensors, kwargs)), **kwargs
    )
    _, expected, actual = assert_decomposes(program, tensors)
    if expected.dim() == 1 and expected.numel():
        assert actual[0] == expected[0] and actual[-1] == expected[-1]  # both ends exact


def test_linspace_keeps_ends_exact_for_integers():
    program = single_op_program("aten.linspace", [], start=-7, end=7, steps=4, dtype=torch.int64)
    actual = aten_mlir.run_reference(aten_mlir.decompose(program))
    assert actual.tolist() == torch.linspace(-7, 7, 4, dtype=torch.int64).tolist()


EMPTY_CASES = [
    ("aten.empty_like", [X_FLOAT], {}, "aten.empty.memory_format"),
    ("aten.empty_like", [X_INT], {"dtype": torch.float64}, "aten.empty.memory_format"),
    ("aten.new_empty", [X_INT], {"size": [4, 1]}, "aten.empty.memory_format"),
    ("aten.new_empty_strided", [X_FLOAT], {"size": [2, 3], "stride": [1, 2]}, "aten.empty_strided"),
    (
        "aten.empty_permuted",
        [],
        {"size": [2, 3, 4], "physical_layout": [0, 2, 1]},
        "aten.empty_strided",
    ),
]


@pytest.mark.parametrize(
    ("op_name", "tensors", "kwargs", "target"), EMPTY_CASES, ids=[c[0] for c in EMPTY_CASES]
)
def test_uninitialised_factories_keep_shape_and_dtype(op_name, tensors, kwargs, target):
    program = single_op_program(op_name, tensors, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert target in str(decomposed) and op_name + '"' not in str(decomposed)
    assert not ops_outside(decomposed.module.operation, target_set())
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.stride() == expected.stride()


def test_empty_like_keeps_dynamic_dims():
    program = single_op_program("aten.empty_like", [X_FLOAT], dynamic=True)
    decomposed = aten_mlir.decompose(program)
    assert "tensor<?x?xf32>" in str(decomposed)
    assert aten_mlir.run_reference(decomposed, X_FLOAT[:1]).shape == (1, 3)


def test_arange_with_a_runtime_end_reaches_core():
    program = single_op_program("aten.arange", [], end=5)
    text = str(aten_mlir.decompose(program))
    assert "aten.arange.start_step" in text and '"aten.arange"' not in text


CREATION_OPINFOS = (
    "arange linspace linspace.tensor_overload logspace logspace.tensor_overload empty_like "
    "new_empty new_empty_strided empty_permuted zero_ item"
).split()


def test_creation_opinfo_samples_decompose_to_core():
    check_opinfo_samples(CREATION_OPINFOS, limit=2)

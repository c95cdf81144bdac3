"""Each pooling decomposition equals the op it replaces (eager kernels on both sides): values and
indices, on NaN, inf and ties as well as random inputs, with `?` dims where the rule allows them,
and leaves only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN, INF = float("nan"), float("inf")


def _randn(*shape) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def _special(*shape) -> torch.Tensor:
    """Random values with NaN, +-inf, -0.0 and a tie planted in the first plane."""
    x = _randn(*shape)
    plane = x.view(-1, shape[-1])
    plane[0, :3] = torch.tensor([NAN, 2.0, 2.0])
    plane[1, :2] = torch.tensor([INF, -0.0])
    plane[2, :] = -INF
    return x


def _results(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _decompose_and_compare(op_name, tensors, dynamic=False, names=None, **kwargs):
    program = single_op_program(op_name, tensors, dynamic=dynamic, names=names, **kwargs)
    expected = _results(aten_mlir.run_reference(program, *tensors))
    decomposed = aten_mlir.decompose(program)
    assert f'"{op_name}"' not in str(decomposed), str(decomposed)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = _results(aten_mlir.run_reference(decomposed, *tensors))
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        torch.testing.assert_close(a, e, equal_nan=True, rtol=0, atol=0)
    return decomposed


X1 = _special(2, 3, 11)
X2 = _special(2, 3, 7, 9)
X3 = _special(1, 2, 5, 6, 7)


def _case(op_name, x, **kwargs):
    return op_name, x, kwargs


CASES = {
    "max_pool1d_with_indices": _case(
        "aten.max_pool1d_with_indices",
        X1,
        kernel_size=[3],
        stride=[2],
        padding=[1],
        dilation=[2],
        ceil_mode=True,
    ),
    "max_pool1d_with_indices_unbatched": _case(
        "aten.max_pool1d_with_indices", X1[0], kernel_size=[3], stride=[]
    ),
    "max_pool1d": _case("aten.max_pool1d", X1, kernel_size=[3], stride=[2], padding=[1]),
    "max_pool2d": _case(
        "aten.max_pool2d", X2, kernel_size=[3, 2], stride=[2, 1], padding=[1, 1], ceil_mode=True
    ),
    "max_pool3d": _case("aten.max_pool3d", X3, kernel_size=[2], stride=[]),
    "adaptive_avg_pool2d_global": _case("aten.adaptive_avg_pool2d", X2, output_size=[1, 1]),
    "adaptive_avg_pool2d": _case("aten.adaptive_avg_pool2d", X2, output_size=[3, 4]),
    "adaptive_avg_pool3d_global": _case("aten.adaptive_avg_pool3d", X3, output_size=[1, 1, 1]),
    "adaptive_avg_pool3d": _case("aten.adaptive_avg_pool3d", X3, output_size=[2, 3, 4]),
    "adaptive_max_pool1d": _case("aten.adaptive_max_pool1d", X1, output_size=[4]),
    "adaptive_max_pool2d_uneven": _case("aten.adaptive_max_pool2d", X2, output_size=[3, 4]),
    "adaptive_max_pool2d_even": _case("aten.adaptive_max_pool2d", X2, output_size=[7, 3]),
    "adaptive_max_pool2d_unbatched": _case("aten.adaptive_max_pool2d", X2[0], output_size=[4, 5]),
    "adaptive_max_pool3d_uneven": _case("aten.adaptive_max_pool3d", X3, output_size=[2, 4, 3]),
    "adaptive_max_pool3d_mixed": _case("aten.adaptive_max_pool3d", X3, output_size=[5, 4, 7]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pooling_decomposition_matches_the_op(case):
    op_name, x, kwargs = CASES[case]
    _decompose_and_compare(op_name, [x], **kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_pooling_decomposition_with_dynamic_batch_and_channels(case):
    op_name, x, kwargs = CASES[case]
    spatial = int(op_name.split("pool")[1][0])  # aten.max_pool3d -> 3
    _decompose_and_compare(op_name, [x], dynamic=[range(x.dim() - spatial)], **kwargs)


@pytest.mark.parametrize("case", sorted(c for c in CASES if not c.startswith("adaptive_max")))
def test_pooling_decomposition_with_all_dims_dynamic(case):
    op_name, x, kwargs = CASES[case]
    _decompose_and_compare(op_name, [x], dynamic=True, **kwargs)


def test_adaptive_max_pool_with_dynamic_spatial_dims_is_not_applicable():
    program = single_op_program("aten.adaptive_max_pool2d", [X2], dynamic=True, output_size=[3, 4])
    assert '"aten.adaptive_max_pool2d"' in str(aten_mlir.decompose(program))


@pytest.mark.parametrize(
    "plane",
    [
        # NaNs in several rows and columns of one window: ATen reports the last NaN
        [[1.0, NAN, 2.0, NAN, 3.0], [NAN, 5.0, 5.0, 0.0, NAN], [4.0, 4.0, 4.0, 4.0, 4.0]],
        # all -inf: the window's first element; ties: the first maximum
        [[-INF] * 5, [-INF] * 5, [1.0, 1.0, 0.0, 1.0, 1.0]],
    ],
)
def test_adaptive_max_pool_indices_follow_aten_on_nan_and_ties(plane):
    x = torch.tensor([[plane]])
    _decompose_and_compare("aten.adaptive_max_pool2d", [x], output_size=[2, 3])


def test_adaptive_max_pool_double_and_half():
    for dtype in (torch.float64, torch.float16):
        _decompose_and_compare("aten.adaptive_max_pool2d", [X2.to(dtype)], output_size=[3, 5])


def _unpool_inputs(n: int):
    x = (X2, X3)[n - 2]
    pool = (torch.ops.aten.max_pool2d_with_indices, torch.ops.aten.max_pool3d_with_indices)[n - 2]
    return pool(x, [2] * n, [2] * n)


@pytest.mark.parametrize("dynamic", [False, True])
def test_max_unpool2d(dynamic):
    values, indices = _unpool_inputs(2)
    _decompose_and_compare("aten.max_unpool2d", [values, indices], dynamic, output_size=[7, 9])
    _decompose_and_compare(
        "aten.max_unpool2d", [values[0], indices[0]], dynamic, output_size=[8, 10]
    )


@pytest.mark.parametrize("dynamic", [False, True])
def test_max_unpool3d(dynamic):
    values, indices = _unpool_inputs(3)
    _decompose_and_compare(
        "aten.max_unpool3d",
        [values, indices],
        dynamic,
        output_size=[5, 6, 7],
        stride=[2, 2, 2],
        padding=[0, 0, 0],
    )


def test_max_unpool_with_repeated_indices_keeps_the_last_value():
    values = torch.tensor([[[[1.0, 2.0], [3.0, -0.0]]]])
    indices = torch.tensor([[[[0, 0], [5, 5]]]])
    _decompose_and_compare("aten.max_unpool2d", [values, indices], output_size=[3, 3])


FRACTIONAL_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("dtype", FRACTIONAL_DTYPES, ids=str)
def test_fractional_max_pool2d_windows_follow_the_samples(dtype):
    """The window starts are computed in the input's dtype as ATen's kernel does: large planes
    in half and bfloat16 are where a float32 recomputation would pick other windows."""
    for x, samples, kernel, out in [
        (X2, torch.rand(2, 3, 2, generator=torch.Generator().manual_seed(1)), [2, 3], [4, 3]),
        (X2[0], torch.tensor([[[0.0, 0.999], [0.5, 0.25], [0.9, 0.1]]]), [3, 2], [5, 8]),
        (_randn(1, 2, 300, 40), torch.tensor([[[0.7, 0.3], [0.123, 0.987]]]), [3, 3], [211, 31]),
    ]:
        tensors = [x.to(dtype), samples.to(dtype)]
        names = ["self", "random_samples"]
        _decompose_and_compare(
            "aten.fractional_max_pool2d", tensors, names=names, kernel_size=kernel, output_size=out
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_fractional_max_pool3d(dtype):
    samples = torch.rand(1, 2, 3, generator=torch.Generator().manual_seed(2))
    for x, out in [(X3, [3, 3, 5]), (X3[0], [3, 1, 4])]:
        tensors = [x.to(dtype), samples.to(dtype)]
        _decompose_and_compare(
            "aten.fractional_max_pool3d",
            tensors,
            names=["self", "random_samples"],
            kernel_size=[2, 3, 2],
            output_size=out,
        )


def test_fractional_max_pool_with_dynamic_batch_and_channels():
    samples = torch.rand(2, 3, 2, generator=torch.Generator().manual_seed(3))
    _decompose_and_compare(
        "aten.fractional_max_pool2d",
        [X2, samples],
        [[0, 1], [0, 1]],
        names=["self", "random_samples"],
        kernel_size=[2, 2],
        output_size=[6, 1],
    )


def test_pooling_opinfo_samples():
    check_opinfo_samples(
        [
            "nn.functional.max_pool1d",
            "nn.functional.max_pool2d",
            "nn.functional.max_pool3d",
            "nn.functional.adaptive_avg_pool2d",
            "nn.functional.adaptive_avg_pool3d",
            "nn.functional.adaptive_max_pool1d",
            "nn.functional.adaptive_max_pool2d",
            "nn.functional.adaptive_max_pool3d",
            "nn.functional.max_unpool1d",
            "nn.functional.max_unpool2d",
            "nn.functional.max_unpool3d",
            "nn.functional.fractional_max_pool2d",
            "nn.functional.fractional_max_pool3d",
        ],
        limit=1,
    )

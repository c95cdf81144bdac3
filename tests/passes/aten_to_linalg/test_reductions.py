"""Reduction, arg-reduction, softmax and cumsum lowerings against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers

NAN, INF = float("nan"), float("inf")


def _floats(*shape, seed=0, specials=True):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g)
    if specials:
        x.view(-1)[1:3] = torch.tensor([-0.0, INF])[: max(0, x.numel() - 1)]
    return x


def _with_nan(*shape):
    x = _floats(*shape, specials=False)
    x[1, 2] = NAN
    return x


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "op, kwargs",
    [
        ("aten.sum.dim_IntList", dict(dim=[1])),
        ("aten.sum.dim_IntList", dict(dim=None, keepdim=True)),
        ("aten.sum.dim_IntList", dict(dim=[0, 2], keepdim=True, dtype=torch.float64)),
        ("aten.mean.dim", dict(dim=[-1], keepdim=True)),
        ("aten.mean", {}),
        ("aten.prod.dim_int", dict(dim=2)),
        ("aten.amax", dict(dim=[0, 2])),
        ("aten.amin", dict(dim=[], keepdim=True)),
        ("aten.var.correction", dict(dim=[1], correction=0)),
        ("aten.var.dim", dict(dim=[0, 2], keepdim=True)),
        ("aten.var_mean.correction", dict(dim=None, correction=2)),
    ],
)
def test_float_reductions(op, kwargs, dynamic):
    # torch's Welford var_mean turns an inf mean into NaN: no inf for the var ops
    assert_lowers(op, [_floats(3, 4, 5, specials="var" not in op)], dynamic=dynamic, **kwargs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("op", ["aten.std.correction", "aten.std_mean.correction"])
def test_std_of_huge_values_is_finite(op, dtype):
    # ATen takes the root of a double variance: std of f32 values near 1e30 is finite though
    # their variance overflows f32 (the fuzzer's B5: inf)
    big = 1e30 if dtype != torch.float16 else 6e4
    x = torch.tensor([[-big, -2.7, -1.3, big / 2], [1.0, 2.0, 3.0, 4.0]], dtype=dtype)
    actual, _ = assert_lowers(op, [x], dim=[1], correction=1)
    first = actual[0] if isinstance(actual, (tuple, list)) else actual
    assert first.isfinite().all()


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("op", ["aten.var.correction", "aten.std.correction"])
def test_variance_of_equal_values_is_exactly_zero(op, dtype):
    # as ATen's Welford: rsqrt(var) of a constant row is inf, not 1e16 from a rounded mean
    x = torch.tensor([[0.1] * 7, [1 / 3] * 7, [123456.789] * 7], dtype=dtype)
    actual, _ = assert_lowers(op, [x], dim=[1], correction=1)
    assert (actual == 0).all()


@pytest.mark.parametrize("op", ["aten.amax", "aten.amin", "aten.sum.dim_IntList", "aten.mean.dim"])
def test_nan_propagates(op):
    assert_lowers(op, [_with_nan(3, 4)], dim=[1])


def test_reduced_precision_accumulates_in_f32():
    x = torch.rand(2, 300).half()
    assert_lowers("aten.sum.dim_IntList", [x], dim=[1], atol=0.1, rtol=1e-3)
    assert_lowers("aten.mean.dim", [x.bfloat16()], dim=[1], atol=1e-2, rtol=1e-2)


def test_large_f32_sum_is_accurate():
    # 1e5 terms: a sequential f32 loop drifts beyond rtol 1.3e-6 (torch sums pairwise)
    x = torch.randn(100_000, generator=torch.Generator().manual_seed(0))
    assert_lowers("aten.sum.dim_IntList", [x], dim=None)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.bool])
def test_int_and_bool_reductions(dtype):
    x = torch.randint(-5, 6, (3, 4), dtype=torch.int64).to(dtype)
    assert_lowers("aten.sum.dim_IntList", [x], dim=[1])  # ints/bools sum to int64
    assert_lowers("aten.prod.dim_int", [x], dim=0, keepdim=True)
    assert_lowers("aten.amax", [x], dim=[1])
    assert_lowers("aten.amin", [x], dim=[0])
    assert_lowers("aten.any.dim", [x], dim=1)
    assert_lowers("aten.max.dim", [x], dim=0)
    if dtype != torch.bool:  # torch has no argmax of bool
        assert_lowers("aten.argmax", [x], dim=1)


def test_any_variants():
    x = torch.tensor([[0.0, NAN, 0.0], [0.0, 0.0, 0.0]])
    assert_lowers("aten.any", [x])
    assert_lowers("aten.any.dims", [x], dim=[1], keepdim=True)
    assert_lowers("aten.any.dims", [x > 0], dim=None)
    assert_lowers("aten.any.dims", [x], dim=[])  # reduces nothing
    assert_lowers("aten.any.dim", [x], dynamic=True, dim=0)


def test_empty_reductions():
    e = torch.randn(3, 0)
    assert_lowers("aten.sum.dim_IntList", [e], dim=[1])
    assert_lowers("aten.prod.dim_int", [e], dim=1)
    assert_lowers("aten.any.dim", [e], dim=1)
    assert_lowers("aten.mean.dim", [e], dim=[1])  # NaN


def test_zero_dim_input():
    s = torch.tensor(2.5)
    assert_lowers("aten.sum.dim_IntList", [s], dim=[0])
    assert_lowers("aten.argmax", [s], dim=None)
    assert_lowers("aten.max.dim", [s], dim=0)
    assert_lowers("aten._softmax", [s], dim=0, half_to_float=False)
    assert_lowers("aten.cumsum", [s], dim=0)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("op", ["aten.argmax", "aten.argmin"])
def test_arg_reductions(op, dynamic):
    x = torch.tensor([[1.0, 3.0, 3.0, -INF], [NAN, 2.0, NAN, 0.0], [-INF, -INF, -INF, -INF]])
    assert_lowers(op, [x], dynamic=dynamic, dim=1)  # first index of ties, NaN wins
    assert_lowers(op, [x], dynamic=dynamic, dim=0, keepdim=True)
    assert_lowers(op, [x], dynamic=dynamic, dim=None)
    assert_lowers(op, [x], dynamic=dynamic, dim=None, keepdim=True)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("op", ["aten.max.dim", "aten.min.dim"])
def test_values_and_indices(op, dynamic):
    x = torch.tensor([[1.0, 3.0, 3.0], [NAN, 2.0, NAN], [0.0, -0.0, -1.0]])
    assert_lowers(op, [x], dynamic=dynamic, dim=1)
    assert_lowers(op, [_floats(2, 3, 4)], dynamic=dynamic, dim=-2, keepdim=True)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("op", ["aten._softmax", "aten._log_softmax"])
def test_softmax(op, dynamic):
    x = _floats(3, 4, 5, specials=False) * 30  # large logits: stable only after max subtraction
    assert_lowers(op, [x], dynamic=dynamic, dim=1, half_to_float=False)
    assert_lowers(op, [x], dynamic=dynamic, dim=-1, half_to_float=False)


def test_softmax_special_values_and_half():
    x = torch.tensor([[1.0, NAN, 0.0], [-INF, 0.0, 1.0], [-INF, -INF, -INF]])
    assert_lowers("aten._softmax", [x], dim=1, half_to_float=False)
    assert_lowers("aten._log_softmax", [x], dim=1, half_to_float=False)
    h = torch.randn(4, 6).half()  # (half_to_float=True has no CPU kernel to compare with)
    assert_lowers("aten._softmax", [h], dim=1, half_to_float=False, atol=1e-3, rtol=1e-3)
    assert_lowers("aten._log_softmax", [h], dim=0, half_to_float=False, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("dynamic", [False, True])
def test_cumsum(dynamic):
    assert_lowers("aten.cumsum", [_floats(3, 4, 5)], dynamic=dynamic, dim=1)
    assert_lowers("aten.cumsum", [_floats(3, 4, 5)], dynamic=dynamic, dim=-1, dtype=torch.float64)
    assert_lowers(
        "aten.cumsum", [torch.randint(-9, 9, (4, 3), dtype=torch.int32)], dynamic=dynamic, dim=0
    )


def test_cumsum_dtypes_and_empty():
    assert_lowers("aten.cumsum", [torch.rand(5, 4) > 0.5], dim=0)  # bool -> int64
    assert_lowers("aten.cumsum", [torch.randn(3, 40).half()], dim=1, atol=1e-2, rtol=1e-3)
    assert_lowers("aten.cumsum", [torch.randn(3, 0)], dim=1)
    assert_lowers("aten.cumsum", [torch.randn(0, 3)], dim=1)


def test_uint8_sums_and_extremes():
    x = torch.tensor([[0, 255, 128, 7], [200, 1, 255, 127]], dtype=torch.uint8)
    assert_lowers("aten.sum.dim_IntList", [x], dim=[1])
    assert_lowers("aten.sum.dim_IntList", [x], dim=[0], dtype=torch.uint8)  # wraps mod 256
    assert_lowers("aten.prod.dim_int", [x], dim=0)
    for op in ("aten.amax", "aten.amin"):
        assert_lowers(op, [x], dim=[1])
        assert_lowers(op, [x], dim=[0, 1], keepdim=True)

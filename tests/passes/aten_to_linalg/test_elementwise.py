"""Binary arithmetic, comparison, logical and bitwise lowerings against eager."""

import pytest
import torch

from .lowering_check import assert_lowers

NAN = float("nan")


def _floats(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g)
    x.view(-1)[:3] = torch.tensor([NAN, -0.0, float("inf")])[: x.numel()]
    return x


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(
    "op",
    [
        "aten.add.Tensor",
        "aten.sub.Tensor",
        "aten.mul.Tensor",
        "aten.div.Tensor",
        "aten.maximum",
        "aten.minimum",
        "aten.remainder.Tensor",
        "aten.fmod.Tensor",
        "aten.eq.Tensor",
        "aten.ne.Tensor",
        "aten.lt.Tensor",
        "aten.le.Tensor",
        "aten.gt.Tensor",
        "aten.ge.Tensor",
    ],
)
def test_binary_float(op, dynamic):
    assert_lowers(op, [_floats(3, 4), _floats(4, seed=1)], dynamic=dynamic)


@pytest.mark.parametrize(
    "op",
    [
        "aten.add.Tensor",
        "aten.sub.Tensor",
        "aten.mul.Tensor",
        "aten.div.Tensor",
        "aten.maximum",
        "aten.minimum",
        "aten.remainder.Tensor",
        "aten.fmod.Tensor",
        "aten.lt.Tensor",
        "aten.bitwise_and.Tensor",
        "aten.bitwise_or.Tensor",
        "aten.bitwise_xor.Tensor",
    ],
)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8])
def test_binary_int(op, dtype):
    a = torch.randint(-50, 50, (3, 4), dtype=dtype)
    b = torch.randint(1, 9, (3, 1), dtype=dtype) * (
        1 - 2 * torch.randint(0, 2, (3, 1), dtype=dtype)
    )
    assert_lowers(op, [a, b])


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_div_mode(mode, dtype):
    a = (torch.randn(5, 6) * 10).to(dtype)
    b = (torch.randn(6) * 3).to(dtype)
    if not dtype.is_floating_point:
        b[b == 0] = 3
    assert_lowers("aten.div.Tensor_mode", [a, b], rounding_mode=mode)


def test_scalar_promotion_and_alpha():
    a = torch.randint(-5, 5, (4,), dtype=torch.int32)
    assert_lowers("aten.add.Tensor", [a], other=2.5)
    assert_lowers("aten.sub.Tensor", [a, a], alpha=3)
    assert_lowers("aten.mul.Scalar", [torch.randn(3, 2).half()], other=3.0, atol=1e-3, rtol=1e-3)


def test_bool_ops():
    a = torch.tensor([True, False, True, False])
    b = torch.tensor([True, True, False, False])
    for op in [
        "aten.logical_and",
        "aten.logical_or",
        "aten.logical_xor",
        "aten.add.Tensor",
        "aten.mul.Tensor",
        "aten.maximum",
        "aten.eq.Tensor",
        "aten.lt.Tensor",
    ]:
        assert_lowers(op, [a, b])
    assert_lowers("aten.logical_not", [a])
    assert_lowers("aten.bitwise_not", [a])
    assert_lowers("aten.bitwise_not", [torch.arange(-3, 3, dtype=torch.int16)])


def test_where_broadcasts():
    c = torch.rand(3, 1) > 0.5
    assert_lowers("aten.where.self", [c, torch.randn(3, 4), torch.randn(4).double()])

"""Binary arithmetic, comparison, logical and bitwise lowerings against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers

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


# -- unsigned ints: computed widened (zero-extended), stored back as their own bytes -------------
def _bytes(seed, low=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(low, 256, (4, 6), generator=g, dtype=torch.uint8)
    x.view(-1)[:4] = torch.tensor([max(low, 0), 255, 128, 1], dtype=torch.uint8)
    return x


@pytest.mark.parametrize(
    "op, kwargs",
    [
        ("aten.add.Tensor", {}),
        ("aten.add.Tensor", {"alpha": 3}),
        ("aten.sub.Tensor", {}),
        ("aten.mul.Tensor", {}),
        ("aten.div.Tensor", {}),
        ("aten.div.Tensor_mode", {"rounding_mode": "floor"}),
        ("aten.div.Tensor_mode", {"rounding_mode": "trunc"}),
        ("aten.remainder.Tensor", {}),
        ("aten.fmod.Tensor", {}),
        ("aten.maximum", {}),
        ("aten.minimum", {}),
        ("aten.lt.Tensor", {}),
        ("aten.ge.Tensor", {}),
        ("aten.ne.Tensor", {}),
        ("aten.bitwise_and.Tensor", {}),
        ("aten.bitwise_xor.Tensor", {}),
        ("aten.logical_or", {}),
    ],
)
def test_uint8_binary(op, kwargs):
    # divisors are non-zero: integer division by zero raises in eager
    assert_lowers(op, [_bytes(0), _bytes(1, low=1)], **kwargs)


@pytest.mark.parametrize("other", [torch.int8, torch.int64, torch.float32, torch.bool])
def test_uint8_promotes_with_other_dtypes(other):
    b = torch.tensor([[-128, -1, 0, 1, 127, 5]]).to(other)
    for op in ("aten.add.Tensor", "aten.mul.Tensor", "aten.lt.Tensor", "aten.maximum"):
        assert_lowers(op, [_bytes(2)[:, :6], b])


def test_uint8_scalars_and_unary():
    x = _bytes(3)
    assert_lowers("aten.add.Scalar", [x], other=300)
    assert_lowers("aten.mul.Scalar", [x], other=2.5)
    assert_lowers("aten.bitwise_not", [x])
    assert_lowers("aten.logical_not", [x])
    assert_lowers("aten.where.self", [x > 100, x, _bytes(4)], names=["condition", "self", "other"])


def test_uint64_is_left_to_eager():
    from tests.support.lowering import compile_op

    x = torch.tensor([2**63 + 5, 7], dtype=torch.uint64)
    _, compiled = compile_op("aten.div.Tensor_mode", [x, x], rounding_mode="floor")
    assert [f.op for f in compiled.fallbacks] == ["aten.div.Tensor_mode"]


# -- complex: complex.* ops, lowered to arith on (re, im) by convert-complex-to-standard --------
def _complex(seed, dtype=torch.complex64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(3, 5, generator=g, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize(
    "op, kwargs",
    [
        ("aten.add.Tensor", {"alpha": 2}),
        ("aten.sub.Tensor", {}),
        ("aten.mul.Tensor", {}),
        ("aten.div.Tensor", {}),
        ("aten.eq.Tensor", {}),
        ("aten.ne.Tensor", {}),
    ],
)
def test_complex_binary(op, kwargs, dtype):
    a, b = _complex(0, dtype), _complex(1, dtype)
    b[0, 0] = a[0, 0]
    assert_lowers(op, [a, b], atol=1e-6, rtol=1e-5, **kwargs)


def test_complex_with_real_and_scalars():
    z, x = _complex(2), torch.randn(5)
    assert_lowers("aten.mul.Tensor", [z, x], atol=1e-6, rtol=1e-5)
    assert_lowers("aten.add.Tensor", [x, z], atol=1e-6, rtol=1e-5)
    assert_lowers("aten.mul.Scalar", [z], other=1j, atol=1e-6, rtol=1e-5)
    assert_lowers("aten.where.self", [x > 0, z, z * 2], names=["condition", "self", "other"])

"""Unary math lowerings (incl. pow and atan2) against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers, compile_op

NAN, INF = float("nan"), float("inf")

FLOAT_OPS = [
    "aten.exp",
    "aten.log",
    "aten.log2",
    "aten.log10",
    "aten.log1p",
    "aten.expm1",
    "aten.sqrt",
    "aten.rsqrt",
    "aten.reciprocal",
    "aten.sin",
    "aten.cos",
    "aten.tan",
    "aten.asin",
    "aten.acos",
    "aten.atan",
    "aten.sinh",
    "aten.cosh",
    "aten.asinh",
    "aten.acosh",
    "aten.atanh",
    "aten.tanh",
    "aten.erf",
    "aten.sigmoid",
]
SAME_DTYPE_OPS = [
    "aten.abs",
    "aten.neg",
    "aten.sign",
    "aten.ceil",
    "aten.floor",
    "aten.trunc",
    "aten.round",
]


def _floats(*shape, seed=0, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g) * scale
    x.view(-1)[:6] = torch.tensor([NAN, -0.0, INF, -INF, 0.5, -2.5])[: x.numel()]
    return x


@pytest.mark.parametrize("op", FLOAT_OPS + SAME_DTYPE_OPS + ["aten.isnan", "aten.isinf"])
def test_float32(op):
    assert_lowers(op, [_floats(4, 5)])


@pytest.mark.parametrize("op", ["aten.exp", "aten.log1p", "aten.abs", "aten.round", "aten.isinf"])
def test_dynamic(op):
    assert_lowers(op, [_floats(3, 4)], dynamic=True)


@pytest.mark.parametrize("op", ["aten.log1p", "aten.expm1"])
def test_no_cancellation(op):
    # math.log1p/expm1 lower to log(1 + x) / exp(x) - 1 in the LLVM stage: 1e-10 would give 0
    x = torch.tensor(
        [1e-10, -1e-10, 1e-30, 3e-8, 1e-5, -0.5, 30.0, 88.8, -100.0, -1.0, -2.0, 1e30, 3e38, -0.0]
    )
    assert_lowers(op, [x])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_other_floats(dtype):
    tol = {} if dtype == torch.float64 else {"atol": 1e-2, "rtol": 1e-2}
    for op in ["aten.exp", "aten.tanh", "aten.sigmoid", "aten.abs", "aten.round", "aten.log1p"]:
        assert_lowers(op, [_floats(2, 3).to(dtype)], **tol)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8])
def test_int_inputs(dtype):
    x = torch.tensor([-7, -1, 0, 1, 3, 100], dtype=dtype)
    for op in [
        "aten.exp",
        "aten.sqrt",
        "aten.sigmoid",
        "aten.abs",
        "aten.neg",
        "aten.sign",
        "aten.ceil",
        "aten.round",
        "aten.isnan",
        "aten.isinf",
        "aten.reciprocal",
    ]:
        assert_lowers(op, [x])


def test_bool_inputs():
    x = torch.tensor([True, False, True])
    for op in ["aten.exp", "aten.sign", "aten.isnan", "aten.sin"]:
        assert_lowers(op, [x])


def test_empty():
    assert_lowers("aten.exp", [torch.empty(0, 3)])


# -- pow --------------------------------------------------------------------------------------
@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -2, 0.5, -0.5, -1, 2.5, -1.7, 4, 0.0])
def test_pow_tensor_scalar_float(exponent):
    assert_lowers("aten.pow.Tensor_Scalar", [_floats(3, 4, seed=2)], exponent=exponent)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8])
def test_pow_int(dtype):
    x = torch.tensor([-3, -1, 0, 1, 2, 5], dtype=dtype)
    for e in [0, 1, 2, 3, 5]:
        assert_lowers("aten.pow.Tensor_Scalar", [x], exponent=e)
    assert_lowers("aten.pow.Tensor_Scalar", [x], exponent=0.5)  # promotes to float
    e = torch.tensor([-1, -2, -3, 0, 3, 2], dtype=dtype)
    assert_lowers("aten.pow.Tensor_Tensor", [x, e])
    assert_lowers("aten.pow.Scalar", [e.abs()], names=["exponent"], self=3)


def test_pow_tensor_tensor():
    assert_lowers("aten.pow.Tensor_Tensor", [_floats(3, 4).abs(), _floats(4, seed=1)])
    assert_lowers(
        "aten.pow.Tensor_Tensor", [_floats(3, 4), torch.tensor([2, 0, -1, 3])], dynamic=True
    )


def test_pow_scalar():
    e = _floats(3, 4)
    assert_lowers("aten.pow.Scalar", [e], names=["exponent"], self=2)
    assert_lowers("aten.pow.Scalar", [e], names=["exponent"], self=1)
    assert_lowers("aten.pow.Scalar", [e], names=["exponent"], self=0.5, dynamic=True)
    assert_lowers("aten.pow.Scalar", [e.half()], names=["exponent"], self=2.7, atol=1e-2, rtol=1e-2)


def test_pow_half():
    x = _floats(3, 4).abs().half()
    for e in [2, 0.5, 3.3]:
        assert_lowers("aten.pow.Tensor_Scalar", [x], exponent=e, atol=1e-2, rtol=1e-2)


# -- atan2 ------------------------------------------------------------------------------------
def test_atan2():
    a, b = _floats(3, 4), _floats(4, seed=3)
    assert_lowers("aten.atan2", [a, b])
    assert_lowers("aten.atan2", [a, b], dynamic=True)
    assert_lowers("aten.atan2", [torch.tensor([1, -2, 0]), torch.tensor([0, 3, -1])])


def test_atan2_out():
    a, b = _floats(3, 4), _floats(3, 4, seed=3)
    out = torch.full((3, 4), 7.0, dtype=torch.float64)
    program, compiled = compile_op("aten.atan2.out", [a, b, out], names=["self", "other", "out"])
    assert not compiled.fallbacks
    got = compiled(a, b, out.clone())
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, torch.atan2(a, b).double(), equal_nan=True)


# -- uint8 (read zero-extended) and complex operands ---------------------------------------------
@pytest.mark.parametrize(
    "op", ["aten.abs", "aten.neg", "aten.sign", "aten.floor", "aten.exp", "aten.sqrt", "aten.isnan"]
)
def test_uint8_operand(op):
    x = torch.tensor([[0, 1, 127, 128, 200, 255]], dtype=torch.uint8)
    assert_lowers(op, [x])


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("op", ["aten.abs", "aten.neg", "aten.exp", "aten.log", "aten.sqrt"])
def test_complex_operand(op, dtype):
    g = torch.Generator().manual_seed(0)
    z = torch.randn(4, 5, generator=g, dtype=dtype)
    z[0, :4] = torch.tensor([1 + 0j, -1 + 0j, 1j, -2 - 3j])
    assert_lowers(op, [z], atol=1e-6, rtol=1e-5)


def test_complex_ops_without_a_lowering_fall_back():
    z = torch.randn(3, dtype=torch.complex64)
    _, compiled = compile_op("aten.tan", [z])
    assert [f.op for f in compiled.fallbacks] == ["aten.tan"]

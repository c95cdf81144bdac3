"""Creation, copy and dtype-conversion lowerings against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers, assert_module_lowers, compile_op

NAN, INF = float("nan"), float("inf")
DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
    torch.complex64,
    torch.complex128,
    torch.complex32,
]


@pytest.mark.parametrize("to", DTYPES)
def test_to_copy_from_float(to):
    x = torch.tensor([300.0, -300.0, 1e10, NAN, 2.7, -2.7, 0.0, -0.0, 1e-3, 65519.0, 7e4, -INF])
    actual, expected = assert_lowers("aten._to_copy", [x], dtype=to)
    _same_bits(actual, expected)


def _same_bits(actual, expected):
    """Bit for bit, except NaN payloads (eager's bfloat16 conversion makes 0xFFFF)."""
    if expected.is_complex():  # parts compared as floats
        actual, expected = (torch.view_as_real(t.to(torch.complex64)) for t in (actual, expected))
    if expected.is_floating_point():
        nan = expected.isnan()
        assert torch.equal(nan, actual.isnan())
        actual, expected = actual[~nan], expected[~nan]
    assert torch.equal(actual.view(torch.uint8), expected.view(torch.uint8))


@pytest.mark.parametrize(
    "src",
    [
        torch.int64,
        torch.int8,
        torch.uint8,
        torch.bool,
        torch.float64,
        torch.float16,
        torch.bfloat16,
        torch.complex64,
        torch.complex128,
    ],
)
def test_to_copy_to_all(src):
    x = torch.tensor([1.0, -5.0, 0.0, 2.0**40 + 1, 0.1, 1.0 / 3]).to(src)
    for to in DTYPES:
        actual, expected = assert_lowers("aten._to_copy", [x], dtype=to)
        _same_bits(actual, expected)


def test_to_copy_dynamic_and_empty():
    assert_lowers("aten._to_copy", [torch.randn(3, 4)], dynamic=True, dtype=torch.int32)
    assert_lowers("aten._to_copy", [torch.empty(0, 4)], dtype=torch.bool)


def test_clone_alias():
    x = torch.randn(3, 4)
    assert_lowers("aten.clone", [x])
    assert_lowers("aten.clone", [x], dynamic=True)
    assert_lowers("aten.clone", [torch.tensor([True, False])])
    assert_lowers("aten.alias", [x])


def test_copy_broadcasts_and_casts():
    self_, src = torch.randn(3, 4), torch.randn(4).double()
    assert_lowers("aten.copy", [self_, src])
    assert_lowers("aten.copy", [self_, src], dynamic=True)
    assert_lowers("aten.copy", [self_.int(), torch.tensor([True, False, True, True])])
    assert_lowers("aten.copy", [self_ > 0, torch.randn(3, 1)])


def test_fills():
    x = torch.randn(3, 4)
    assert_lowers("aten.fill.Scalar", [x], value=2.5)
    assert_lowers("aten.fill.Scalar", [x.half()], value=0.1)
    assert_lowers("aten.fill.Scalar", [x.int()], value=7)
    assert_lowers("aten.fill.Scalar", [x > 0], value=True, dynamic=True)
    assert_lowers("aten.fill.Scalar", [x], value=NAN)
    assert_lowers("aten.full_like", [x], fill_value=3, dynamic=True)
    assert_lowers("aten.full_like", [x], fill_value=-INF, dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_full_scalar_tensor(dtype):
    value = True if dtype == torch.bool else 3
    assert_lowers("aten.full", [], size=[2, 3], fill_value=value, dtype=dtype)
    assert_lowers("aten.full", [], size=[0, 3], fill_value=value, dtype=dtype)
    assert_lowers("aten.scalar_tensor", [], s=value, dtype=dtype)
    assert_lowers("aten.scalar_tensor", [], s=1.25)


def test_empty():
    for op, kw in [("aten.empty.memory_format", {}), ("aten.empty_strided", {"stride": [1, 2]})]:
        for dtype in [torch.float32, torch.int32, torch.bool]:
            _, compiled = compile_op(op, [], size=[2, 3], dtype=dtype, **kw)
            assert not compiled.fallbacks
            out = compiled()
            assert out.shape == (2, 3) and out.dtype == dtype


@pytest.mark.parametrize(
    "start, end, step",
    [(0, 5, 1), (0, 1, 0.125), (10, -3, -2), (-4, 100, 3), (0.5, 20, 0.25), (0, 1, 0.1)],
)
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.float16, torch.bfloat16]
)
def test_arange(start, end, step, dtype):
    if not dtype.is_floating_point and isinstance(step, float):
        start, end, step = int(start), int(end * 4), 1  # the int variant of the case
    actual, expected = assert_lowers(
        "aten.arange.start_step", [], start=start, end=end, step=step, dtype=dtype
    )
    assert torch.equal(actual, expected)  # these cases are exact: bit for bit


def test_arange_inexact_steps():
    # eager's SIMD evaluation order may round the last bit differently
    assert_lowers("aten.arange.start_step", [], start=-3.7, end=5.2, step=0.3, dtype=torch.float32)
    assert_lowers(
        "aten.arange.start_step",
        [],
        start=-3.7,
        end=5.2,
        step=0.3,
        dtype=torch.float64,
        rtol=1e-12,
        atol=1e-12,
    )


def test_symbolic_sizes():
    class M(torch.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            return (
                torch.arange(0, n, 2) + 1,
                torch.full((n, 2), 1.5),
                torch.zeros_like(x),
                torch.arange(3, n + 3, dtype=torch.float32),
                torch.full((2, n), n, dtype=torch.float32),  # a symbolic fill value
                torch.arange(n, -1, -3),
            )

    dim = torch.export.Dim("n", min=3)
    assert_module_lowers(M(), [torch.randn(7, 2)], dynamic_shapes=({0: dim},))

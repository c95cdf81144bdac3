"""The device math helpers (`backends/triton/helpers.py`) against torch on CPU, in the Triton
interpreter: float32 and float64 blocks, with zeros, signed zeros, infinities, NaN, tiny and
large values."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

from aten_mlir.backends.triton.launch import helpers

triton.knobs.runtime.interpret = True
H = helpers()

SPECIAL = [0.0, -0.0, 1e-30, -1e-30, 1e-7, -1e-7, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 3.0, 20.0]
SPECIAL += [-20.0, 100.0, 1e30, -1e30, float("inf"), float("-inf"), float("nan")]


@triton.jit
def _unary(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    tl.store(out_ptr + i, FN(tl.load(x_ptr + i, mask=m)), mask=m)


UNARY = {
    "log10": (H.log10, torch.log10),
    "log1p": (H.log1p, torch.log1p),
    "expm1": (H.expm1, torch.expm1),
    "tanh": (H.tanh, torch.tanh),
    "sinh": (H.sinh, torch.sinh),
    "cosh": (H.cosh, torch.cosh),
    "asin": (H.asin, torch.asin),
    "acos": (H.acos, torch.acos),
    "atan": (H.atan, torch.atan),
    "asinh": (H.asinh, torch.asinh),
    "acosh": (H.acosh, torch.acosh),
    "atanh": (H.atanh, torch.atanh),
    "erfc": (H.erfc, torch.special.erfc),
    "trunc": (H.trunc, torch.trunc),
    "round_even": (H.round_even, torch.round),
    "rsqrt": (H.rsqrt, torch.rsqrt),
    "tan": (H.tan, torch.tan),
}


def _values(dtype):
    g = torch.Generator().manual_seed(0)
    random = torch.cat([torch.randn(40, generator=g) * 3, torch.rand(20, generator=g) * 2 - 1])
    return torch.cat([torch.tensor(SPECIAL), random]).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_helper_matches_torch(name, dtype):
    fn, reference = UNARY[name]
    x = _values(dtype)
    if name in ("erfc",):
        x = torch.cat([x, torch.linspace(0.4, 9.0, 20, dtype=dtype)])
    out = torch.empty_like(x)
    _unary[(1,)](x, out, x.numel(), FN=fn, BLOCK=128)
    tol = dict(rtol=2e-6, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-11, atol=1e-12)
    torch.testing.assert_close(out, reference(x), equal_nan=True, **tol)


@triton.jit
def _binary(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    z = FN(tl.load(x_ptr + i, mask=m), tl.load(y_ptr + i, mask=m))
    tl.store(out_ptr + i, z, mask=m)


BINARY = {
    "atan2": (H.atan2, torch.atan2),
    "fmod": (H.fmod, torch.fmod),
    "maximum_nan": (H.maximum_nan, torch.maximum),
    "minimum_nan": (H.minimum_nan, torch.minimum),
    "powf": (H.powf, torch.pow),
    "copysign": (H.copysign, torch.copysign),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_helper_matches_torch(name, dtype):
    fn, reference = BINARY[name]
    x = _values(dtype)
    y = x.flip(0)
    if name == "powf":  # integral exponents on negative bases, and fractional ones
        y = torch.where(torch.arange(x.numel()) % 2 == 0, y.round().clamp(-5, 5), y.clamp(-3, 3))
        x = x.clamp(-50, 50)
    out = torch.empty_like(x)
    _binary[(1,)](x, y, out, x.numel(), FN=fn, BLOCK=128)
    tol = dict(rtol=4e-6, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-11, atol=1e-12)
    torch.testing.assert_close(out, reference(x, y), equal_nan=True, **tol)


class _ScalarWithBlock(torch.nn.Module):
    """A 0-d operand against a vector: the kernel mixes a scalar and a block in one op."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, a, b):
        return self.fn(a, b)


@pytest.mark.parametrize(
    "fn", [torch.logical_or, torch.logical_xor, torch.atan2, torch.fmod, torch.remainder]
)
def test_scalar_operand_mixed_with_a_block(fn):
    import aten_mlir

    a = torch.tensor(3.5)
    b = torch.tensor([-2.0, 0.0, 0.5, float("inf"), -0.0])
    model = _ScalarWithBlock(fn)
    compiled = aten_mlir.compile(torch.export.export(model, (a, b)), target="triton")
    torch.testing.assert_close(compiled(a, b), fn(a, b), equal_nan=True)


def test_scan_writing_through_a_view_made_per_iteration():
    """`cumulative_trapezoid` is a serial scan storing each prefix through a rank-0 subview of
    the output made inside the loop: not an accumulator to keep in a register."""
    import aten_mlir

    class Scan(torch.nn.Module):
        def forward(self, y):
            return torch.cumulative_trapezoid(y, dx=2.0)

    y = torch.randn(7, dtype=torch.float64)
    compiled = aten_mlir.compile(torch.export.export(Scan(), (y,)), target="triton")
    torch.testing.assert_close(compiled(y), Scan()(y))


@triton.jit
def _to_bf16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    tl.store(out_ptr + i, H.to_bf16(tl.load(x_ptr + i, mask=m)), mask=m)


def test_bfloat16_rounds_to_nearest_even():
    # halfway cases both ways, values truncation gets wrong, overflow to inf, NaN; no
    # denormals: the interpreter's own bfloat16 conversion mangles them (a GPU's is exact)
    x = torch.tensor(
        [-8.4784, 1.00390625, 1.01171875, -2.3950, 3.3961e38, *SPECIAL, *torch.randn(64)]
    )
    out = torch.empty(x.numel(), dtype=torch.bfloat16)
    _to_bf16[(1,)](x, out, x.numel(), BLOCK=128)
    torch.testing.assert_close(out, x.to(torch.bfloat16), atol=0, rtol=0, equal_nan=True)


@triton.jit
def _ctlz(x_ptr, out_ptr, n, BITS: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    unsigned = tl.uint64 if BITS == 64 else tl.uint32
    tl.store(out_ptr + i, H.ctlz(x.to(unsigned, bitcast=True), BITS), mask=m)


@pytest.mark.parametrize("dtype, bits", [(torch.int64, 64), (torch.int32, 32)])
def test_ctlz_counts_leading_zero_bits(dtype, bits):
    values = [0, 1, 2, 3, 4099, 2**20 + 5, 2 ** (bits - 2), -1, -(2 ** (bits - 1))]
    x = torch.tensor(values, dtype=dtype)
    out = torch.empty(x.numel(), dtype=torch.int32)
    _ctlz[(1,)](x, out, x.numel(), BITS=bits, BLOCK=16)
    expected = [bits - (v % 2**bits).bit_length() for v in values]
    assert out.tolist() == expected


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64])
def test_integer_power_with_an_exponent_per_lane(dtype):
    # the loop runs until every lane's exponent is used up; a block condition would never end
    # in the interpreter (and does not compile)
    x = torch.arange(-4, 5, dtype=dtype).repeat(5)
    y = torch.arange(45, dtype=dtype) % 7
    out = torch.empty_like(x)
    _binary[(1,)](x, y, out, x.numel(), FN=H.powi, BLOCK=64)
    torch.testing.assert_close(out, torch.pow(x, y), atol=0, rtol=0)

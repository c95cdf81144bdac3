"""AVX-512 forms in row loops: vcvtneps2bf16 (`cpu-native-bf16-rounding`, integer rounding for
rows holding subnormals), vscalefps in exp (`fast_math`), integer-keyed max/min reductions
(`float_extrema`): same values as eager, NaN, inf and signed zeros included."""

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.target import cpu_target
from tests.modules import Fn

needs_bf16 = pytest.mark.skipif(not cpu_target().avx512_bf16, reason="host without AVX512-BF16")


def _compile(fn, *args, dump_dir=None):
    ep = torch.export.export(Fn(fn), args)
    return aten_mlir.compile(ep, cache=False, dump_dir=dump_dir)


@needs_bf16
@pytest.mark.parametrize("n", [16, 64, 100, 257])
def test_bf16_rounding_is_native_and_keeps_subnormals(n, tmp_path):
    x = torch.randn(3, n).bfloat16()
    x[1, n // 3] = 2.9387e-39  # a subnormal lane: that register takes the integer rounding
    x[2, 0] = float("nan")
    fn = lambda x: x * 1.5  # noqa: E731
    compiled = _compile(fn, x, dump_dir=tmp_path)
    out, ref = compiled(x), fn(x)
    assert torch.equal(out.isnan(), ref.isnan())
    assert torch.equal(out.nan_to_num(), ref.nan_to_num())
    assert out[1, n // 3] != 0
    (llvm,) = tmp_path.glob("*-llvm.mlir")
    assert "cvtneps2bf16" in llvm.read_text()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("n", [1, 7, 17, 33, 100, 257])
def test_softmax_and_extrema_rows_like_eager(dtype, n):
    x = torch.randn(6, n, dtype=dtype) * 4
    x[1, n // 2] = float("nan")
    x[2, :] = -0.0
    x[2, n - 1] = 0.0
    x[3, 0] = float("inf")
    x[4, :] = float("-inf")
    x[5, :] = 0.0
    x[5, 0] = -0.0

    def fn(x):
        return torch.amax(x, -1), torch.amin(x, -1), torch.softmax(x, -1), torch.exp(x)

    tol = dict(atol=1e-2, rtol=1.6e-2) if dtype == torch.bfloat16 else dict(atol=1e-6, rtol=2e-6)
    for i, (o, r) in enumerate(zip(_compile(fn, x)(x), fn(x))):
        assert torch.equal(o.isnan(), r.isnan()), i
        torch.testing.assert_close(o.nan_to_num(), r.nan_to_num(), **tol)
        if i < 2:  # max and min exactly (a zero's sign is not compared: eager's amax keeps
            # the first zero, `arith.maximumf` orders -0 below +0, before this change as well)
            assert torch.equal(o.nan_to_num(), r.nan_to_num()), i


def test_exp_keeps_denormal_results_and_overflow():
    x = torch.tensor([[-87.5, -100.0, -103.9, -104.5, 88.7, 88.8, 89.0, 0.0] * 2])
    out = _compile(torch.exp, x)(x)
    torch.testing.assert_close(out, torch.exp(x), atol=0, rtol=2.5e-7)
    assert out[0, 1] > 0 and torch.isinf(out[0, 5])


def test_exp_of_lanes_that_round_to_zero_beside_subnormal_and_normal_ones():
    """A register whose lanes mix exp results that round to 0 (x < -103.972, as a masked
    attention row's x + finfo.min), subnormal ones (around -103.97 to -87.3) and normal ones:
    the first are selected to 0, the others keep their multiplies. Every f32 in
    [-104.05, -103.90] (the boundary) and a mixed register, compared bit for bit with eager."""
    edge = torch.arange(-104.05, -103.90, 1e-5, dtype=torch.float64).float().unique()
    mixed = torch.tensor([-3.4e38, -104.0, -103.97, -103.9, -90.0, -87.3, -1.0, 0.5] * 2)
    for x in (edge, mixed, torch.cat([mixed, -mixed.abs() - 200, -torch.tensor([float("inf")])])):
        x = x.reshape(1, -1)
        out = _compile(torch.exp, x)(x)
        assert torch.equal(out, torch.exp(x)), (x[out != torch.exp(x)], out[out != torch.exp(x)])

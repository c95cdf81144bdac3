"""Real and complex FFTs lowered to DFT reductions: every norm, odd/even sizes, multi-dim,
one-sided and two-sided, dynamic sizes; compared with eager (pocketfft)."""

import pytest
import torch

from tests.modules import Fn
from tests.support.lowering import assert_lowers, assert_module_lowers

# f32 results are sums of n terms computed in f64 and rounded once: a few ulps of the largest
# magnitude (pocketfft's own f32 error is of the same order).
TOL = dict(atol=2e-5, rtol=2e-5)


REAL_INPUT = {
    "rfft": lambda x: torch.fft.rfft(x),
    "rfft_n7_ortho": lambda x: torch.fft.rfft(x, n=7, norm="ortho"),
    "fft_of_real": lambda x: torch.fft.fft(x, dim=0, norm="forward"),
    "rfft2": lambda x: torch.fft.rfft2(x),
    "rfftn_3d": lambda x: torch.fft.rfftn(x.reshape(2, 3, -1), norm="ortho"),
    "ihfft": lambda x: torch.fft.ihfft(x),
    "irfft_of_rfft": lambda x: torch.fft.irfft(torch.fft.rfft(x), n=x.shape[-1]),
}


@pytest.mark.parametrize("name", sorted(REAL_INPUT))
@pytest.mark.parametrize("n", [8, 9])
def test_real_input_transforms(name, n):
    assert_module_lowers(Fn(REAL_INPUT[name]), [torch.randn(6, n)], **TOL)


COMPLEX_INPUT = {
    "irfft": lambda z: torch.fft.irfft(z),
    "irfft_n9_forward": lambda z: torch.fft.irfft(z, n=9, norm="forward"),
    "irfft2": lambda z: torch.fft.irfft2(z),
    "irfftn_odd": lambda z: torch.fft.irfftn(z, s=(5, 7), norm="ortho"),
    "hfft": lambda z: torch.fft.hfft(z),
    "fft": lambda z: torch.fft.fft(z),
    "ifft2": lambda z: torch.fft.ifft2(z, norm="ortho"),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_INPUT))
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_input_transforms(name, dtype):
    z = torch.randn(5, 5, dtype=dtype)
    tol = TOL if dtype == torch.complex64 else dict(atol=1e-12, rtol=1e-12)
    assert_module_lowers(Fn(COMPLEX_INPUT[name]), [z], **tol)


def test_dynamic_sizes():
    b, n = torch.export.Dim("b"), torch.export.Dim("n", min=2)
    x = torch.randn(3, 10)
    assert_module_lowers(
        Fn(lambda x: torch.fft.irfft(torch.fft.rfft(x, norm="ortho"))),
        [x],
        dynamic_shapes=(({0: b, 1: n},),),
        **TOL,
    )
    assert_module_lowers(Fn(torch.fft.rfft2), [x], dynamic_shapes=(({0: b, 1: n},),), **TOL)


@pytest.mark.parametrize("onesided", [True, False])
@pytest.mark.parametrize("normalization", [0, 1, 2])
def test_r2c_single_op(onesided, normalization):
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    assert_lowers(
        "aten._fft_r2c",
        [x],
        dim=[0, 2],
        normalization=normalization,
        onesided=onesided,
        atol=1e-12,
        rtol=1e-12,
    )


@pytest.mark.parametrize("last_dim_size", [6, 7])
def test_c2r_single_op_dynamic(last_dim_size):
    z = torch.randn(3, 4, dtype=torch.complex128)
    assert_lowers(
        "aten._fft_c2r",
        [z],
        dynamic=True,
        dim=[0, 1],
        normalization=2,
        last_dim_size=last_dim_size,
        atol=1e-12,
        rtol=1e-12,
    )


def test_impulse_and_constant_exact_spectra():
    # the DFT of an impulse is all ones, and of a constant an impulse of size n
    x = torch.zeros(1, 16)
    x[0, 0] = 1
    compiled = assert_module_lowers(Fn(torch.fft.rfft), [x], **TOL)
    torch.testing.assert_close(compiled(x), torch.ones(1, 9, dtype=torch.complex64))
    spectrum = compiled(torch.full((1, 16), 0.5))
    torch.testing.assert_close(spectrum[0, 0], torch.tensor(8 + 0j))
    torch.testing.assert_close(
        spectrum[0, 1:], torch.zeros(8, dtype=torch.complex64), atol=1e-6, rtol=0
    )

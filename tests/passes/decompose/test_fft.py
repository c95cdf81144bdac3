"""Each FFT decomposition equals the op it replaces (eager kernels on both sides): real, complex
and integer inputs, every `norm`, inputs cut and zero-padded by `n` / `s`, `?` dims; real inputs
leave only core ops (`_fft_r2c` / `_fft_c2r`), complex ones at most the kept-whole `_fft_c2c`;
the FFT OpInfo samples decompose to core."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

_GEN = torch.Generator().manual_seed(0)
REAL = torch.randn(3, 6, 5, generator=_GEN)
COMPLEX = torch.randn(3, 6, 5, dtype=torch.complex64, generator=_GEN)
INTS = torch.randint(-5, 5, (4, 6), generator=_GEN).to(torch.int32)
SPECIAL = torch.tensor([[0.0, -0.0, 1e30, -1e-30, 3.0, 2.0], [1.0, float("inf"), 0.0, 1, 2, 3]])

# The op's kwargs to try, for every op of the family.
ONE_DIM = [{}, {"n": 4, "dim": 1, "norm": "ortho"}, {"n": 8, "dim": 0, "norm": "forward"}]
N_DIM = [{}, {"s": [4, -1], "norm": "ortho"}, {"dim": [0, 2], "s": [5, 7], "norm": "forward"}]
REAL_ONLY = {"rfft", "ihfft"}  # no complex input
NAMES = ["fft", "ifft", "rfft", "ihfft", "irfft", "hfft"]

CASES = (
    [(f"aten.fft_{n}", REAL, kw) for n in NAMES for kw in ONE_DIM]
    + [(f"aten.fft_{n}n", REAL, kw) for n in NAMES for kw in N_DIM]
    + [(f"aten.fft_{n}2", REAL, {"norm": "ortho"}) for n in NAMES]
    + [(f"aten.fft_{n}", COMPLEX, {"n": 7}) for n in NAMES if n not in REAL_ONLY]
    + [(f"aten.fft_{n}n", COMPLEX, {"dim": [0, 2]}) for n in NAMES if n not in REAL_ONLY]
    + [(f"aten.fft_{n}", INTS, {}) for n in ("fft", "ifft", "rfft", "ihfft")]
    + [(f"aten.fft_{n}", SPECIAL, {}) for n in NAMES]
)
C2C = {"aten._fft_c2c"}


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def check(op_name, x, kwargs, dynamic=False):
    """`check_decomposition`; a complex-to-complex transform stays as `C2C`, nothing else."""
    complex_in = x.is_complex() and op_name.split("_")[-1] in ("fft", "ifft", "fftn", "ifftn")
    left = C2C if complex_in else set()
    check_decomposition(op_name, [x], kwargs, dynamic, left=left, atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize(("op_name", "x", "kwargs"), CASES, ids=_ids(CASES))
def test_fft_decomposition_matches_the_op(op_name, x, kwargs):
    check(op_name, x, kwargs)


@pytest.mark.parametrize(("op_name", "x", "kwargs"), CASES, ids=_ids(CASES))
def test_fft_decomposition_with_dynamic_dims(op_name, x, kwargs):
    check(op_name, x, kwargs, dynamic=True)


def test_inverse_of_real_input_is_the_reversed_forward_transform():
    """ifft of a real signal needs no conj: r2c of x[-n mod N], no complex op left."""
    program = single_op_program("aten.fft_ifft", [REAL])
    decomposed = aten_mlir.decompose(program)
    names = [op.name for op in ops_outside(decomposed.module.operation, frozenset())]
    assert "aten.flip" in names and "aten._fft_r2c" in names
    assert not any("conj" in n for n in names)


FREQ_CASES = [
    ("aten.fft_fftfreq", {"n": 7, "d": 0.3}),
    ("aten.fft_fftfreq", {"n": 8}),
    ("aten.fft_fftfreq", {"n": 1, "dtype": torch.float64}),
    ("aten.fft_rfftfreq", {"n": 7, "d": 2.0}),
    ("aten.fft_rfftfreq", {"n": 10, "d": 0.1}),
]


@pytest.mark.parametrize(("op_name", "kwargs"), FREQ_CASES, ids=_ids(FREQ_CASES))
def test_fft_frequencies(op_name, kwargs):
    program = single_op_program(op_name, [], **kwargs)
    expected = aten_mlir.run_reference(program)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set())
    actual = aten_mlir.run_reference(decomposed)
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual, expected, rtol=0, atol=0)


FFT_OPINFOS = (
    "fft.fft fft.ifft fft.rfft fft.irfft fft.hfft fft.ihfft fft.fft2 fft.ifft2 fft.rfft2 "
    "fft.irfft2 fft.hfft2 fft.ihfft2 fft.fftn fft.ifftn fft.rfftn fft.irfftn fft.hfftn fft.ihfftn"
).split()


def test_fft_opinfo_samples_decompose_to_core():
    check_opinfo_samples(FFT_OPINFOS, limit=2)


SIGNAL = torch.randn(2, 40, generator=_GEN)
WINDOW = torch.hann_window(12)
STFT_CASES = [
    (SIGNAL, [], {"n_fft": 16, "return_complex": True}),
    (SIGNAL[0], [], {"n_fft": 10, "hop_length": 3, "return_complex": True}),
    (SIGNAL, [WINDOW], {"n_fft": 16, "win_length": 12, "normalized": True, "return_complex": True}),
    (SIGNAL, [torch.ones(16)], {"n_fft": 16, "onesided": False, "return_complex": True}),
    (SIGNAL, [], {"n_fft": 8, "hop_length": 5, "return_complex": False}),
]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize(("x", "extra", "kwargs"), STFT_CASES, ids=[str(i) for i in range(5)])
def test_stft_decomposition_matches_the_op(x, extra, kwargs, dynamic):
    """Frames by `unfold`, window, one `_fft_r2c`; only `view_as_real` (kept) may remain.
    `dynamic`: a `?` batch dim (1-d signals have none)."""
    names = ["self"] + (["window"] if extra else [])
    dims = [range(x.dim() - 1) if dynamic else ()] + [()] * len(extra)
    program = single_op_program("aten.stft", [x, *extra], dynamic=dims, names=names, **kwargs)
    expected = aten_mlir.run_reference(program, x, *extra)
    decomposed = aten_mlir.decompose(program)
    left = {op.name for op in ops_outside(decomposed.module.operation, target_set())}
    assert left == ({"aten.view_as_real"} if not kwargs["return_complex"] else set())
    actual = aten_mlir.run_reference(decomposed, x, *extra)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    torch.testing.assert_close(actual, expected, atol=1e-4, rtol=1e-5)


def test_stft_opinfo_samples_decompose():
    check_opinfo_samples(["stft"], limit=None, allow_kept_whole=True)

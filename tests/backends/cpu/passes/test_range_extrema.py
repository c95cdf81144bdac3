"""f32 vector maximumf/minimumf as vrangeps plus a NaN fix (range_extrema.py, run by
`cpu-fast-math`): every pair of special values, NaN anywhere in reduced rows, softmax and
amax/amin at odd and dynamic row lengths, against eager, with the rewrite on and off."""

from __future__ import annotations

import math
import re

import pytest
import torch

import aten_mlir
from tests.modules import Fn

INF, NAN = math.inf, math.nan
SPECIALS = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e-45, -1e-45, 1.17e-38, 3.4e38, -2.5, 2.0]


def _has_dq() -> bool:
    from aten_mlir.backends.cpu.target import cpu_target

    return "avx512dq" in cpu_target().features


@pytest.fixture(params=["range", "llvm"])
def form(request, monkeypatch):
    if request.param == "range" and not _has_dq():
        pytest.skip("vrangeps needs AVX512DQ")
    monkeypatch.setenv("ATEN_MLIR_RANGE_EXTREMA", "1" if request.param == "range" else "0")
    return request.param


def _compile(fn, *examples, dump_dir=None, dynamic=None):
    ep = torch.export.export(Fn(fn), examples, dynamic_shapes=dynamic)
    return aten_mlir.compile(ep, target="cpu", cache=False, dump_dir=dump_dir)


def _ieee(a: torch.Tensor, b: torch.Tensor, is_max: bool) -> torch.Tensor:
    """IEEE 754-2019 maximum/minimum (arith.maximumf): NaN if either is NaN, -0 < +0."""
    pick = torch.maximum(a, b) if is_max else torch.minimum(a, b)
    zeros = (a == 0) & (b == 0)
    signed = torch.where(
        torch.signbit(a) & torch.signbit(b) if is_max else torch.signbit(a) | torch.signbit(b),
        torch.tensor(-0.0),
        torch.tensor(0.0),
    )
    pick = torch.where(zeros, signed, pick)
    return torch.where(a.isnan() | b.isnan(), torch.tensor(NAN), pick)


def _bits_equal(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    same = actual.view(torch.int32) == expected.view(torch.int32)
    return bool((same | (actual.isnan() & expected.isnan())).all())


@pytest.mark.parametrize("n", [16, 33, 169])
def test_every_pair_of_specials(form, n):
    """Elementwise max/min of each pair of specials (NaN either side, +-0 both orders, infs,
    denormals) in 16-lane registers and in a row's rest. vrangeps orders -0 below +0 as
    `maximumf` defines; LLVM's expansion (and eager's vector kernel) returns either zero."""
    s = torch.tensor(SPECIALS)
    a, b = s.repeat_interleave(len(s)), s.repeat(len(s))
    a, b = a.repeat(n // len(a) + 1)[:n], b.repeat(n // len(b) + 1)[:n]
    compiled = _compile(lambda x, y: (torch.maximum(x, y), torch.minimum(x, y)), a, b)
    got_max, got_min = compiled(a, b)
    for got, expected in ((got_max, _ieee(a, b, True)), (got_min, _ieee(a, b, False))):
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)
        if form == "range":
            assert _bits_equal(got, expected)


@pytest.mark.parametrize("width", [1, 7, 33, 129, 1024])
def test_reductions_with_nan_and_inf_anywhere(form, width):
    """amax/amin of rows with a NaN at the first, a middle and the last position, rows of
    -inf and of +-0: NaN where eager has NaN, the same value elsewhere."""
    torch.manual_seed(width)
    x = torch.randn(8, width)
    x[1, 0] = NAN
    x[2, width // 2] = NAN
    x[3, -1] = NAN
    x[4] = -INF
    x[5] = -0.0
    x[6, width // 3] = INF
    compiled = _compile(lambda v: (v.amax(-1), v.amin(-1)), x)
    for got, expected in zip(compiled(x), (x.amax(-1), x.amin(-1))):
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("width", [7, 33, 129, 1000])
def test_softmax_matches_eager(form, dtype, width):
    torch.manual_seed(0)
    x = (torch.randn(6, width) * 4).to(dtype)
    x[1, width // 2] = NAN
    x[2, : width // 2] = -INF  # a masked row
    x[3] = -0.0
    compiled = _compile(lambda v: torch.softmax(v, -1), x)
    tol = {"rtol": 1.3e-6, "atol": 1e-6} if dtype == torch.float32 else {}
    torch.testing.assert_close(compiled(x), torch.softmax(x, -1), equal_nan=True, **tol)


def test_dynamic_rows(form):
    """A `?` row length: the main loop's registers take vrangeps, the masked rest too."""
    dim = torch.export.Dim("n", min=1, max=4096)
    x = torch.randn(3, 77)
    compiled = _compile(lambda v: (v.amax(-1), torch.softmax(v, -1)), x, dynamic=(({1: dim},),))
    for width in (1, 7, 16, 33, 77, 129, 200):
        v = torch.randn(3, width)
        v[1, width - 1] = NAN
        got_max, got_softmax = compiled(v)
        torch.testing.assert_close(got_max, v.amax(-1), equal_nan=True, rtol=0, atol=0)
        torch.testing.assert_close(got_softmax, torch.softmax(v, -1), equal_nan=True)


def test_range_in_lowered_ir(tmp_path, monkeypatch):
    """With AVX512DQ the row max of a softmax is `vrangeps` (four registers of a 64-lane step),
    and no vector compare-and-select form of `maximumf` (arith-expand's `ugt` compare) is left
    (the scalar one joining the row's partial max stays); with the knob off it stays."""
    if not _has_dq():
        pytest.skip("vrangeps needs AVX512DQ")
    x = torch.randn(4, 256)
    for knob, expect in (("1", True), ("0", False)):
        monkeypatch.setenv("ATEN_MLIR_RANGE_EXTREMA", knob)
        out = tmp_path / knob
        _compile(lambda v: torch.softmax(v, -1), x, dump_dir=out)
        llvm = next(out.glob("*-llvm.mlir")).read_text()
        ranges = len(re.findall(r"llvm\.x86\.avx512\.mask\.range\.ps\.512", llvm))
        assert (ranges > 0) == expect, ranges
        expanded = re.search(r'llvm\.fcmp "ugt" .*vector<', llvm)
        assert (expanded is None) == expect

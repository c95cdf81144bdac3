"""`cpu-narrow-extrema` (`backends/cpu/passes/narrow_extrema.py`): the max/min lane loops of
bf16/f16 rows on 16-bit integer keys; the same values as the f32 maximumf/minimumf loop (NaN of
either sign, infinities, signed zeros)."""

from __future__ import annotations

import re

import pytest
import torch

import aten_mlir
from tests.modules import Fn


def _amax(x):
    return x.float().amax(-1)


def _amin(x):
    return x.float().amin(-1)


def _softmax(x):
    return torch.softmax(x, -1)


def _compile(fn, x, tmp_path, monkeypatch, on=True):
    with monkeypatch.context() as m:
        m.setenv("ATEN_MLIR_NARROW_EXTREMA", "1" if on else "0")
        ep = torch.export.export(Fn(fn), (x,))
        program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "06-loops.mlir").read_text()


def _rows(width: int, dtype) -> torch.Tensor:
    x = torch.randn(9, width) * 3
    x[0, width // 2] = float("nan")
    x[1, width - 1] = -float("nan")  # sign bit set: below -inf as a key
    x[2, :] = float("-inf")
    x[3, :] = float("inf")
    x[4, width // 3] = float("inf")
    x[5, width // 3] = float("-inf")
    x[6, :] = 0.0
    x[6, ::2] = -0.0
    x[7, :] = -0.0
    x[8, :] = -1e30 if dtype == torch.bfloat16 else -60000.0
    return x.to(dtype)


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.int32)


@pytest.mark.parametrize("fn", [_amax, _amin])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("width", [4, 7, 33, 64, 100, 257, 512, 1000])
def test_extrema_on_keys(tmp_path, monkeypatch, fn, dtype, width):
    x = _rows(width, dtype)
    program, text = _compile(fn, x, tmp_path / "on", monkeypatch)
    if width >= 128:  # a lane loop of two or more steps
        kind = "maxsi" if fn is _amax else "minsi"
        assert re.search(rf"arith\.{kind} %\S+, %\S+ : vector<\d+xi16>", text)
        assert "maximumf %arg" not in text and "minimumf %arg" not in text
    if width % 64 == 0 and width >= 128:  # no masked rest step between the loop and the tree
        # the horizontal step too: the row's key, not 64 f32 lanes
        assert re.search(rf"vector\.reduction <{kind}>, %\S+ : vector<\d+xi16> into i16", text)
        assert not re.search(r"vector\.reduction <(max|min)si>, %\S+ : vector<\d+xi32>", text)
    reference, _ = _compile(fn, x, tmp_path / "off", monkeypatch, on=False)
    got, old, want = program(x), reference(x), fn(x)
    assert torch.equal(_bits(got), _bits(old))  # signed zeros and NaN bits too
    torch.testing.assert_close(got, want, equal_nan=True, atol=0, rtol=0)
    assert got[0].isnan() and got[1].isnan()  # +NaN and -NaN rows


@pytest.mark.parametrize("width", [7, 128, 257])
def test_bf16_softmax_rows(tmp_path, monkeypatch, width):
    x = _rows(width, torch.bfloat16)
    program, text = _compile(_softmax, x, tmp_path, monkeypatch)
    assert "xi16>" in text
    torch.testing.assert_close(program(x), _softmax(x), equal_nan=True)

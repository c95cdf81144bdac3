"""bf16 convolutions on AMX tiles (`backends/cpu/passes/amx_conv.py`): im2col per image, then
the AMX kernel; values as close to float64 as eager's (oneDNN), odd sizes, strides,
dilations, a `?` batch."""

from __future__ import annotations

import copy

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.backends.cpu.passes.test_amx import requires_amx
from tests.support.narrow_products import assert_close_as_eager


def _compile(model, x, tmp_path, dynamic=None):
    ep = torch.export.export(model, (x,), dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return program, (tmp_path / "05-vectorize.mlir").read_text()


def _check(program, model, x) -> None:
    exact = copy.deepcopy(model).double()
    with torch.no_grad():
        assert_close_as_eager(program(x), model(x), exact(x.double()))


CASES = [
    # (in, out, kernel, stride, padding, dilation, batch, size)
    (32, 64, 3, 1, 1, 1, 2, 28),  # whole 32 blocks: result tiles in place
    (5, 24, 3, 1, 1, 1, 1, 13),  # F and OH*OW not whole blocks, k = 45 padded
    (16, 33, 3, 2, 1, 1, 2, 17),  # stride 2: the copy gathers every other pixel
    (8, 16, 3, 1, 2, 2, 1, 19),  # dilation 2
    (64, 32, 1, 1, 0, 1, 3, 7),  # 1 x 1: the image read as its own im2col
    (32, 48, 1, 2, 0, 1, 2, 15),  # 1 x 1 at stride 2: copied
    (3, 48, 7, 2, 3, 1, 1, 37),  # a stem: wide rows (37 -> 19 pixels), 3 channels
]


@requires_amx
@pytest.mark.parametrize("cin, cout, kernel, stride, pad, dilation, batch, size", CASES)
def test_bf16_conv_on_amx(tmp_path, cin, cout, kernel, stride, pad, dilation, batch, size):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(cin, cout, kernel, stride, pad, dilation).to(torch.bfloat16)
    x = torch.randn(batch, cin, size, size, dtype=torch.bfloat16)
    program, text = _compile(conv, x, tmp_path)
    assert "amx.tile_mulf" in text and "vector.fma" not in text
    # the im2col copy, but for a 1 x 1 window at stride 1
    im2col = f"memref<{cin * kernel * kernel}x" in text
    assert im2col == (kernel > 1 or stride > 1)
    _check(program, conv, x)


@requires_amx
@pytest.mark.parametrize("kernel", [3, 1])
def test_bf16_conv_of_a_dynamic_batch(tmp_path, kernel):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(24, 40, kernel, padding=kernel // 2).to(torch.bfloat16)
    x = torch.randn(2, 24, 15, 15, dtype=torch.bfloat16)
    program, text = _compile(conv, x, tmp_path, ({0: Dim("b", min=1, max=64)},))
    assert "amx.tile_mulf" in text
    for batch in (1, 3, 7):
        _check(program, conv, torch.randn(batch, 24, 15, 15, dtype=torch.bfloat16))


def test_bf16_conv_on_fmas_without_amx(tmp_path, monkeypatch):
    monkeypatch.setenv("ATEN_MLIR_AMX", "0")
    conv = torch.nn.Conv2d(16, 32, 3, padding=1).to(torch.bfloat16)
    x = torch.randn(1, 16, 12, 12, dtype=torch.bfloat16)
    program, text = _compile(conv, x, tmp_path)
    assert "amx.tile_mulf" not in text
    _check(program, conv, x)


@requires_amx
@pytest.mark.parametrize("dynamic", [False, True])
def test_bf16_conv_without_bias_starts_from_zero_tiles(tmp_path, dynamic):
    """C zero-filled (no bias): the result tiles start as tile_zero, the fill goes; with a
    ReLU after it and a `?` batch too."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(5, 24, 3, padding=1, bias=False), torch.nn.ReLU()
    ).to(torch.bfloat16)
    x = torch.randn(2, 5, 13, 13, dtype=torch.bfloat16)
    shapes = ({0: Dim("b", min=1, max=8)},) if dynamic else None
    program, text = _compile(model, x, tmp_path, shapes)
    assert "amx.tile_zero" in text and "amx.tile_mulf" in text
    for batch in (1, 3) if dynamic else (2,):
        _check(program, model, torch.randn(batch, 5, 13, 13, dtype=torch.bfloat16))

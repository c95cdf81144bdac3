"""Im2col convs whose pixels are a few columns past a multiple of 48 (ResNet's 7x7 stage: 49)
run 8 x 48 register tiles plus dot products along k for the columns left (conv_columns)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.passes import conv_columns
from tests.support.lowering import static_and_batch_dim


def _conv(cin, cout, kernel, stride, padding, dilation=1, groups=1, dtype=torch.float32):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(cin, cout, kernel, stride, padding, dilation, groups)
    return torch.nn.Sequential(conv, torch.nn.ReLU()).eval().to(dtype)


@pytest.mark.parametrize(
    "cin, cout, kernel, stride, padding, dilation, hw, left",
    [
        (64, 40, 3, 1, 1, 1, (7, 7), 1),  # ResNet's 7x7 stage, 49 = 48 + 1 columns
        (17, 20, 3, 2, 1, 1, (13, 13), 1),  # stride 2 to 7x7, 20 filters: a 4-row tile
        (5, 33, 1, 1, 0, 1, (17, 17), 1),  # 289 = 6 x 48 + 1, 33 filters
        (3, 24, 3, 1, 2, 2, (5, 29), 1),  # 145 = 3 x 48 + 1, padded and dilated
        (24, 16, 3, 1, 1, 1, (10, 10), 4),  # 100 = 2 x 48 + 4
        (18, 1030, 1, 1, 0, 1, (7, 7), 1),  # 1030 filters: in place, not on panels
        (32, 24, 3, 1, 1, 1, (8, 8), 0),  # 64 = 48 + 16: not this path
    ],
    ids=["7x7", "stride2", "17x17", "dilated", "left4", "f1030", "64px"],
)
def test_columns_past_wide_tiles_run_as_dot_products(
    cin, cout, kernel, stride, padding, dilation, hw, left, tmp_path
):
    model = _conv(cin, cout, kernel, stride, padding, dilation)
    x = torch.randn(2, cin, *hw)
    for dynamic, program, ir_text in static_and_batch_dim(model, x, tmp_path):
        k = cin * kernel * kernel
        # the copy's last columns, contiguous along k for the dot products
        assert (f"memref<{left}x{k}xf32>" in ir_text) == bool(left)
        assert ("vector.reduction" in ir_text) == bool(left)
        for batch in (1, 3, 7) if dynamic else (2,):
            x_b = torch.randn(batch, cin, *hw)
            with torch.no_grad():
                torch.testing.assert_close(program(x_b), model(x_b), rtol=1e-4, atol=1e-4)


def test_bf16_weights_and_the_switch(monkeypatch, tmp_path):
    """bf16 operands (f32 accumulators, the weight widened per load) and MAX_LEFT = 0 (the
    2-vector tiles) give eager's answer."""
    model = _conv(40, 24, 3, 1, 1, dtype=torch.bfloat16)
    x = torch.randn(3, 40, 7, 7, dtype=torch.bfloat16)
    ep = torch.export.export(model, (x,))
    with torch.no_grad():
        want = model(x).float()
    for left in (1, 0):
        monkeypatch.setattr(conv_columns, "MAX_LEFT", left)
        program = aten_mlir.compile(ep, dump_dir=tmp_path / str(left), cache=False)
        ir_text = (tmp_path / str(left) / "05-vectorize.mlir").read_text()
        assert ("vector.reduction" in ir_text) == bool(left)
        torch.testing.assert_close(program(x).float(), want, rtol=2e-2, atol=2e-2)

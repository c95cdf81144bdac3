"""The direct conv kernel (output rows of a vector or more): a tile's accumulators stay in
registers across the whole window (channels and both window dims loop inside the tile, around
its k loop), and a stride-2 row's lanes are two loads and an even-lane shuffle, not a gather.
Odd widths (a masked or smaller last block of lanes, 2 * width - 1 elements read exactly),
filters not a multiple of the register rows, dynamic batches, an output that is a view."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import kernels, outer_kernel
from tests.support.modules import Conv2d as _Conv


def _window_loops(ir_text: str) -> int:
    """The longest run of nested `scf.for`s carrying vector accumulators."""
    depth = best = 0
    for line in ir_text.splitlines():
        if re.search(r"scf\.for .*iter_args\(.*vector<", line):
            depth += 1
            best = max(best, depth)
        elif "vector.fma" not in line and "scf.for" in line:
            depth = 0
    return best


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "cin, cout, stride, hw",
    [
        (19, 24, 1, (9, 37)),  # k = 171 (the direct kernel), 37 = 32 + 5 columns
        (19, 16, 2, (9, 75)),  # stride 2: rows of 38 = 32 + 6, even lanes
        (5, 20, 2, (7, 69)),  # 35 = 32 + 3: the second load of the last block reads 5
        (3, 16, 2, (11, 128)),  # 64 columns, the last element of a row read by the last lane
    ],
    ids=["s1", "s2", "s2-odd", "s2-edge"],
)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_direct_conv_matches_eager(cin, cout, stride, hw, dtype, dynamic, tmp_path):
    torch.manual_seed(0)
    x, w = torch.randn(2, cin, *hw, dtype=dtype), torch.randn(cout, cin, 3, 3, dtype=dtype)
    shapes = ({0: Dim("b")}, None) if dynamic else None
    ep = torch.export.export(_Conv(stride, 1), (x, w), dynamic_shapes=shapes)
    program = aten_mlir.compile(ep, dump_dir=tmp_path, cache=False)
    ir_text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "linalg.conv_2d" not in ir_text and "vector.gather" not in ir_text
    assert ("vector.shuffle" in ir_text) == (stride == 2)
    assert _window_loops(ir_text) >= 3  # kh, kw and the channels around the tile's k steps
    ref = _Conv(stride, 1)
    for batch in (1, 7, 33) if dynamic else (2,):
        x = torch.randn(batch, cin, *hw, dtype=dtype)
        torch.testing.assert_close(program(x, w), ref(x, w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_a_stem_into_a_padded_pool_matches_eager(dynamic):
    """A 7x7 stride-2 stem writing the interior of its max pool's padded input (a view: the
    direct kernel, not the im2col copy), as in ResNet."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 7, stride=2, padding=3, bias=False),
        torch.nn.BatchNorm2d(32),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(3, 2, 1),
    ).eval()
    x = torch.randn(2, 3, 66, 66)
    shapes = ({0: Dim("b")},) if dynamic else None
    program = aten_mlir.compile(torch.export.export(model, (x,), dynamic_shapes=shapes))
    with torch.no_grad():
        for batch in (1, 7, 33) if dynamic else (2,):
            x = torch.randn(batch, 3, 66, 66)
            torch.testing.assert_close(program(x), model(x), rtol=1e-4, atol=1e-4)


def test_the_switches_give_the_same_result(monkeypatch, tmp_path):
    """The gather and the per-window-step accumulators (both switches off) still agree."""
    torch.manual_seed(0)
    x, w = torch.randn(3, 19, 9, 75), torch.randn(16, 19, 3, 3)
    monkeypatch.setattr(kernels, "EVEN_LANES", False)
    monkeypatch.setattr(outer_kernel, "REGISTER_WINDOW", False)
    program = aten_mlir.compile(
        torch.export.export(_Conv(2, 1), (x, w)), dump_dir=tmp_path, cache=False
    )
    ir_text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "vector.gather" in ir_text and _window_loops(ir_text) < 3
    torch.testing.assert_close(program(x, w), _Conv(2, 1)(x, w), rtol=1e-4, atol=1e-4)

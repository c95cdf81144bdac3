"""A `?` batch of narrow convs (few output pixels: blocks of G images, `conv_batch`) ends in one
block of the batch mod G images (`conv_tail.TailBlock`): every batch from 1 to past 2G matches
eager, for strides, dilation, padding, 1x1 and 5x5 windows, and the IR has exactly the whole
blocks and the one tail block."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.export import Dim

import aten_mlir

# channels in, filters, window, stride, padding, dilation, input size
CASES = [
    (64, 40, 3, 1, 1, 1, 3),
    (16, 24, 3, 2, 1, 1, 7),
    (32, 16, 3, 1, 2, 2, 4),
    (48, 64, 1, 1, 0, 1, 2),
    (8, 32, 5, 1, 0, 1, 5),
    (20, 12, 3, 1, 1, 1, 1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_every_batch_matches_eager(case):
    c, f, k, s, p, d, hw = case
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(c, f, k, s, p, d), nn.ReLU(), nn.Conv2d(f, f, 3, 1, 1)).eval()
    ep = torch.export.export(
        model, (torch.randn(2, c, hw, hw),), dynamic_shapes=({0: Dim("b", min=1, max=80)},)
    )
    program = aten_mlir.compile(ep, cache=False)
    for b in (1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 65):
        x = torch.randn(b, c, hw, hw)
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), rtol=1e-4, atol=1e-4)


def test_a_dynamic_batch_runs_whole_blocks_then_one_tail(tmp_path):
    model = nn.Conv2d(64, 40, 3, 1, 1).eval()
    ep = torch.export.export(
        model, (torch.randn(2, 64, 2, 2),), dynamic_shapes=({0: Dim("b", min=1, max=80)},)
    )
    aten_mlir.compile(ep, cache=False, dump_dir=tmp_path)
    text = next(p for p in sorted(tmp_path.iterdir()) if "vectorize" in p.name).read_text()
    # one copy per block kind: the whole blocks' G*P-wide copy and the tail's `?`-wide one
    assert text.count("memref.alloc(%") >= 2 and "memref<576x?xf32>" in text
    assert text.count("memref<576x64xf32>") >= 1

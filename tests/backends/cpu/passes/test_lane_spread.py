"""`cpu-vectorize-generics` on reads whose last index is `lane dim floordiv s` (s = 2, 4): a
kxk/stride-k max pool's backward gathers grad_output and the indices at [h / k, w / k]. One
load of width / s elements and a lane-doubling shuffle per step give eager's gradient at odd
and `?` widths (whole steps, narrower steps and the masked end of a row)."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim, export

import aten_mlir


class _PoolGrad(torch.nn.Module):
    def __init__(self, k, ceil=True):
        super().__init__()
        self.k, self.ceil = k, ceil

    def forward(self, x):
        k = [self.k] * 2
        ceil = self.ceil
        values, indices = torch.ops.aten.max_pool2d_with_indices(x, k, k, [0, 0], [1, 1], ceil)
        grad = values * 3 + 1
        return torch.ops.aten.max_pool2d_with_indices_backward(
            grad, x, k, k, [0, 0], [1, 1], ceil, indices
        )


def _spreads(tmp_path, k: int) -> int:
    """Shuffles [0, .., 0, 1, .., 1, ...] (each lane k times) in the loops stage."""
    text = (tmp_path / "06-loops.mlir").read_text()
    found = re.findall(r"vector\.shuffle (%\S+), (%\S+) \[([0-9, ]+)\]", text)
    picks = [[int(v) for v in p.split(",")] for a, b, p in found if a.rstrip(",") == b]
    return sum(p == [j // k for j in range(len(p))] for p in picks)


@pytest.mark.parametrize("k,width", [(2, 32), (2, 33), (2, 7), (4, 70), (4, 3)])
def test_pool_gradient_spread(k, width, tmp_path):
    torch.manual_seed(0)
    x = torch.randn(2, 5, 9, width)
    model = _PoolGrad(k)
    prog = aten_mlir.compile(export(model, (x,)), target="cpu", dump_dir=tmp_path, cache=False)
    torch.testing.assert_close(prog(x), model(x), rtol=0, atol=0)
    if width >= 16:  # narrower rows may run scalar
        assert _spreads(tmp_path, k) >= 2  # grad_output's and the indices' reads


def test_pool_gradient_spread_dynamic_width(tmp_path):
    model = _PoolGrad(2, ceil=False)  # odd widths: the last column in no window
    x = torch.randn(2, 3, 6, 35)
    width = Dim("w", min=4, max=300)  # export: w // 2 != 1
    ep = export(model, (x,), dynamic_shapes={"x": {3: width}})
    prog = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert _spreads(tmp_path, 2) >= 2
    for w in (4, 5, 7, 16, 17, 33, 35, 65, 129):
        x = torch.randn(2, 3, 6, w)
        torch.testing.assert_close(prog(x), model(x), rtol=0, atol=0)

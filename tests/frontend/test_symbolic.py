"""Size arithmetic in exported graphs (frontend/symbolic.py): Python's int and float operators on
SymInts and SymFloats, and sizes used where ATen takes a Tensor or a Scalar (lowered as 0-d
tensors by the aten-to-linalg rewriter)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir


class SizeScaled(torch.nn.Module):
    def forward(self, x, ids):
        n, c = x.shape
        return (
            x * (1.0 / n),  # SymFloat: sym_float + truediv, aten.mul.Tensor
            x * n + c,  # SymInt as a wrapped number
            x / n,  # aten.div.Tensor with a size
            torch.clamp(x, max=n / 10),  # a SymFloat Scalar argument
            ids * c - n // 2,  # integer tensors
            x.sum(0) / (n * c - 1),
        )


@pytest.mark.parametrize("n", [2, 7, 33])
def test_sizes_as_numbers_match_eager(n):
    example = (torch.rand(5, 3), torch.arange(4))
    dims = {"x": {0: Dim("n", min=2), 1: Dim("c", min=2)}, "ids": None}
    ep = torch.export.export(SizeScaled(), example, dynamic_shapes=dims)
    compiled = aten_mlir.compile(ep, cache=False)
    x, ids = torch.rand(n, n + 2), torch.arange(4)
    want = SizeScaled()(x, ids)
    got = compiled(x, ids)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w)
    assert not compiled.fallbacks

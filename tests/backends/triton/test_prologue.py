"""Contractions with a fused prologue (a layer norm inside the next linear layer) become a
materialized operand plus a `tl.dot` kernel; transposed weights are read in place."""

from __future__ import annotations

import pytest
import torch

import aten_mlir


class NormLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.fc = torch.nn.Linear(16, 24)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(self.norm(x)))


@pytest.mark.parametrize("dynamic", [False, True])
def test_norm_then_linear_is_a_tensor_core_kernel(dynamic, tmp_path):
    model, x = NormLinear(), torch.randn(2, 5, 16)
    shapes = ({1: torch.export.Dim("seq")},) if dynamic else None
    ep = torch.export.export(model, (x,), dynamic_shapes=shapes)
    compiled = aten_mlir.compile(ep, target="triton", dump_dir=tmp_path)
    assert [k.mode for k in compiled.library.kernels].count("matmul") == 1
    assert "linalg.transpose" not in (tmp_path / "04-bufferize.mlir").read_text()
    for seq in (5, 3) if dynamic else (5,):
        x = torch.randn(2, seq, 16)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)


class SinMatmul(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(torch.cos(torch.sin(x)), w)


def test_a_transcendental_operand_still_feeds_a_tensor_core_kernel():
    # sin/cos in the operand computation were once left in the contraction: a scalar loop
    model, x, w = SinMatmul(), torch.randn(2, 9, 20), torch.randn(20, 12)
    compiled = aten_mlir.compile(torch.export.export(model, (x, w)), target="triton")
    assert [k.mode for k in compiled.library.kernels] == ["matmul"]
    torch.testing.assert_close(compiled(x, w), model(x, w), atol=1e-5, rtol=1e-5)

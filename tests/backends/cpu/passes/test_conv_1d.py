"""1d convolutions (audio front ends, Conformer/Mamba-style token mixers) run on the 2d conv's
vector kernels: the lowering views them as unit-height images. As `linalg.conv_1d_ncw_fcw` they
ran as scalar loops (a wav2vec-style Conv1d(32, 32, 3, stride 2) at length 3199: 10x eager)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir


@pytest.mark.parametrize(
    "conv",
    [
        lambda: torch.nn.Conv1d(32, 32, 3, stride=2),
        lambda: torch.nn.Conv1d(1, 16, 10, stride=5, padding=2),
        lambda: torch.nn.Conv1d(24, 40, 5, dilation=2, padding=4, bias=False),
        lambda: torch.nn.ConvTranspose1d(16, 8, 4, stride=2, padding=1),
    ],
)
def test_a_1d_conv_with_a_dynamic_length_takes_the_vector_kernels(conv, tmp_path):
    torch.manual_seed(0)
    module = conv().eval()
    cin = module.in_channels
    length = Dim("length", min=16, max=4096)
    ep = torch.export.export(
        module, (torch.randn(2, cin, 100),), dynamic_shapes=({0: Dim("b"), 2: length},)
    )
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    with torch.no_grad():
        for batch, size in ((1, 16), (3, 101), (2, 1000)):
            x = torch.randn(batch, cin, size)
            torch.testing.assert_close(program(x), module(x), rtol=1e-4, atol=1e-4)
    vectorized = (tmp_path / "05-vectorize.mlir").read_text()
    assert "linalg.conv" not in vectorized and "vector.fma" in vectorized

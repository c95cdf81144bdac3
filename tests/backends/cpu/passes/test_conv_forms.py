"""Every form of convolution runs on the vector kernels: 1d (audio front ends, Conformer/Mamba
token mixers) as the 2d conv of a unit-height image, 3d and grouped ones as the generic grouped
form. As the named `linalg.conv_1d_ncw_fcw`, `conv_3d_ncdhw_fcdhw` and `conv_2d_ngchw_gfchw`
they ran as scalar loops (Conv1d(32, 32, 3, stride 2) at length 3199: 10x eager; Conv3d 38x; a
4-group Conv2d 26x)."""

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


@pytest.mark.parametrize(
    "conv, shape",
    [
        (lambda: torch.nn.Conv3d(8, 16, 3, stride=(1, 2, 2), padding=1), (2, 8, 5, 12, 14)),
        (lambda: torch.nn.Conv2d(32, 32, 3, padding=1, groups=4), (2, 32, 13, 17)),
        (lambda: torch.nn.Conv2d(24, 24, 7, padding=3, groups=24), (2, 24, 15, 20)),
        (lambda: torch.nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, groups=2), (2, 16, 9, 7)),
    ],
)
def test_3d_and_grouped_convs_take_the_vector_kernels(conv, shape, tmp_path):
    torch.manual_seed(0)
    module = conv().eval()
    ep = torch.export.export(module, (torch.randn(*shape),), dynamic_shapes=({0: Dim("b")},))
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    with torch.no_grad():
        for batch in (1, 3):
            x = torch.randn(batch, *shape[1:])
            torch.testing.assert_close(program(x), module(x), rtol=1e-4, atol=1e-4)
    vectorized = (tmp_path / "05-vectorize.mlir").read_text()
    assert "linalg.conv" not in vectorized and "vector.fma" in vectorized

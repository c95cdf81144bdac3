"""`triton-unalias-epilogues`: a residual block's second conv keeps its batch norm, residual
add and ReLU as its epilogue even where the bufferizer reuses the conv's input buffer."""

import torch
from torch import nn

import aten_mlir


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


def test_the_second_conv_keeps_its_epilogue():
    model = Block().eval()
    with torch.no_grad():
        for bn in (model.bn1, model.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(2, 8, 10, 10)
    compiled = aten_mlir.compile(torch.export.export(model, (x,)), target="triton")
    assert [k.mode for k in compiled.library.kernels] == ["conv", "conv"]
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), atol=1e-4, rtol=1e-4)

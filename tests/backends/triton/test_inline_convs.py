"""`triton-inline-small-convs`: a stem conv (3 input channels) read only by the max pool after
it is computed inside the pool's kernel; its output never goes to memory."""

import torch
from torch import nn

import aten_mlir
from aten_mlir.backends.triton.host.traffic import report


class Stem(nn.Module):
    def __init__(self, c_out: int = 8):
        super().__init__()
        self.conv = nn.Conv2d(3, c_out, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        return nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 3, 2, 1)


def _compile(model, x):
    return aten_mlir.compile(torch.export.export(model, (x,)), target="triton")


def test_a_stem_conv_runs_inside_the_pool():
    model = Stem().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(2, 3, 12, 10)
    compiled = _compile(model, x)
    assert [k.mode for k in compiled.library.kernels] == ["block"]
    with torch.no_grad():
        expected = model(x)
        torch.testing.assert_close(compiled(x), expected, atol=1e-5, rtol=1e-5)
    # x, the conv's weights, the batch norm's four vectors and the result: each once
    state = sum(p.numel() for p in model.parameters()) + 2 * model.bn.num_features
    moved = report(compiled, x)["bytes_moved"]
    assert moved == (x.numel() + state + expected.numel()) * 4


def test_a_conv_with_a_long_reduction_stays_a_product():
    # 8 channels x 3 x 3 = 72 products per element: the tensor-core kernel stays
    model = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1, bias=False), nn.MaxPool2d(2)).eval()
    x = torch.randn(1, 8, 6, 6)
    compiled = _compile(model, x)
    assert [k.mode for k in compiled.library.kernels] == ["conv", "block"]
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)


class Downsample(nn.Module):
    """A residual block's 1x1 stride-2 shortcut (16 products per element), read once by the
    epilogue of the block's second conv."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(16, 8, 3, stride=2, padding=1, bias=False)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.shortcut = nn.Conv2d(16, 8, 1, stride=2, bias=False)

    def forward(self, x):
        return torch.relu(self.conv2(torch.relu(self.conv1(x))) + self.shortcut(x))


def test_a_shortcut_conv_runs_in_the_epilogue_that_reads_it():
    model, x = Downsample().eval(), torch.randn(2, 16, 9, 8)
    compiled = _compile(model, x)
    modes = [k.mode for k in compiled.library.kernels]
    assert modes == ["conv", "conv"]
    assert "for " in compiled.library.kernels[1].source.split("accv = ")[1]  # the 16-term sum
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)

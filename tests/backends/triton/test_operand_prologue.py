"""`operand_prologue.py`: the pointwise nest that fills a product's A or B runs in the product's
K loop, where each operand tile is loaded; its buffer is never written or read."""

import torch
from torch import nn

import aten_mlir
from aten_mlir.backends.triton.host.traffic import report


def _compile(model, *args):
    return aten_mlir.compile(torch.export.export(model, args), target="triton")


def _check(compiled, model, *args):
    with torch.no_grad():
        torch.testing.assert_close(compiled(*args), model(*args), atol=1e-5, rtol=1e-5)


class ScaledA(nn.Module):
    def forward(self, x, w, s):
        return torch.matmul(torch.sin(x) * s, w)


class ReluB(nn.Module):
    def forward(self, x, w):
        return torch.matmul(x, torch.relu(w).t())


class PaddedConv(nn.Module):
    """The conv pads relu(x) + 1 with zeros, not with the function of a zero input."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 5, 3, padding=1, bias=False)

    def forward(self, x):
        return self.conv(torch.relu(x) + 1.0)


class AlsoReturned(nn.Module):
    def forward(self, x, w):
        y = torch.cos(x)
        return torch.matmul(y, w), y


def test_an_a_operand_is_computed_in_the_k_loop():
    model = ScaledA()
    x, w, s = torch.randn(2, 9, 20), torch.randn(20, 12), torch.randn(20)
    compiled = _compile(model, x, w, s)
    (kernel,) = compiled.library.kernels
    assert kernel.mode == "matmul" and "x = tl.load(" not in kernel.source
    _check(compiled, model, x, w, s)
    r = report(compiled, x, w, s)
    # x, w and s read once, the result written once: sin(x) * s never goes to memory
    assert r["bytes_moved"] == (x.numel() + w.numel() + s.numel() + 2 * 9 * 12) * 4


def test_a_b_operand_is_computed_in_the_k_loop():
    model, x, w = ReluB(), torch.randn(7, 16), torch.randn(11, 16)
    compiled = _compile(model, x, w)
    (kernel,) = compiled.library.kernels
    assert "y = tl.load(" not in kernel.source
    _check(compiled, model, x, w)


def test_a_conv_input_prologue_pads_with_zeros():
    model, x = PaddedConv(), torch.randn(2, 3, 6, 7)
    compiled = _compile(model, x)
    (kernel,) = compiled.library.kernels
    assert kernel.mode == "conv" and "x = tl.load(" not in kernel.source
    _check(compiled, model, x)


def test_an_operand_read_after_the_product_stays_in_memory():
    model, x, w = AlsoReturned(), torch.randn(6, 10), torch.randn(10, 4)
    compiled = _compile(model, x, w)
    assert len(compiled.library.kernels) == 2
    _check(compiled, model, x, w)

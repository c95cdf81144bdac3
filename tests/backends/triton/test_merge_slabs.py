"""`triton-merge-slabs`: a rotary embedding's `cat` of two halves is one nest, inlined into the
nest that reads it: no copy launch, no kernel for the rotation."""

import torch
from torch import nn

import aten_mlir
from aten_mlir.backends.triton.host.traffic import report


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Rotary(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 32)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.proj(x).view(b, s, 4, 8).transpose(1, 2)
        return q * cos + rotate_half(q) * sin


def test_rotate_half_is_inlined_into_the_rotary_product():
    x, cos, sin = torch.randn(2, 6, 32), torch.randn(6, 8), torch.randn(6, 8)
    model = Rotary()
    compiled = aten_mlir.compile(torch.export.export(model, (x, cos, sin)), target="triton")
    r = report(compiled, x, cos, sin)
    # the projection (its epilogue), then the rotation of its output: no copy, no cat kernel
    assert r["launches"] == r["kernels"] <= 2, [k.ops for k in compiled.library.kernels]
    with torch.no_grad():
        torch.testing.assert_close(compiled(x, cos, sin), model(x, cos, sin))

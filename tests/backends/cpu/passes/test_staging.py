"""A product whose output is a strided view runs on the vector kernels through a contiguous
staging buffer (`staging`): a conv whose output is scattered into every other column of a
larger tensor (as a transposed conv once wrote the zero-dilated input of the next) ran as scalar
loops (a small UNet at batch 7: 5x eager)."""

from __future__ import annotations

import re

import torch
from torch import nn
from torch.export import Dim

import aten_mlir
from tests.modules import Fn


class _EveryOtherColumn(nn.Module):
    """conv -> slice_scatter with step 2: the conv writes a view of inner stride 2 in place."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 16, 3, padding=2, dilation=2)

    def forward(self, x):
        y = self.conv(x)
        z = torch.zeros(y.shape[0], 16, 12, 40)
        return torch.slice_scatter(z, y, dim=3, start=1, step=2) * 2


def test_a_conv_into_every_other_column(tmp_path):
    torch.manual_seed(0)
    module = _EveryOtherColumn().eval()
    ep = torch.export.export(
        module, (torch.randn(2, 8, 12, 20),), dynamic_shapes=({0: Dim("b", min=1, max=32)},)
    )
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    with torch.no_grad():
        for batch in (1, 3, 7):
            x = torch.randn(batch, 8, 12, 20)
            torch.testing.assert_close(program(x), module(x), rtol=1e-4, atol=1e-4)
    bufferized = (tmp_path / "04-bufferize.mlir").read_text()
    vectorized = (tmp_path / "05-vectorize.mlir").read_text()
    assert "strided<[" in bufferized  # the case: some conv's C is a strided view
    assert "linalg.conv" not in vectorized and "vector.fma" in vectorized
    assert "memref.copy" not in (tmp_path / "06-loops.mlir").read_text()


def _both_transposed(a, b):
    # the backward of attention's products: both operands read through a transpose
    return a.transpose(1, 2) @ b.transpose(1, 2)


def test_a_product_of_two_transposed_operands(tmp_path):
    batch, seq = Dim("b"), Dim("seq", min=2, max=512)
    example = torch.randn(3, 40, 24), torch.randn(3, 33, 40)
    ep = torch.export.export(
        Fn(_both_transposed),
        example,
        dynamic_shapes=(({0: batch, 1: seq}, {0: batch, 2: seq}),),
    )
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    for batch, length in ((1, 7), (3, 40), (2, 129)):
        a, b = torch.randn(batch, length, 24), torch.randn(batch, 33, length)
        torch.testing.assert_close(program(a, b), _both_transposed(a, b), rtol=1e-4, atol=1e-4)
    vectorized = (tmp_path / "05-vectorize.mlir").read_text()
    assert '"reduction"' not in vectorized and "vector.fma" in vectorized


def _grad_input(go, w, x):
    # a stride-2 conv's grad_input: one product per stride phase, each into every other
    # element of the result (a strided view), after a zero fill of that view
    return torch.ops.aten.convolution_backward(
        go, x, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [True, False, False]
    )[0]


def test_a_filled_phase_is_staged_from_its_fill(tmp_path):
    torch.manual_seed(0)
    x, w = torch.randn(3, 6, 17, 15), torch.randn(10, 6, 3, 3)
    go = torch.randn(3, 10, 9, 8)
    batch = Dim("b")
    ep = torch.export.export(
        Fn(_grad_input), (go, w, x), dynamic_shapes=(({0: batch}, None, {0: batch}),)
    )
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    for batch in (1, 3, 7):
        go, x = torch.randn(batch, 10, 9, 8), torch.randn(batch, 6, 17, 15)
        torch.testing.assert_close(program(go, w, x), _grad_input(go, w, x), rtol=1e-4, atol=1e-4)
    bufferized = (tmp_path / "04-bufferize.mlir").read_text()
    vectorized = (tmp_path / "05-vectorize.mlir").read_text()
    # the case: phases filled through strided views; after staging, no fill nor read of them
    assert re.search(r"linalg.fill .*outs\(%\S+ : memref<[^>]*strided<\[", bufferized)
    assert not re.search(r"linalg.fill .*outs\(%\S+ : memref<[^>]*strided<\[", vectorized)
    assert not re.search(r"memref.copy %\S+, %\S+ : memref<[^>]*strided<\[[^>]*> to", vectorized)

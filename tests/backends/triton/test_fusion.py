"""Kernel fusion on the Triton target: row nests (layer norm, softmax) as one kernel, matmul
epilogues on the accumulator tile, padding read in place, two-dim contractions as one `tl.dot`,
and the bytes the traffic report counts for them."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import aten_mlir
from aten_mlir.backends.triton.host.traffic import report


def _compile(model, *args, dump=None, dynamic_shapes=None):
    ep = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
    return aten_mlir.compile(ep, target="triton", dump_dir=dump)


def _check(compiled, model, *args, tol=1e-5):
    with torch.no_grad():
        torch.testing.assert_close(compiled(*args), model(*args), atol=tol, rtol=tol)


def _modes(compiled) -> list[str]:
    return [k.mode for k in compiled.library.kernels]


def test_layer_norm_is_one_kernel_that_writes_only_its_output():
    model, x = nn.LayerNorm(48), torch.randn(3, 7, 48)
    compiled = _compile(model, x)
    (kernel,) = compiled.library.kernels
    assert len(kernel.writes) == 1  # the statistics stay in registers
    _check(compiled, model, x)
    r = report(compiled, x)
    assert r["bytes_moved"] == x.numel() * 4 * 2 + 2 * 48 * 4  # x in, y out, weight and bias


def test_softmax_is_one_kernel():
    model, x = nn.Softmax(dim=-1), torch.randn(4, 5, 33)
    compiled = _compile(model, x)
    assert len(compiled.library.kernels) == 1
    _check(compiled, model, x)


class LinearGelu(nn.Module):
    def __init__(self, k=32, n=24):
        super().__init__()
        self.fc = nn.Linear(k, n)

    def forward(self, x):
        return nn.functional.gelu(self.fc(x))


def test_bias_and_activation_run_on_the_accumulator_tile():
    model, x = LinearGelu(), torch.randn(2, 9, 32)
    compiled = _compile(model, x)
    (kernel,) = compiled.library.kernels
    assert kernel.mode == "matmul"
    assert "c" not in kernel.writes and "c" not in kernel.reads  # no fill, no C round trip
    _check(compiled, model, x)


class HeadSplit(nn.Module):
    """A projection whose result is stored transposed (the attention head split)."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(32, 32)

    def forward(self, x):
        b, s, _ = x.shape
        return self.q(x).view(b, s, 4, 8).transpose(1, 2) * 0.5


def test_transposing_epilogue_is_fused():
    model, x = HeadSplit(), torch.randn(2, 6, 32)
    compiled = _compile(model, x)
    assert _modes(compiled) == ["matmul"]
    out = compiled(x)
    assert out.shape == (2, 4, 6, 8)
    _check(compiled, model, x)


class ReadsOtherRows(nn.Module):
    """The product's result is read at other positions: the epilogue must not run on tiles."""

    def forward(self, x, w):
        y = x @ w
        return y + y.flip(0)


def test_epilogue_reading_other_tiles_is_not_fused():
    model = ReadsOtherRows()
    x, w = torch.randn(70, 16), torch.randn(16, 70)
    compiled = _compile(model, x, w)
    assert _modes(compiled).count("matmul") == 1 and len(_modes(compiled)) == 2
    _check(compiled, model, x, w, tol=1e-4)


class TwoDimContraction(nn.Module):
    def forward(self, a, w):
        return torch.einsum("bshd,hdn->bsn", a, w)


def test_contraction_over_two_dims_is_one_tensor_core_kernel():
    model = TwoDimContraction()
    a, w = torch.randn(2, 5, 3, 8), torch.randn(3, 8, 12)
    compiled = _compile(model, a, w)
    assert _modes(compiled) == ["matmul"]
    _check(compiled, model, a, w, tol=1e-4)


class PaddedConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(torch.relu(self.conv(x)))


def test_padding_is_read_in_place(tmp_path):
    model, x = PaddedConv(), torch.randn(2, 3, 9, 9)
    compiled = _compile(model, x, dump=tmp_path)
    bufferized = (tmp_path / "04-bufferize.mlir").read_text()
    assert "memref.copy" not in bufferized and "tensor.insert_slice" not in bufferized
    # the bias broadcast into the output, the conv as an implicit GEMM with relu on its tile,
    # the pool: nothing makes a padded copy
    assert _modes(compiled) == ["block", "conv", "block"]
    _check(compiled, model, x)


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, stride=2, padding=2, dilation=2, bias=False)
        self.b = nn.Conv2d(8, 5, 1, bias=False)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


def test_convolutions_are_tensor_core_kernels():
    model, x = Convs(), torch.randn(2, 3, 11, 10)
    compiled = _compile(model, x)
    assert _modes(compiled) == ["conv", "conv"]  # stride, dilation, padding, a 1x1
    _check(compiled, model, x, tol=1e-4)


@pytest.mark.parametrize("batch", [2, 5])
def test_fused_kernels_with_a_dynamic_batch(batch):
    model = nn.Sequential(nn.Linear(16, 16), nn.LayerNorm(16), nn.Softmax(-1))
    x = torch.randn(3, 16)
    compiled = _compile(model, x, dynamic_shapes=({0: torch.export.Dim("b")},))
    _check(compiled, model, torch.randn(batch, 16))


class TwoHeads(nn.Module):
    """Two projections of one shape: the bufferizer gives both products one C buffer."""

    def __init__(self):
        super().__init__()
        self.q, self.k = nn.Linear(32, 32), nn.Linear(32, 32)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, 4, 8).transpose(1, 2)
        k = self.k(x).view(b, s, 4, 8).transpose(1, 2)
        return q @ k.transpose(-1, -2)


def test_product_whose_buffer_is_overwritten_next_is_not_stored():
    model, x = TwoHeads(), torch.randn(2, 6, 32)
    compiled = _compile(model, x)
    first, second, scores = compiled.library.kernels
    # the next product overwrites C before anyone reads it: only the epilogue's result is stored
    assert "c" not in first.writes and "c" not in second.writes and "c" in scores.writes
    _check(compiled, model, x, tol=1e-4)


def test_batch_norm_statistics_run_the_batch_loop_inside_each_lane():
    model, x = nn.BatchNorm2d(16).train(), torch.randn(2, 16, 8, 8)
    compiled = _compile(model, x)
    r = report(compiled, x)
    # statistics, normalization, running-stat update; none launched once per batch element
    assert r["launches"] == r["kernels"] <= 3
    _check(compiled, nn.BatchNorm2d(16).train(), x)


class RepeatKV(nn.Module):
    """GQA: two key heads repeated for four query heads, then a softmax over the products."""

    def forward(self, q, k):
        b, h, s, d = k.shape
        k = k[:, :, None].expand(b, h, 2, s, d).reshape(b, h * 2, s, d)
        return torch.softmax(q * k, dim=-1)


def test_repeated_heads_are_read_in_place_by_their_reader():
    model = RepeatKV()
    q, k = torch.randn(2, 4, 8, 16), torch.randn(2, 2, 8, 16)
    compiled = _compile(model, q, k)
    # the copy that materializes the repeated heads is inlined into the softmax's kernel
    assert len(compiled.library.kernels) == 1
    _check(compiled, model, q, k)


class SplitHeads(nn.Module):
    """GPT-2's attention: one Conv1D projection (an addmm on the flattened tokens) split into
    q, k, v, each permuted into heads."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(32, 96) / 8)
        self.bias = nn.Parameter(torch.randn(96))

    def forward(self, x):
        b, s, _ = x.shape
        qkv = torch.addmm(self.bias, x.view(-1, 32), self.weight).view(b, s, 96)
        q, k, v = (t.view(b, s, 4, 8).permute(0, 2, 1, 3) for t in qkv.split(32, dim=2))
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v


def test_transposed_heads_are_read_in_place_by_the_products():
    model, x = SplitHeads(), torch.randn(2, 6, 32)
    compiled = _compile(model, x)
    # projection (bias epilogue), scores (softmax in their tail), output: no kernel copies k
    # or v into heads
    assert _modes(compiled) == ["matmul"] * 3, [k.ops for k in compiled.library.kernels]
    _check(compiled, model, x, tol=1e-4)


class ReluPool(nn.Module):
    def forward(self, x):
        return nn.functional.max_pool2d(torch.relu(x), 3, stride=2, padding=1)


def test_a_pooling_window_accumulates_in_registers():
    # both window loops keep the running max in a register: the output is stored once, never
    # read back
    model, x = ReluPool(), torch.randn(2, 3, 9, 10)
    compiled = _compile(model, x)
    assert _modes(compiled) == ["block"]
    _check(compiled, model, x)
    out = model(x)
    assert report(compiled, x)["bytes_moved"] == (x.numel() + out.numel()) * 4

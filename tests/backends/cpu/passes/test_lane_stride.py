"""`cpu-vectorize-generics` on reads whose last index steps the lane dim by a constant stride
(a strided convolution's window copy, `x[n, c, oh * s + kh, ow * s + kw]`): contiguous chunks
and lane shuffles give eager's weight gradients at odd and `?` widths, the static and the
masked end of a row, strides 1 to 4 (and 5: left scalar), and no read past the input's last
element (a guard page right after it)."""

from __future__ import annotations

import ctypes
import mmap
import re
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch.export import Dim, export

import aten_mlir


class _WeightGradient(torch.nn.Module):
    def __init__(self, stride, padding):
        super().__init__()
        self.stride, self.padding = stride, padding

    def forward(self, go, x, w):
        s, p = [self.stride] * 2, [self.padding] * 2
        return torch.ops.aten.convolution_backward(
            go, x, w, None, s, p, [1, 1], False, [0, 0], 1, [False, True, False]
        )[1]


def _case(x_shape, out_channels, k, stride, padding):
    torch.manual_seed(0)
    x = torch.randn(x_shape)
    w = torch.randn(out_channels, x_shape[1], k, k)
    go = torch.randn(torch.nn.functional.conv2d(x, w, None, stride, padding).shape)
    return _WeightGradient(stride, padding), (go, x, w)


def _compile(model, args, tmp_path, dynamic_shapes=None):
    ep = export(model, args, dynamic_shapes=dynamic_shapes)
    return aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)


def _check(got, want):
    scale = want.abs().max().clamp_min(1)
    torch.testing.assert_close(got / scale, want / scale, rtol=1e-4, atol=1e-4)


def _window_reads(tmp_path) -> str:
    """The loops stage (`cpu-vectorize-generics`'s), where the window copies are read."""
    return (tmp_path / "06-loops.mlir").read_text()


def _strided_shuffles(text: str, stride: int) -> list[str]:
    found = re.findall(r"vector\.shuffle [^\[]*\[([0-9, ]+)\]", text)
    out = []
    for picks in found:
        lanes = [int(v) for v in picks.split(",")]
        if len(lanes) > 1 and lanes == [stride * j for j in range(len(lanes))]:
            out.append(picks)
    return out


# (x shape, out channels, kernel, stride, padding): odd widths (the last chunk's masked
# elements are past the row), a width whose rows end in a masked step, width 1, strides 2-4
CASES = {
    "s2-16x16": ((2, 3, 32, 32), 4, 3, 2, 1),
    "s2-odd": ((2, 3, 33, 31), 4, 3, 2, 1),
    "s2-pad0-odd": ((1, 2, 15, 13), 3, 3, 2, 0),
    "s2-width1": ((3, 2, 1, 1), 2, 3, 2, 1),
    "s2-width7": ((2, 2, 7, 7), 3, 3, 2, 1),
    "s2-long-row": ((1, 2, 5, 101), 2, 3, 2, 1),
    "s3-odd": ((2, 2, 17, 29), 3, 3, 3, 1),
    "s4": ((1, 2, 16, 70), 2, 4, 4, 0),
    "s1": ((2, 3, 9, 21), 2, 3, 1, 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_strided_window_copies_match_eager(name, tmp_path):
    model, args = _case(*CASES[name])
    compiled = _compile(model, args, tmp_path)
    _check(compiled(*args), model(*args))
    stride, width = CASES[name][3], args[0].shape[-1]
    if 2 <= stride and width >= 4:
        assert _strided_shuffles(_window_reads(tmp_path), stride), name


def test_stride_five_stays_scalar(tmp_path):
    model, args = _case((1, 2, 12, 61), 2, 5, 5, 0)
    compiled = _compile(model, args, tmp_path)
    _check(compiled(*args), model(*args))
    assert not _strided_shuffles(_window_reads(tmp_path), 5)


def test_dynamic_widths(tmp_path):
    # x width 2k + 1, output width k + 1 (stride 2, padding 1, 3x3): `?` rows of odd lengths,
    # which end in narrower steps and one masked step
    model, args = _case((2, 3, 9, 33), 4, 3, 2, 1)
    k, n = Dim("k", min=0, max=100), Dim("n", min=1, max=16)
    shapes = ({0: n, 3: k + 1}, {0: n, 3: 2 * k + 1}, None)
    compiled = _compile(model, args, tmp_path, shapes)
    assert _strided_shuffles(_window_reads(tmp_path), 2)
    for batch, width in ((1, 1), (2, 7), (3, 33), (1, 65), (2, 129)):
        go = torch.randn(batch, 4, 5, width // 2 + 1)
        x, w = torch.randn(batch, 3, 9, width), args[2]
        _check(compiled(go, x, w), model(go, x, w))


def guarded_copy(t: torch.Tensor):
    """`t` copied into memory whose last element ends right before a PROT_NONE page (and the
    mapping, to keep alive): a read past it faults."""
    page = mmap.PAGESIZE
    size = -(-t.numel() * 4 // page) * page
    buf = mmap.mmap(-1, size + page)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    assert ctypes.CDLL(None).mprotect(ctypes.c_void_p(address + size), page, 0) == 0
    offset = size - t.numel() * 4
    a = np.frombuffer(buf, dtype=np.float32, count=t.numel(), offset=offset)
    out = torch.from_numpy(a).view(t.shape)
    out.copy_(t)
    return out, buf


_GUARDED = """
import torch
from torch.export import Dim, export
import aten_mlir
from aten_mlir.tests.backends.cpu.passes.test_lane_stride import _case, _check, guarded_copy
for width in (33, 35):  # 16 output columns: one whole step; 17: a masked step
    model, (go, x, w) = _case((1, 2, 5, width), 3, 3, 2, 0)
    compiled = aten_mlir.compile(export(model, (go, x, w)), target="cpu", cache=False)
    gx, keep = guarded_copy(x)
    _check(compiled(go, gx, w), model(go, x, w))
# `?` widths: narrower whole steps (16, 8 lanes) and a masked step end the rows
model, args = _case((1, 2, 5, 35), 3, 3, 2, 0)
k = Dim("k", min=0, max=100)
shapes = ({3: k + 1}, {3: 2 * k + 3}, None)
compiled = aten_mlir.compile(export(model, args, dynamic_shapes=shapes), target="cpu", cache=False)
for width in (3, 7, 33, 35, 57, 67):
    x, go = torch.randn(1, 2, 5, width), torch.randn(1, 3, 2, (width - 3) // 2 + 1)
    gx, keep = guarded_copy(x)
    _check(compiled(go, gx, args[2]), model(go, x, args[2]))
print("ok")
"""


def test_no_read_past_the_input():
    # padding 0: the window copy reads the argument itself, whose row ends at a guard page;
    # a second chunk read whole (element 2 * 16 + 2 - 1 = 33 of a 33-wide row) faults
    run = subprocess.run([sys.executable, "-c", _GUARDED], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]

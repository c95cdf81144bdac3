"""`cpu-copies-to-generics` and `aten-unshare-fills` on padded images: no copy of a whole padded
buffer, no element-by-element `memrefCopy`, results equal to eager."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from tests.modules import Fn


def _two_pads(x, y):
    # two padded images of one shape: CSE shares their border fill and its interior slice
    pad = torch.nn.functional.pad
    return pad(torch.relu(x), (1, 1, 1, 1)) * 2, pad(torch.sigmoid(y), (1, 1, 1, 1))


def _strided_interior(x):
    # a copy into a strided view of the result: the columns of an interleaved buffer
    out = torch.zeros(3, 8, 10)
    out[:, :, ::2] = x
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32])
def test_padded_images_are_written_in_place_and_copied_as_vector_loops(dtype, tmp_path):
    x = (torch.randn(2, 5, 7, 19) * 10).to(dtype)
    y = (torch.randn(2, 5, 7, 19) * 10).to(dtype)
    fn = _two_pads if dtype.is_floating_point else lambda x, y: _two_pads(x.float(), y.float())
    program = aten_mlir.compile(torch.export.export(Fn(fn), (x, y)), dump_dir=tmp_path)
    for got, want in zip(program(x, y), fn(x, y)):
        torch.testing.assert_close(got, want)
    bufferized = (tmp_path / "04-bufferize.mlir").read_text()
    loops = (tmp_path / "06-loops.mlir").read_text()
    assert bufferized.count("memref.copy") <= 2  # at most each interior, never a whole buffer
    assert "memref.copy" not in loops and "vector.store" in loops


def test_a_copy_into_a_strided_view(tmp_path):
    x = torch.randn(3, 8, 5)
    program = aten_mlir.compile(torch.export.export(Fn(_strided_interior), (x,)), dump_dir=tmp_path)
    torch.testing.assert_close(program(x), _strided_interior(x))
    assert "memref.copy" not in (tmp_path / "06-loops.mlir").read_text()


def _conv_of_an_output(x, w):
    # y is an output too, so the conv's padded input is a copy of y: strided, `?` batch
    y = torch.relu(x * 2)
    return torch.nn.functional.conv2d(y, w, padding=1) + 1, y


def test_a_dynamic_batch_of_padded_images_is_copied_as_vector_loops(tmp_path):
    # once the runtime's memrefCopy, element by element (ResNet-18 at batch 33: 1.14x static)
    w = torch.randn(4, 5, 3, 3)
    batch = torch.export.Dim("batch", min=1, max=64)
    ep = torch.export.export(
        Fn(_conv_of_an_output), (torch.randn(3, 5, 7, 19), w), dynamic_shapes=(({0: batch}, None),)
    )
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    for size in (1, 3, 17):
        x = torch.randn(size, 5, 7, 19)
        for got, want in zip(program(x, w), _conv_of_an_output(x, w)):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    assert "memref.copy" in (tmp_path / "04-bufferize.mlir").read_text()
    loops = (tmp_path / "06-loops.mlir").read_text()
    assert "memref.copy" not in loops and "vector.store" in loops

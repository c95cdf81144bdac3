"""`linalg.copy` on memrefs runs as vector loops (`named_copies`, called by
`cpu-vectorize-generics`): a decode's outlined layer copies its KV-cache slice, a view at a
run-time offset, into the concatenation buffer; left to the scalar loops it went one element at
a time."""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import aten_mlir


class _Decode(nn.Module):
    """Identical layers (outlined into one function taking the layer's index), each attending
    over `cat(past[i], k)`: the cache slice past[i] sits at a run-time offset there."""

    def __init__(self, layers=3, width=32):
        super().__init__()
        self.q = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))
        self.k = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))

    def forward(self, x, past):
        for i, (q, k) in enumerate(zip(self.q, self.k)):
            keys = torch.cat((past[i], k(x)), dim=1)
            x = x + torch.softmax(q(x) @ keys.transpose(1, 2), -1) @ keys
        return x


_OFFSET_LOAD = re.compile(r"(vector|memref)\.load [^:\n]*: memref<[^\n]*offset: \?>>")


@pytest.mark.parametrize("positions", [1, 7, 33, 129])
def test_a_cache_slice_at_a_run_time_offset_is_copied_as_vectors(positions, tmp_path):
    torch.manual_seed(positions)
    model = _Decode().eval()
    x, past = torch.randn(1, 1, 32), torch.randn(3, 1, positions, 32)
    past[1, 0, -1, 3] = float("nan")  # copied through, as eager's cat does
    past[2, 0, 0, :2] = float("inf")
    program = aten_mlir.compile(torch.export.export(model, (x, past)), dump_dir=tmp_path)
    torch.testing.assert_close(program(x, past), model(x, past), equal_nan=True)
    bufferized = (tmp_path / "04-bufferize.mlir").read_text()
    assert re.search(r"linalg\.copy [^\n]*offset: \?", bufferized)  # the case this is about
    loads = [m.group(1) for m in _OFFSET_LOAD.finditer((tmp_path / "06-loops.mlir").read_text())]
    assert loads and set(loads) == {"vector"}  # no element-by-element read of the slice


def test_a_copy_that_converts_is_left_to_the_loops():
    # linalg.copy's cast between element types is not an identity: the rewrite skips it
    from mlir import ir

    from aten_mlir.backends.cpu.passes.named_copies import copies_as_generics
    from aten_mlir.dialects import make_context

    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(
            """
            func.func @f(%a: memref<8xf32>, %b: memref<8xf64>, %c: memref<8xf32>) {
              linalg.copy ins(%a : memref<8xf32>) outs(%b : memref<8xf64>)
              linalg.copy ins(%a : memref<8xf32>) outs(%c : memref<8xf32>)
              return
            }
            """
        )
        copies_as_generics(module.operation)
        text = str(module)
    assert text.count("linalg.copy") == 1 and "memref<8xf64>" in text
    assert text.count("linalg.generic") == 1

"""Row-wise work with dynamic batch and sequence dims runs as the static shapes do: vector
loops (a masked remainder where the row length is dynamic), the passes over one row fused into
one nest (cpu-fuse-row-nests: each nest's bound is its own `memref.dim`), and the rows of a
dynamic batch and sequence flattened into one range for the thread pool (cpu-parallelize-loops;
a batch of 1 still shares its rows). One compile, three sizes per dynamic dim, against eager."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim, export

import aten_mlir


class _Rows(torch.nn.Module):
    """LayerNorm, softmax and GELU over a static hidden dim of 100 (not a multiple of lanes)."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(100)

    def forward(self, x):
        return torch.nn.functional.gelu(torch.softmax(self.norm(x), dim=-1)) + x


class _Scores(torch.nn.Module):
    """Attention scores' softmax: the row length is the dynamic sequence."""

    def forward(self, s):
        return torch.softmax(s * 0.125, dim=-1)


def _loops(tmp_path) -> str:
    return (tmp_path / "06-loops.mlir").read_text()


def _calls(text: str) -> int:
    return len(re.findall(r"call @aten_mlir_parallel_for\(", text))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_layer_norm_softmax_gelu(dtype, tmp_path):
    torch.manual_seed(0)
    model = _Rows().to(dtype)
    x = torch.randn(4, 64, 100, dtype=dtype)
    shapes = {"x": {0: Dim("b", max=64), 1: Dim("s", max=4096)}}
    compiled = aten_mlir.compile(
        export(model, (x,), dynamic_shapes=shapes), target="cpu", dump_dir=tmp_path, cache=False
    )
    text = _loops(tmp_path)
    assert _calls(text) == 1, text  # one fused nest over the rows, on the pool
    assert "vector.maskedload" in text and "vector.reduction" in text
    assert re.search(r"arith\.muli %\w+, %\w+ : index\s", text)  # b * s shares
    tol = {} if dtype == torch.float32 else {"atol": 2e-2, "rtol": 2e-2}
    for b, s in ((1, 1), (3, 17), (2, 100)):
        y = torch.randn(b, s, 100, dtype=dtype)
        torch.testing.assert_close(compiled(y), model(y), **tol)


def test_dynamic_row_length(tmp_path):
    torch.manual_seed(0)
    s = torch.randn(2, 3, 16, 16)
    seq = Dim("seq", max=4096)
    shapes = {"s": {0: Dim("b", max=64), 2: seq, 3: seq}}
    compiled = aten_mlir.compile(
        export(_Scores(), (s,), dynamic_shapes=shapes), target="cpu", dump_dir=tmp_path, cache=False
    )
    text = _loops(tmp_path)
    # the scaling (one flat vector loop over all elements) and the fused softmax rows, each on
    # the pool; the flat loop's trips are dynamic, so whether it is worth the workers is decided
    # at run time (else the outlined loop is called on this thread)
    assert _calls(text) == 2, text
    assert re.search(r"arith\.cmpi uge[^\n]*\n\s+scf\.if", text), text
    assert "vector.create_mask" in text and "vector.maskedload" in text
    # the masked step runs only when the row has a partial step (a reduction's yields its
    # accumulators either way)
    assert re.search(r"scf\.if %\w+ -> \(vector<\d+xf32>\) \{\s+%\w+ = vector\.create_mask", text)
    for b, n in ((1, 1), (2, 7), (3, 33)):
        y = torch.randn(b, 3, n, n)
        torch.testing.assert_close(compiled(y), _Scores()(y))

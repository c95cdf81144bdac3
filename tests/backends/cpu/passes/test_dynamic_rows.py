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
    assert "vector.create_mask" in text and "vector.masked" not in text
    # the masked step runs only when the row has a partial step (a reduction's yields its
    # accumulators either way) and reads its elements as unmasked pieces of 8, 4, 2 and 1
    # lanes, each under its own bit of the rest; its mask (which lanes the reductions take)
    # is built once, outside the rows (lane_tail.py)
    partial = r"scf\.if %\w+ -> \(vector<\d+xf32>\) \{\s+%\w+ = scf\.if %\w+ -> \(vector<2xf32>\)"
    assert re.search(partial, text), text
    assert re.search(r"vector\.load [^\n]*vector<1xf32>", text), text
    assert not re.search(r"scf\.if[^\n]*\{\s+%\w+ = vector\.create_mask", text), text
    for b, n in ((1, 1), (2, 7), (3, 33)):
        y = torch.randn(b, 3, n, n)
        torch.testing.assert_close(compiled(y), _Scores()(y))


class _Attention(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def test_attention_softmax_rows_fuse_across_buffers(tmp_path):
    """The sum and max buffers of sdpa's softmax are alloc(%b, %s) and the scores a view with
    output_shape [%b, 8, %s, %s]: their nests' bounds are `memref.dim`s of different memrefs
    made from the same sizes, so the max, exp, sum and scale passes fuse into one nest."""
    torch.manual_seed(0)
    b, s = Dim("b", max=64), Dim("s", max=512)
    ex = tuple(torch.randn(2, 8, 16, 64) for _ in range(3))
    compiled = aten_mlir.compile(
        export(_Attention(), ex, dynamic_shapes=tuple({0: b, 2: s} for _ in range(3))),
        target="cpu",
        dump_dir=tmp_path,
        cache=False,
    )
    text = _loops(tmp_path)
    bodies = re.split(r"func\.func ", text)
    softmax = [f for f in bodies if "math.exp" in f]
    assert len(softmax) == 1, text  # the exp nest also holds both reductions
    assert "<maxsi>" in softmax[0] and "<add>" in softmax[0], softmax[0]
    for n, m in ((1, 1), (2, 7), (1, 33), (3, 100)):
        args = tuple(torch.randn(n, 8, m, 64) for _ in range(3))
        torch.testing.assert_close(compiled(*args), _Attention()(*args), atol=1e-5, rtol=1e-5)

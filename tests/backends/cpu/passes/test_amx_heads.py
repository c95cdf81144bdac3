"""The AMX kernel on a product with two reduction dims: a transformer's output projection
`[b, h, s, d] -> [b, s, h * d] @ W.T` (the transpose folded into the maps, W seen as
`[n, h, d]`). The heads are folded into the tile k loop (`amx.AmxEmitter.folded`): each head's
k tiles follow the previous head's in the copies, C's tiles stay in registers across all of
them, so C's zero fill goes and the residual add is applied by the kernel.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.backends.cpu.passes.test_amx import requires_amx


class _Projection(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)

    def forward(self, x, a):
        b, h, s, d = a.shape
        return x + self.proj(a.transpose(1, 2).reshape(b, s, h * d))


# the f32 accumulator's zero fill (the copies' bf16 zero padding is filled too)
_C_FILL = re.compile(r"linalg\.fill ins\(%\w+ : f32\)")


def _model(width: int) -> tuple[_Projection, _Projection]:
    torch.manual_seed(0)
    model = _Projection(width).to(torch.bfloat16).eval()
    exact = _Projection(width).double().eval()
    exact.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
    return model, exact


def _check(program, model, exact, x, a) -> None:
    """Each element no farther from float64 than eager's plus two bf16 ulps: the projection is
    rounded to bf16 before the residual add, so an ulp apart there is another ulp after (the
    FMA kernels, ATEN_MLIR_AMX=0, give the same values)."""
    with torch.no_grad():
        ours, eager, e = program(x, a).double(), model(x, a).double(), exact(x.double(), a.double())
    ulp = torch.finfo(torch.bfloat16).eps * e.abs().clamp_min(1.0)
    excess = (ours - e).abs() - (eager - e).abs() - 2 * ulp
    assert excess.max() <= 0, excess.max()


@requires_amx
@pytest.mark.parametrize("b, h, s, d", [(2, 8, 64, 64), (3, 4, 77, 64), (2, 3, 33, 40)])
def test_heads_folded_into_the_tile_k_loop(tmp_path, b, h, s, d):
    """One k loop over all heads: C's fill and the residual's generic are gone (the kernel
    writes the rounded rows), the values as close to float64 as eager's; d = 40 pads each
    head's k to whole tiles."""
    model, exact = _model(h * d)
    x = torch.randn(b, s, h * d, dtype=torch.bfloat16)
    a = torch.randn(b, h, s, d, dtype=torch.bfloat16)
    ep = torch.export.export(model, (x, a))
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "amx.tile_mulf" in text
    assert not _C_FILL.search(text) and "linalg.generic" not in text
    _check(program, model, exact, x, a)


@requires_amx
def test_heads_folded_off_keeps_the_fill(tmp_path, monkeypatch):
    """ATEN_MLIR_AMX_FOLD=0 (A/B timing): the heads loop outside the kernel, which adds into
    the zero-filled C per head; same values."""
    monkeypatch.setenv("ATEN_MLIR_AMX_FOLD", "0")
    model, exact = _model(128)
    x = torch.randn(2, 64, 128, dtype=torch.bfloat16)
    a = torch.randn(2, 2, 64, 64, dtype=torch.bfloat16)
    ep = torch.export.export(model, (x, a))
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "amx.tile_mulf" in text and _C_FILL.search(text)
    _check(program, model, exact, x, a)


@requires_amx
@pytest.mark.parametrize("d", [64, 40])
def test_heads_folded_with_a_dynamic_sequence(tmp_path, d):
    """`?` sequence (and batch) from one compile at 7, 77 and 100 rows."""
    h = 4
    model, exact = _model(h * d)
    s, b = Dim("s", min=2, max=512), Dim("b", min=1, max=8)
    x = torch.randn(2, 64, h * d, dtype=torch.bfloat16)
    a = torch.randn(2, h, 64, d, dtype=torch.bfloat16)
    dynamic = ({0: b, 1: s}, {0: b, 2: s})
    ep = torch.export.export(model, (x, a), dynamic_shapes=dynamic)
    program = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert "amx.tile_mulf" in (tmp_path / "05-vectorize.mlir").read_text()
    for batch, rows in ((1, 7), (3, 77), (2, 100)):
        x = torch.randn(batch, rows, h * d, dtype=torch.bfloat16)
        a = torch.randn(batch, h, rows, d, dtype=torch.bfloat16)
        _check(program, model, exact, x, a)

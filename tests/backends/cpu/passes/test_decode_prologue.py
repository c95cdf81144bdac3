"""Decode-step products (`x [b, M, k] @ W.T`, M = 1..8) whose input is computed by a layer norm
or a GELU: `aten-split-contraction-prologue` computes that input once, so the product reaches
a vector kernel of `cpu-vectorize-contractions` instead of recomputing the prologue per output
column inside a scalar reduction (GPT-2 decode: a tanh-GELU 768 times per element, 83 ms).

Reshapes folded into the product leave a unit reduction dim beside k (x [1, 1, k]: k as
(1, k)); these tests pin that form at odd M, n and k, static and with a dynamic batch.
"""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch import nn
from torch.export import Dim

import aten_mlir
from aten_mlir.dialects import make_context


class _Block(nn.Module):
    """ln -> Linear -> tanh-GELU -> Linear, as GPT-2's MLP (n and k not multiples of 16)."""

    def __init__(self, width=37, hidden=131):
        super().__init__()
        self.ln = nn.LayerNorm(width)
        self.fc, self.proj = nn.Linear(width, hidden), nn.Linear(hidden, width)

    def forward(self, x):
        return self.proj(nn.functional.gelu(self.fc(self.ln(x)), approximate="tanh"))


def _model() -> nn.Module:
    torch.manual_seed(0)
    return _Block().eval()


def _fused_products(dump) -> list[str]:
    """The reductions over a weight left with a prologue in their body after vectorization."""
    text = (dump / "05-vectorize.mlir").read_text()
    with make_context():
        module = ir.Module.parse(text)
        found = []

        def visit(op):
            op = op.operation
            if op.name == "linalg.generic":
                iters = str(op.attributes["iterator_types"])
                body = [o.operation.name for o in op.regions[0].blocks[0].operations]
                if "reduction" in iters and ("math.tanh" in body or "math.sqrt" in body):
                    found.append(str(op)[:200])
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return found


@pytest.mark.parametrize("rows", [1, 3, 5, 8])
def test_decode_prologue_split_static(rows, tmp_path):
    model = _model()
    x = torch.randn(1, rows, 37)
    ep = torch.export.export(model, (x,))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert _fused_products(tmp_path) == []
    assert "vector.fma" in (tmp_path / "05-vectorize.mlir").read_text()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-4)


def test_decode_prologue_split_dynamic_batch(tmp_path):
    """One compile, a `?` batch of one-token rows: [b, 1, k] at b = 1, 3, 7."""
    model = _model()
    ep = torch.export.export(
        model, (torch.randn(2, 1, 37),), dynamic_shapes=({0: Dim("b", min=1, max=16)},)
    )
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert _fused_products(tmp_path) == []
    with torch.no_grad():
        for batch in (1, 3, 7):
            x = torch.randn(batch, 1, 37)
            torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-4)

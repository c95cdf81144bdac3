"""bf16/f16 products into an f32 accumulator take the f32 products' path
(aten-generalize-products, aten-fold-transposes, aten-split-contraction-prologue): one generic
reading the weight through a permuted map (no transposed copy per call), inputs widened in
its body, a fused prologue materialized in the narrow type."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import export

import aten_mlir

_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


class _Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(24)
        self.up = torch.nn.Linear(24, 40)
        self.down = torch.nn.Linear(40, 24)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class _Scores(torch.nn.Module):
    def forward(self, q, k):
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1)


def _compile(model, args, tmp_path):
    compiled = aten_mlir.compile(export(model, args), target="cpu", dump_dir=tmp_path, cache=False)
    return compiled, (tmp_path / "04-bufferize.mlir").read_text()


def _products(text: str) -> list[str]:
    """Each reduction generic's header and body, up to its yield."""
    starts = [m.start() for m in re.finditer(r"linalg\.generic .*reduction", text)]
    return [text[s : text.index("linalg.yield", s)] for s in starts]


@pytest.mark.parametrize("dtype", sorted(_DTYPES))
def test_linear_reads_weight_in_place(dtype, tmp_path):
    torch.manual_seed(0)
    model = _Mlp().to(_DTYPES[dtype])
    x = torch.randn(5, 24, dtype=_DTYPES[dtype])
    compiled, text = _compile(model, (x,), tmp_path)
    assert "linalg.transpose" not in text and "linalg.matmul" not in text
    narrow = "bf16" if dtype == "bf16" else "f16"
    products = [p for p in _products(text) if f"memref<40x24x{narrow}>" in p or "24x40x" in p]
    assert len(products) == 2, text  # both projections read their bf16/f16 weight as is
    for p in products:
        ops = re.findall(r"= (arith\.\w+ %[\w]+(?:, %\w+)?)", p)
        assert [o.split()[0] for o in ops] == ["arith.extf"] * 2 + ["arith.mulf", "arith.addf"], p
        assert re.search(
            rf"ins\(%\w+, %\w+ : memref<5x\d+x{narrow}>, memref<\d+x\d+x{narrow}>\)", p
        )
    # no f32 copy of a weight
    assert not re.search(r"outs\(%\w+ : memref<(40x24|24x40)xf32>\)", text), text
    torch.testing.assert_close(compiled(x), model(x), atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("dtype", sorted(_DTYPES))
def test_batched_scores(dtype, tmp_path):
    torch.manual_seed(0)
    q = torch.randn(2, 3, 7, 16, dtype=_DTYPES[dtype])
    k = torch.randn(2, 3, 9, 16, dtype=_DTYPES[dtype])
    compiled, text = _compile(_Scores(), (q, k), tmp_path)
    assert "linalg.transpose" not in text and "linalg.batch_matmul" not in text
    torch.testing.assert_close(compiled(q, k), _Scores()(q, k), atol=2e-2, rtol=2e-2)

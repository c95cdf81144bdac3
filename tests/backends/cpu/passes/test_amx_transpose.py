"""The AMX kernel's in-register 16 x 16 transpose (`amx_transpose`): its shuffle network puts
every element where a transpose does, and a bf16 Linear (weight = the row operand, result
tiles transposed into C) uses it, with values as close to float64 as eager's."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.passes.amx_transpose import transpose16
from tests.backends.cpu.passes.test_amx import requires_amx
from tests.support.narrow_products import assert_close_as_eager


def test_shuffle_network_transposes():
    rows = [[(i, j) for j in range(16)] for i in range(16)]
    calls = []

    def shuffle(a, b, mask):
        assert len(mask) == 16 and all(0 <= x < 32 for x in mask)
        calls.append(mask)
        return [(a + b)[x] for x in mask]

    cols = transpose16(rows, shuffle)
    assert cols == [[(i, j) for i in range(16)] for j in range(16)]
    assert len(calls) == 64  # 4 shuffles per row


class _Linear(torch.nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.l = torch.nn.Linear(k, n)

    def forward(self, x):
        return self.l(x)


@requires_amx
@pytest.mark.parametrize("shape", [(4, 128, 512, 1536), (1, 33, 100, 257), (2, 17, 96, 40)])
def test_linear_result_transposed_by_shuffles(tmp_path, shape):
    b, s, k, n = shape
    torch.manual_seed(0)
    model = _Linear(k, n).to(torch.bfloat16).eval()
    x = torch.randn(b, s, k, dtype=torch.bfloat16)
    program = aten_mlir.compile(
        torch.export.export(model, (x,)), target="cpu", dump_dir=tmp_path, cache=False
    )
    text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "amx.tile_mulf" in text and "vector.shuffle" in text
    assert "vector.transpose" not in text
    with torch.no_grad():
        w, bias = model.l.weight.double(), model.l.bias.double()
        exact = x.double() @ w.t() + bias
        assert_close_as_eager(program(x), model(x), exact)

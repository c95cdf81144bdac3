"""Row tails (backends/triton/codegen/row_epilogue.py): the nest reducing a product's rows
(softmax, log-softmax, row max) runs in the product's kernel when a row fits in one column tile."""

import pytest
import torch
from torch import nn

import aten_mlir
from aten_mlir.backends.triton.codegen import row_epilogue
from aten_mlir.backends.triton.host.traffic import report


def _compile(model, *args):
    return aten_mlir.compile(torch.export.export(model, args), target="triton")


def _check(compiled, model, *args, tol=1e-5):
    with torch.no_grad():
        torch.testing.assert_close(
            compiled(*args), model(*args), atol=tol, rtol=tol, equal_nan=True
        )


class Scores(nn.Module):
    """Attention probabilities: scaled scores, a causal mask, the softmax."""

    def forward(self, q, k):
        s = q @ k.transpose(-1, -2) / 8
        n = s.shape[-1]
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        return torch.softmax(s.masked_fill(~causal, float("-inf")), dim=-1)


@pytest.mark.parametrize("seq", [16, 24, 72])  # a whole tile, masked columns, wider than 64
def test_softmax_runs_in_the_scores_kernel(seq):
    q, k = torch.randn(2, 3, seq, 8), torch.randn(2, 3, seq, 8)
    compiled = _compile(Scores(), q, k)
    (kernel,) = compiled.library.kernels
    assert kernel.mode == "matmul" and "tl.reduce(" in kernel.source
    assert "tl.store(cp" not in kernel.source  # the scores are never written
    _check(compiled, Scores(), q, k)
    r = report(compiled, q, k)
    assert r["bytes_moved"] == (q.numel() + k.numel() + 2 * 3 * seq * seq) * 4


def test_a_row_wider_than_a_tile_takes_its_own_kernel(monkeypatch):
    monkeypatch.setattr(row_epilogue, "MAX_ROW", 8)
    q, k = torch.randn(1, 2, 16, 8), torch.randn(1, 2, 16, 8)
    compiled = _compile(Scores(), q, k)
    assert [k.mode for k in compiled.library.kernels] == ["matmul", "block"]
    _check(compiled, Scores(), q, k)


class RowStats(nn.Module):
    """A log-softmax and the row max, both outputs: the max is stored from the tail."""

    def forward(self, a, b):
        s = a @ b
        return s.log_softmax(-1), s.amax(-1, keepdim=True), s.sum(-1)


def test_row_statistics_the_program_returns_are_stored():
    a, b = torch.randn(40, 12), torch.randn(12, 30)
    a[3, 0] = float("nan")  # a NaN row: max and sum propagate it as eager does
    compiled = _compile(RowStats(), a, b)
    assert compiled.library.kernels[0].mode == "matmul"
    assert "tl.reduce(" in compiled.library.kernels[0].source
    _check(compiled, RowStats(), a, b, tol=1e-5)


class RowScan(nn.Module):
    def forward(self, a, b):
        return torch.cumsum(a @ b, dim=-1)


def test_a_scan_along_the_row_is_not_a_reduction():
    a, b = torch.randn(2, 20, 8), torch.randn(2, 8, 24)
    compiled = _compile(RowScan(), a, b)
    assert all("tl.reduce(" not in k.source for k in compiled.library.kernels)
    _check(compiled, RowScan(), a, b)


class ResidualNorm(nn.Module):
    """A projection, the residual add (an elementwise tail), then a norm of the sum (a row
    nest reading the sum from registers): BERT's post-LN block, or LLaMA's RMSNorm that also
    returns the sum."""

    def __init__(self, rms: bool):
        super().__init__()
        self.rms = rms
        self.proj = nn.Linear(24, 48)
        self.norm = nn.RMSNorm(48) if rms else nn.LayerNorm(48)

    def forward(self, x, y):
        h = x + self.proj(y)
        return (h, self.norm(h)) if self.rms else self.norm(h)


@pytest.mark.parametrize("rms", [False, True])
def test_a_norm_of_the_residual_sum_runs_in_the_product_kernel(rms):
    model = ResidualNorm(rms)
    with torch.no_grad():
        model.norm.weight.uniform_(0.5, 1.5)
    x, y = torch.randn(3, 10, 48), torch.randn(3, 10, 24)
    compiled = _compile(model, x, y)
    assert [k.mode for k in compiled.library.kernels] == ["matmul"]
    _check(compiled, model, x, y, tol=1e-4)
    r = report(compiled, x, y)
    params = sum(p.numel() for p in model.parameters())
    outputs = x.numel() * (2 if rms else 1)
    assert r["bytes_moved"] == (x.numel() + y.numel() + params + outputs) * 4


def test_a_row_nest_that_cannot_be_written_leaves_the_elementwise_tail(monkeypatch):
    def refuse(*args):
        raise row_epilogue.KernelError("refused")

    monkeypatch.setattr(row_epilogue, "emit", refuse)
    model, x, y = ResidualNorm(False), torch.randn(3, 10, 48), torch.randn(3, 10, 24)
    compiled = _compile(model, x, y)
    assert [k.mode for k in compiled.library.kernels] == ["matmul", "block"]
    assert "tl.store(cp" not in compiled.library.kernels[0].source  # the residual add's tail
    _check(compiled, model, x, y, tol=1e-4)

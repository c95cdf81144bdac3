"""`_pdist_backward` compiles with no eager fallback and matches eager
(`passes/decompose/losses_distance_backward.py`) for p = 0, 1, 2, inf and general p, including
pairs at distance 0 (repeated rows) and coordinates that tie: called directly through
`torch.export` (static and with a `Dim` on the rows or the features), and as AOTAutograd leaves
it in a training step."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir
from tests.support.dynamo import check_training_matches_eager

aten = torch.ops.aten
NORMS = [0.0, 1.0, 2.0, math.inf, 1.5, 3.0, 0.5]


class PdistBackward(torch.nn.Module):
    """grad_input of pdist from the pair gradient, the input and its distances (eager's: the
    rule is checked apart from the forward's own rounding, which the gradient amplifies where
    p < 1)."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, g, x, d):
        return aten._pdist_backward(g, x, self.p, d)


def _args(x, p):
    d = aten._pdist_forward(x, p)
    return torch.cos(d) - 0.25, x, d


def _rows(n, m, dtype, seed=0):
    """Values with ties: row 3 repeats row 1 (distance 0), and columns share entries."""
    gen = torch.Generator().manual_seed(seed + 31 * n + m)
    x = torch.randint(-3, 4, (n, m), generator=gen).to(dtype) / 2
    x = x + torch.randn(n, m, generator=gen, dtype=dtype) * (torch.rand(n, m, generator=gen) < 0.5)
    if n > 3:
        x[3] = x[1]
    return x


def _check(program, module, x):
    args = _args(x, module.p)
    tol = dict(rtol=1e-4, atol=1e-5) if x.dtype == torch.float32 else dict(rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(program(*args), module(*args), **tol)


@pytest.mark.parametrize("p", NORMS, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_pdist_backward_static(p, dtype):
    module = PdistBackward(p)
    for n, m in [(1, 3), (2, 1), (5, 5), (7, 5), (33, 7)]:  # (5, 5): see _spread
        x = _rows(n, m, dtype)
        program = aten_mlir.compile(torch.export.export(module, _args(x, p)))
        assert program.fallbacks == []
        _check(program, module, x)


@pytest.mark.parametrize("p", NORMS, ids=str)
@pytest.mark.parametrize("dim", [0, 1], ids=["rows", "features"])
def test_pdist_backward_dynamic(p, dim):
    module = PdistBackward(p)
    x = _rows(7, 5, torch.float64)
    if dim == 0:  # the pair count k = n (n - 1) / 2 a size of its own
        k = Dim("k", min=2, max=4096)
        shapes = ({0: k}, {0: Dim("n", min=2, max=64)}, {0: k})
    else:
        shapes = (None, {1: Dim("m", min=2, max=64)}, None)
    program = aten_mlir.compile(torch.export.export(module, _args(x, p), dynamic_shapes=shapes))
    assert program.fallbacks == []
    for s in [2, 3, 7, 33] if dim == 0 else [2, 7, 33, 5]:
        shape = (s, 5) if dim == 0 else (7, s)
        _check(program, module, _rows(*shape, torch.float64, seed=s))


class Pdists(torch.nn.Module):
    """Elementwise parameters before the distances: equal input rows stay equal to the bit, so
    a pair at distance 0 stays one (where a gradient jumps: a rounding apart, p = 2 would give
    a unit vector instead of 0)."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.linspace(0.5, 1.5, 4))
        self.shift = torch.nn.Parameter(torch.linspace(-0.2, 0.3, 4))

    def forward(self, x):
        h = torch.tanh(x * self.scale + self.shift)
        return torch.stack([F.pdist(h, p).sum() for p in (1.0, 2.0, math.inf, 1.5, 3.0)])


def test_a_training_step_through_it_has_no_fallback():
    torch.manual_seed(0)
    model = Pdists()
    batches = [(torch.randn(6, 4), torch.randn(5)) for _ in range(4)]
    batches[1][0][4] = batches[1][0][2]  # a pair at distance 0

    def loss(out, y):
        return ((out - y) ** 2).mean()

    check_training_matches_eager(model, batches, loss, lr=0.01)

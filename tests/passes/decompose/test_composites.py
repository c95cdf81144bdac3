"""Composite ops torch.export keeps in its graphs compile with no eager fallback and match eager
(`passes/decompose/composites.py`), static and with a `Dim`; a bad `one_hot` label raises as in
eager. Each module below is how a user reaches the op."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir


class TypeAs(torch.nn.Module):
    """RoBERTa's position ids: a cumsum cast back to the mask's dtype."""

    def forward(self, ids):
        mask = ids.ne(1).int()
        return (torch.cumsum(mask, dim=1).type_as(mask) + 1) * mask + ids.float().type_as(ids)


class OneHot(torch.nn.Module):
    def forward(self, labels, x):
        return F.one_hot(labels, 5).float() @ x


class WeightNorm(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(6, 7), dim=dim)
        self.conv = torch.nn.utils.weight_norm(torch.nn.Conv1d(6, 4, 3), dim=dim)

    def forward(self, x):
        return self.lin(x).sum() + self.conv(x.transpose(1, 2)).sum(1)


class Backwards(torch.nn.Module):
    def forward(self, g, x):
        aten = torch.ops.aten
        return (
            aten.silu_backward(g, x)
            + aten.mish_backward(g, x)
            + aten.infinitely_differentiable_gelu_backward(g, x)
        )


class DimArange(torch.nn.Module):
    """(its meta function makes the size a constant: static only)"""

    def forward(self, x):
        return x + torch._dim_arange(x, 1)


class LegacyConvs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w2 = torch.nn.Parameter(torch.randn(3, 2, 3, 2))
        self.w3 = torch.nn.Parameter(torch.randn(3, 2, 2, 3, 2))
        self.wt = torch.nn.Parameter(torch.randn(3, 2, 4))
        self.b = torch.nn.Parameter(torch.randn(3))

    def forward(self, x, v, t):
        aten = torch.ops.aten
        a = aten.thnn_conv2d(x, self.w2, [3, 2], self.b, [2, 1], [1, 0])
        c = aten.slow_conv3d(v, self.w3, [2, 3, 2], self.b, [1, 2, 1], [1, 1, 0])
        return a.sum() + c.sum() + torch.conv_tbc(t, self.wt, self.b[:1].repeat(4), 1)


def _special(n):
    torch.manual_seed(0)
    x = torch.randn(n) * 4
    x[:6] = torch.tensor([0.0, -0.0, 30.0, -30.0, 1e-20, -9.0])
    return x


CASES = {
    "type_as": (TypeAs(), lambda n: (torch.randint(0, 4, (2, n)),), {0: {1: "n"}}),
    "one_hot": (
        OneHot(),
        lambda n: (torch.randint(0, 5, (n,)), torch.randn(5, 3)),
        {0: {0: "n"}},
    ),
    "weight_norm_0": (WeightNorm(0), lambda n: (torch.randn(2, n, 6),), {0: {1: "n"}}),
    "weight_norm_1": (WeightNorm(1), lambda n: (torch.randn(2, n, 6),), {0: {1: "n"}}),
    "backwards": (
        Backwards(),
        lambda n: (torch.randn(3, n), _special(3 * n).reshape(3, n)),
        {0: {1: "n"}, 1: {1: "n"}},
    ),
    "dim_arange": (DimArange(), lambda n: (torch.randn(2, n),), None),
    "legacy_convs": (
        LegacyConvs(),
        lambda n: (torch.randn(2, 2, 7, n), torch.randn(1, 2, 5, 6, n), torch.randn(n, 2, 2)),
        None,  # torch cannot trace thnn_conv2d with a symbolic size (no fake kernel)
    ),
}


def _shapes(spec):
    n = Dim("n", min=4, max=64)
    return tuple({d: n for d in spec.get(k, {})} or None for k in range(max(spec) + 1))


@pytest.mark.parametrize(
    "name, dynamic",
    [(n, d) for n, case in CASES.items() for d in (False, True) if case[2] is not None or not d],
)
def test_composite_ops_compile_without_fallback(name, dynamic):
    module, make, spec = CASES[name]
    args = make(9)
    shapes = None
    if dynamic:
        shapes = _shapes(spec)
        shapes = shapes + (None,) * (len(args) - len(shapes))
    program = aten_mlir.compile(torch.export.export(module, args, dynamic_shapes=shapes))
    assert program.fallbacks == []
    for n in [9, 13] if dynamic else [9]:
        args = make(n)
        torch.testing.assert_close(program(*args), module(*args), rtol=2e-5, atol=2e-5)


def test_one_hot_labels_out_of_range_raise():
    program = aten_mlir.compile(
        torch.export.export(OneHot(), (torch.tensor([0, 4]), torch.randn(5, 3)))
    )
    for bad in ([0, 5], [-1, 2]):
        with pytest.raises(RuntimeError):  # eager
            OneHot()(torch.tensor(bad), torch.randn(5, 3))
        with pytest.raises(IndexError, match="out of range for 5 classes"):
            program(torch.tensor(bad), torch.randn(5, 3))


def test_an_in_place_comparison_keeps_its_dtype():
    """`x.greater_(y)` on floats writes 0./1. floats: imported through torch's
    functionalization, not as the bool-valued `greater` (an IR verifier error before)."""

    class Compare(torch.nn.Module):
        def forward(self, x, y):
            return x.clone().greater_(y) + x.clone().not_equal_(y) * 2 + x.clone().less_equal_(y)

    x, y = torch.randn(4, 5), torch.randn(4, 5)
    y[0] = x[0]
    program = aten_mlir.compile(torch.export.export(Compare(), (x, y)))
    torch.testing.assert_close(program(x, y), Compare()(x, y))

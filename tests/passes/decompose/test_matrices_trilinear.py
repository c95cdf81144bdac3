"""`aten._trilinear` (nn.Bilinear's forward and its gradients) compiles with no eager fallback and
matches eager (`passes/decompose/matrices_trilinear.py`): called directly through `torch.export`
(static and with a `Dim`), and in a training step through `nn.Bilinear`."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir
from tests.support.dynamo import check_training_matches_eager

aten = torch.ops.aten


class Trilinear(torch.nn.Module):
    def __init__(self, expand1, expand2, expand3, sumdim, unroll_dim=1):
        super().__init__()
        self.args = (expand1, expand2, expand3, sumdim, unroll_dim)

    def forward(self, i1, i2, i3):
        return aten._trilinear(i1, i2, i3, *self.args)


# name -> (expand1, expand2, expand3, sumdim, unroll_dim), operand shapes with B the batch
CASES = {
    # F.bilinear(x1 [B, I], x2 [B, J], w [O, I, J]) and the three calls of its backward
    "bilinear": (([1, 3], [0], [1, 2], [2, 3], 1), [("B", 5), (3, 5, 4), ("B", 4)]),
    "grad_x1": (([2, 3], [0], [1, 2], [1, 3], 1), [("B", 3), (3, 5, 4), ("B", 4)]),
    "grad_weight": (([1, 3], [2, 3], [1, 2], [0], 1), [("B", 5), ("B", 3), ("B", 4)]),
    "grad_x2": (([1, 3], [0], [2, 3], [1, 2], 1), [("B", 5), (3, 5, 4), ("B", 3)]),
    # nothing summed (a broadcast product); unroll_dim 2 (export specialises the dim ATen's
    # meta function loops over, so it is never the batch here)
    "outer": (([2], [0], [], [], 2), [("B", 5), (5, 4), ("B", 5, 4)]),
    # a summed dim all three expand (size 1, dropped) and a size-1 dim only i3 has
    "unit_sum": (([0, 2], [0, 2], [2], [2], 1), [(7,), (7,), (1, 7)]),
}


def _make(shapes, batch, elem):
    return [torch.randn([batch if s == "B" else s for s in shape], dtype=elem) for shape in shapes]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dim"])
@pytest.mark.parametrize("elem", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_trilinear_matches_eager(name, dynamic, elem):
    args, shapes = CASES[name]
    module = Trilinear(*args)
    has_batch = any("B" in s for s in shapes)
    inputs = _make(shapes, 7, elem)
    specs = None
    if dynamic and has_batch:
        b = Dim("b", min=1, max=64)
        specs = tuple({s.index("B"): b} if "B" in s else None for s in shapes)
    program = aten_mlir.compile(torch.export.export(module, tuple(inputs), dynamic_shapes=specs))
    assert program.fallbacks == []
    for batch in [7, 1, 33] if specs else [7]:
        inputs = _make(shapes, batch, elem)
        torch.testing.assert_close(program(*inputs), module(*inputs))


class Pairs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 5)
        self.bilinear = torch.nn.Bilinear(5, 6, 4)

    def forward(self, x):
        return self.bilinear(torch.tanh(self.a(x)), x)


def test_a_training_step_through_bilinear_has_no_fallback():
    torch.manual_seed(0)
    model = Pairs()
    batches = [(torch.randn(7, 6), torch.randint(0, 4, (7,))) for _ in range(3)]
    check_training_matches_eager(model, batches, F.cross_entropy)

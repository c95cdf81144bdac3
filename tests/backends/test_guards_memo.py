"""Call-time guards with the sizes already seen: a call whose input sizes passed before skips
the symbolic size checks (`CallGuards._passed_sizes`), yet every other check still runs, a size
that failed stays refused, and the memory of sizes stays bounded."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim, export

import aten_mlir
from aten_mlir.backends import guards


class Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


class Guarded(torch.nn.Module):
    """A tracer guard (`x.size(1) != 7`) next to the Dim ranges."""

    def forward(self, x):
        torch._check(x.size(1) != 7)
        return x * 2


@pytest.fixture(scope="module")
def add():
    a, b = Dim("a", min=2, max=64), Dim("b", min=2, max=64)
    shapes = {"x": {0: a, 1: b}, "y": {0: a, 1: b}}
    ep = export(Add(), (torch.randn(3, 5), torch.randn(3, 5)), dynamic_shapes=shapes)
    return aten_mlir.compile(ep, target="cpu", cache=False)


def test_bad_inputs_fail_after_their_sizes_passed(add):
    x, y = torch.randn(6, 9), torch.randn(6, 9)
    for _ in range(3):  # the sizes are remembered after the first call
        torch.testing.assert_close(add(x, y), x + y)
    assert (torch.Size([6, 9]), torch.Size([6, 9])) in add._guards._passed_sizes
    with pytest.raises(ValueError, match="argument 'y': expected .*torch.float32"):
        add(x, y.double())
    with pytest.raises(ValueError, match="argument 'x': expected a tensor"):
        add([[1.0]], y)
    with pytest.raises(ValueError, match="argument 'y': expected"):
        add(x, torch.randn(6, 9, 1))
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="argument 'x' is on cuda"):
            add(x.cuda(), y)


def test_sizes_that_fail_are_never_remembered(add):
    x = torch.randn(6, 9)
    for _ in range(2):
        with pytest.raises(ValueError, match="argument 'y' dim 1"):
            add(x, torch.randn(6, 8))  # b differs between x and y
        with pytest.raises(ValueError, match="65"):
            add(torch.randn(65, 9), torch.randn(65, 9))  # above the Dim's max
    assert (torch.Size([6, 9]), torch.Size([6, 8])) not in add._guards._passed_sizes


def test_a_non_contiguous_input_gives_the_right_values(add):
    x, y = torch.randn(9, 6).t(), torch.randn(6, 9)
    for _ in range(2):
        torch.testing.assert_close(add(x, y), x + y)


def test_the_tracers_guards_still_hold_with_sizes_remembered():
    n = Dim("n", min=2, max=64)
    ep = export(Guarded(), (torch.randn(3, 5),), dynamic_shapes={"x": {0: n, 1: Dim.DYNAMIC}})
    compiled = aten_mlir.compile(ep, target="cpu", cache=False)
    x = torch.randn(4, 5)
    for _ in range(2):
        torch.testing.assert_close(compiled(x), x * 2)
        with pytest.raises(ValueError, match=r"!= 7"):
            compiled(torch.randn(4, 7))


def test_remembered_sizes_are_bounded(add, monkeypatch):
    monkeypatch.setattr(guards, "_PASSED_SIZES", 4)
    add._guards._passed_sizes.clear()
    for n in range(2, 12):
        x = torch.randn(n, 3)
        torch.testing.assert_close(add(x, x), x + x)
        assert len(add._guards._passed_sizes) <= 4
    with pytest.raises(ValueError, match="argument 'y' dim 0"):
        add(torch.randn(11, 3), torch.randn(10, 3))  # evicted or not, still checked

"""Indices read from tensors never reach memory outside a buffer: `aten-clamp-data-indices`
clamps the coordinates compiled code computes from data, and index tensors the user passes are
checked against the dim they index before the call (an `IndexError` naming the argument, the
op and the line, as eager refuses them)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.frontend import index_checks
from tests.support.triton import triton_interpreter  # noqa: F401  (fixture)


class Take(torch.nn.Module):
    def forward(self, x, i):
        return x[i]


class IndexAdd(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_add(0, i, v)


class Lookup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)

    def forward(self, i):
        return self.emb(i)


class Gather(torch.nn.Module):
    def forward(self, x, i):
        return x.gather(1, i)


class Select(torch.nn.Module):
    def forward(self, x, i):
        return x.index_select(0, i)


def _compiled(model, args, target="cpu", dynamic=None):
    ep = torch.export.export(model, args, dynamic_shapes=dynamic)
    return aten_mlir.compile(ep, target=target, cache=False)


CASES = {
    # name: (model, valid args, bad index position, bad index, message fragment)
    "index": (Take(), (torch.randn(5, 3), torch.tensor([0, 4])), 1, [0, 10**6], "10000"),
    "index_add": (
        IndexAdd(),
        (torch.zeros(5, 3), torch.tensor([0, 4]), torch.ones(2, 3)),
        1,
        [0, 10**8],
        "index_add",
    ),
    "embedding": (Lookup(), (torch.tensor([1, 2]),), 0, [1, 10], "embedding"),
    "embedding_negative": (Lookup(), (torch.tensor([1, 2]),), 0, [-1, 2], "embedding"),
    "gather": (Gather(), (torch.randn(2, 3), torch.tensor([[0], [2]])), 1, [[0], [3]], "gather"),
    "gather_negative": (
        Gather(),
        (torch.randn(2, 3), torch.tensor([[0], [2]])),
        1,
        [[0], [-1]],
        "gather",
    ),
    "index_select_past_end": (
        Select(),
        (torch.randn(4, 2), torch.tensor([0, 3])),
        1,
        [-1, 0],
        "index_select",
    ),
}


@pytest.mark.parametrize("target", ["cpu", "triton"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_index_input_out_of_range_is_refused(name, target, request):
    if target == "triton":
        request.getfixturevalue("triton_interpreter")
    model, args, k, bad, fragment = CASES[name]
    compiled = _compiled(model.eval(), args, target)
    with torch.no_grad():
        torch.testing.assert_close(compiled(*args), model(*args))
    bad_args = list(args)
    bad_args[k] = torch.tensor(bad)
    with pytest.raises(IndexError, match=rf"argument '\w+': index .*{fragment}.*test_clamp"):
        compiled(*bad_args)


def test_wrapped_negative_indices_stay_valid():
    """`x[i]` wraps negative indices; `index_select` refuses them, as eager does."""
    model, x = Take(), torch.randn(4, 2)
    compiled = _compiled(model, (x, torch.tensor([0, 3])))
    i = torch.tensor([-1, -4])
    torch.testing.assert_close(compiled(x, i), model(x, i))
    with pytest.raises(IndexError, match="index -5"):
        compiled(x, torch.tensor([0, -5]))
    select = _compiled(Select(), (x, torch.tensor([0, 3])))
    with pytest.raises(IndexError, match=r"index -\d .*index_select"):
        select(x, i)


def test_the_indexed_dim_may_be_dynamic():
    model, x = Take(), torch.randn(5, 3)
    rows = Dim("rows", min=2, max=64)
    compiled = _compiled(model, (x, torch.tensor([0, 4])), dynamic=({0: rows}, None))
    bigger = torch.randn(9, 3)
    i = torch.tensor([8, -9])
    torch.testing.assert_close(compiled(bigger, i), model(bigger, i))
    with pytest.raises(IndexError, match="index 9 .* size 9"):
        compiled(bigger, torch.tensor([9, 0]))


class ComputedIndex(torch.nn.Module):
    """An index computed inside the program: no check before the call can see it."""

    def forward(self, x, i):
        return x[i * 1000] + x.gather(0, i.view(-1, 1).expand(-1, 3) * 1000)


@pytest.mark.parametrize("target", ["cpu", "triton"])
def test_a_computed_index_out_of_range_stays_inside_the_buffer(target, request, monkeypatch):
    """Eager raises, and so does the program (its index-check flag); under the flag, compiled
    code must not read outside `x` (garbage, or a crash): each coordinate is clamped to its
    dim, so with the flags off the result is rows of `x` itself."""
    if target == "triton":
        request.getfixturevalue("triton_interpreter")
    x = torch.randn(5, 3)
    checked = _compiled(ComputedIndex(), (x, torch.tensor([0, 0])), target)
    with pytest.raises(IndexError, match="out of range for dim 0 .size 5."):
        checked(x, torch.tensor([1, 2]))
    monkeypatch.setattr(index_checks.InProgramChecks, "result", lambda self: None)
    compiled = _compiled(ComputedIndex(), (x, torch.tensor([0, 0])), target)
    torch.testing.assert_close(compiled(x, torch.tensor([0, 0])), 2 * x[[0, 0]])
    out = compiled(x, torch.tensor([1, 2]))
    torch.testing.assert_close(out, 2 * x[[4, 4]])

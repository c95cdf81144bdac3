"""Indices read from tensor data are checked as eager checks them: a user input before the call
(naming the bad value), anything else by a flag the program computes (`index_checks.py`).
Compiled code clamps indices into its buffers, so without the checks each case below returned a
silently wrong answer where eager raises."""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir

B = 1 << 40


class Derived(torch.nn.Module):
    """An index computed in the program: no check before the call can see it."""

    def forward(self, x, i):
        return x.index_select(0, i * 2)


class CrossEntropy(torch.nn.Module):
    def forward(self, x, t):
        return F.cross_entropy(x, t)


class NllNone(torch.nn.Module):
    def forward(self, x, t):
        return F.nll_loss(x.log_softmax(1), t, reduction="none", ignore_index=3)


class IndexPut(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v, accumulate=True)


class Take(torch.nn.Module):
    def forward(self, x, i):
        return torch.take(x, i).sum() + x.scatter(1, i.view(1, -1) % 7, 2.0, reduce="add").sum()


class Unpool(torch.nn.Module):
    def forward(self, x, i):
        return F.max_unpool2d(x, i, 2)


class MaskedScatter(torch.nn.Module):
    def forward(self, x, m, v):
        return x.masked_scatter(m, v)


class BagOfIndices(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 3, mode="sum")

    def forward(self, i, o):
        return self.bag(i + 0, o)


class SortedBy(torch.nn.Module):
    def forward(self, x, v, s):
        return torch.searchsorted(x, v, sorter=s)


class MultiLabel(torch.nn.Module):
    def forward(self, x, t):
        return F.multilabel_margin_loss(x, t)


class Repeats(torch.nn.Module):
    def forward(self, x, r):
        return torch.repeat_interleave(x, r, dim=0, output_size=5) * torch.repeat_interleave(
            r, output_size=5
        ).view(-1, 1)


pooled, where = F.max_pool2d(torch.randn(1, 2, 4, 4), 2, return_indices=True)
x45 = torch.randn(4, 5)

# (module, example args, good calls, bad calls, words of the message)
CASES = {
    "derived": (
        Derived(),
        (x45, torch.tensor([0, 1])),
        [(x45, torch.tensor([1, 0]))],
        [(x45, torch.tensor([2, 0])), (x45, torch.tensor([-1, 0])), (x45, torch.tensor([B, 0]))],
        "out of range for dim 0 (size 4)",
    ),
    "cross_entropy": (
        CrossEntropy(),
        (x45, torch.tensor([0, 1, 2, 3])),
        [(x45, torch.tensor([4, -100, 0, 1]))],
        [(x45, torch.tensor([5, 0, 0, 1])), (x45, torch.tensor([-3, 0, 0, 1]))],
        "out of bounds for 5 classes",
    ),
    "nll_ignore_index": (
        NllNone(),
        (x45, torch.tensor([0, 1, 2, 3])),
        [(x45, torch.tensor([4, 3, 0, 1]))],
        [(x45, torch.tensor([4, -100, 0, 1]))],
        "out of bounds for 5 classes",
    ),
    "index_put": (
        IndexPut(),
        (x45, torch.tensor([0, 3]), torch.randn(2, 5)),
        [(x45, torch.tensor([-4, 3]), torch.randn(2, 5))],
        [(x45, torch.tensor([4, 0]), torch.randn(2, 5))],
        "index 4 is out of range",
    ),
    "take": (
        Take(),
        (x45, torch.tensor([0, 1])),
        [(x45, torch.tensor([18, -20]))],
        [(x45, torch.tensor([20, 0])), (x45, torch.tensor([-21, 0]))],
        "out of range for the 20 elements",
    ),
    "scatter_value_reduce": (
        Take(),
        (x45, torch.tensor([0, 1])),
        [(x45, torch.tensor([4, 3]))],
        [(x45, torch.tensor([5, 3]))],
        "out of range for dim 1 (size 5)",
    ),
    "max_unpool2d": (
        Unpool(),
        (pooled, where),
        [(pooled, where)],
        [(pooled, torch.full_like(where, 16)), (pooled, torch.full_like(where, -1))],
        "outside the output of size 4x4",
    ),
    "masked_scatter": (
        MaskedScatter(),
        (x45, x45 > 0, torch.randn(12)),
        [(x45, torch.arange(20).reshape(4, 5) % 5 < 3, torch.randn(12))],
        [(x45, torch.ones(4, 5, dtype=torch.bool), torch.randn(12))],
        "selects more elements",
    ),
    "embedding_bag": (
        BagOfIndices(),
        (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2])),
        [(torch.tensor([9, 2, 0, 4]), torch.tensor([0, 2]))],
        [(torch.tensor([1, 10, 3, 4]), torch.tensor([0, 2]))],
        "dim 0 (size 10)",
    ),
    "embedding_bag_offsets": (
        BagOfIndices(),
        (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2, 3])),
        [
            (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2, 2])),
            (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 4, 4])),
        ],
        [
            (torch.tensor([1, 2, 3, 4]), torch.tensor([1, 2, 3])),
            (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 3, 2])),
        ],
        "offset",
    ),
    "searchsorted_sorter": (
        SortedBy(),
        (torch.tensor([3.0, 1.0, 2.0]), torch.tensor([1.5, 9.0]), torch.tensor([1, 2, 0])),
        [(torch.tensor([3.0, 1.0, 2.0]), torch.tensor([2.5, 0.0]), torch.tensor([1, 2, 0]))],
        [
            (torch.tensor([3.0, 1.0, 2.0]), torch.tensor([1.5, 9.0]), torch.tensor([1, 2, 3])),
            (torch.tensor([3.0, 1.0, 2.0]), torch.tensor([1.5, 9.0]), torch.tensor([-1, 2, 0])),
        ],
        "sorter 's' is out of range for the 3 elements",
    ),
    "multilabel_margin_target": (
        MultiLabel(),
        (torch.randn(2, 3), torch.tensor([[0, 1, -1], [2, -1, 0]])),
        [(torch.randn(2, 3), torch.tensor([[2, -1, 7], [-1, 0, 0]]).clamp(max=2))],
        [
            (torch.randn(2, 3), torch.tensor([[0, 3, -1], [2, -1, 0]])),
            (torch.randn(2, 3), torch.tensor([[0, 1, -1], [2, -1, 9]])),  # after the -1 too
            (torch.randn(2, 3), torch.tensor([[0, -2, 1], [2, -1, 0]])),
        ],
        "out of range for 3 classes (or -1)",
    ),
    "repeat_interleave_output_size": (
        Repeats(),
        (torch.randn(2, 3), torch.tensor([2, 3])),
        [(torch.randn(2, 3), torch.tensor([5, 0]))],
        [(torch.randn(2, 3), torch.tensor([2, 2])), (torch.randn(2, 3), torch.tensor([4, 3]))],
        "the repeats in 'r' do not sum to output_size 5",
    ),
}


def _compiled(module, args, **kw):
    return aten_mlir.compile(torch.export.export(module, args, **kw), cache=False)


@pytest.mark.parametrize("name", list(CASES))
def test_good_indices_match_eager_and_bad_ones_raise(name):
    module, example, good, bad, words = CASES[name]
    program = _compiled(module, example)
    assert program.fallbacks == []
    for args in good:
        torch.testing.assert_close(program(*args), module(*args))
    for args in bad:
        with pytest.raises((IndexError, RuntimeError)):  # eager raises too (its own message)
            module(*args)
        with pytest.raises(IndexError, match=re.escape(words)) as e:
            program(*args)
        assert "test_index_checks.py" in str(e.value)  # the user's line


def test_negative_repeats_raise():
    # not compared with eager: torch 2.13's repeat_interleave with output_size writes past its
    # output for repeats [6, -1] (they sum to 5) before it raises, corrupting the heap
    program = _compiled(Repeats(), (torch.randn(2, 3), torch.tensor([2, 3])))
    with pytest.raises(IndexError, match="a repeat count in 'r' is negative"):
        program(torch.randn(2, 3), torch.tensor([6, -1]))


def test_the_flag_reads_a_dynamic_size():
    dims = ({0: Dim("n")}, {0: Dim("k")})
    program = _compiled(Derived(), (torch.randn(6, 3), torch.tensor([0, 1])), dynamic_shapes=dims)
    x = torch.randn(9, 3)
    torch.testing.assert_close(
        program(x, torch.tensor([4, 0, 2])), Derived()(x, x.new_tensor([4, 0, 2]).long())
    )
    with pytest.raises(IndexError, match="size s"):
        program(x, torch.tensor([5, 0]))
    with pytest.raises(IndexError):
        program(torch.randn(4, 3), torch.tensor([2]))


def test_positions_below_the_dims_max_need_no_flag():
    """`arange(s)` indexing a table of 64 rows is in range when `s`'s Dim allows at most 64;
    with a larger max it is flagged, and a call past the table raises."""

    class Positions(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = torch.nn.Embedding(64, 4)

        def forward(self, x):
            return x + self.table(torch.arange(x.shape[1]))

    for high, flagged in ((64, False), (100, True)):
        dims = ({1: Dim("s", min=2, max=high)},)
        ep = torch.export.export(Positions(), (torch.randn(2, 9, 4),), dynamic_shapes=dims)
        program = aten_mlir.compile(ep, cache=False)
        roles = [s.role for s in program.signature.outputs]
        assert ("index_check" in roles) == flagged
        x = torch.randn(2, 33, 4)
        torch.testing.assert_close(program(x), ep.module()(x))
    with pytest.raises(IndexError, match="size 64"):
        program(torch.randn(2, 65, 4))


def test_take_along_dim_wraps_any_index_as_eager_does():
    """torch's take_along_dim takes indices modulo the dim (no error): so does the program."""

    class TakeAlong(torch.nn.Module):
        def forward(self, x, i):
            return torch.take_along_dim(x, i, 1)

    program = _compiled(TakeAlong(), (x45, torch.zeros(4, 1, dtype=torch.long)))
    i = torch.tensor([[5], [B], [-6], [-B - 3]])
    torch.testing.assert_close(program(x45, i), TakeAlong()(x45, i))


def test_the_reference_interpreter_raises_too():
    module = CrossEntropy()
    program = aten_mlir.import_program(
        torch.export.export(module, (x45, torch.tensor([0, 1, 2, 3])))
    )
    with pytest.raises(RuntimeError, match="Target 9 is out of bounds"):  # the eager kernel's
        aten_mlir.run_reference(program, x45, torch.tensor([0, 9, 2, 3]))


def test_a_bad_target_in_a_compiled_training_step_raises_before_the_update():
    torch.manual_seed(0)
    model = torch.nn.Linear(6, 5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(x, t):
        loss = F.cross_entropy(model(x), t)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    compiled = torch.compile(step, backend="aten_mlir")
    x = torch.randn(8, 6)
    compiled(x, torch.randint(0, 5, (8,)))
    before = model.weight.detach().clone()
    with pytest.raises(IndexError, match="out of bounds for 5 classes"):
        compiled(x, torch.tensor([0, 1, 2, 3, 4, 5, 0, 1]))
    torch.testing.assert_close(model.weight.detach(), before, rtol=0, atol=0)

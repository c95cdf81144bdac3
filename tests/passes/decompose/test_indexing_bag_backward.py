"""Backward ops of `embedding_bag` compile with no eager fallback and match eager
(`passes/decompose/indexing_bag_backward.py`): called directly through `torch.export` (static and
with `Dim`s on the indices and the bags), and as AOTAutograd leaves them in a training step."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

import aten_mlir
from tests.support.dynamo import (
    check_training_matches_eager,
    compiled,
    fresh_dynamo,
    train,
)

aten = torch.ops.aten
SUM, MEAN, MAX = 0, 1, 2
ROWS, WIDTH = 11, 5


class BagBackward(torch.nn.Module):
    """The weight (and per-sample weight) gradients of `_embedding_bag`, from the forward's own
    side outputs; the bag gradient is a function of the output so that its shape follows the
    bags."""

    def __init__(self, mode, last=False, padding_idx=-1, by_freq=False, weighted=False):
        super().__init__()
        self.mode, self.last, self.padding_idx = mode, last, padding_idx
        self.by_freq, self.weighted = by_freq, weighted

    def forward(self, weight, indices, offsets, psw):
        psw = psw if self.weighted else None
        out, bag_of, sizes, maxima = aten._embedding_bag(
            weight, indices, offsets, self.by_freq, self.mode, False, psw, self.last,
            self.padding_idx,
        )  # fmt: skip
        g = torch.cos(3 * out) + 0.5
        gw = aten._embedding_bag_backward(
            g, indices, offsets, bag_of, sizes, maxima, weight.shape[0], self.by_freq,
            self.mode, False, psw, self.padding_idx,
        )  # fmt: skip
        if psw is None:
            return gw
        gp = aten._embedding_bag_per_sample_weights_backward(
            g, weight, indices, offsets, bag_of, self.mode, self.padding_idx
        )
        return gw, gp


def _reference(module, weight, indices, offsets, psw):
    """The same gradients through eager `F.embedding` and an `index_add` per bag: the documented
    semantics (torch 2.13's CPU embedding_bag kernel divides by another index's count under
    scale_grad_by_freq when counts differ, pytorch#190063)."""
    weight = weight.detach().requires_grad_()
    psw = psw.detach().requires_grad_()
    n, bags = len(indices), len(offsets) - int(module.last)
    bag_of = torch.searchsorted(offsets[:bags].long(), torch.arange(n), right=True) - 1
    pad = module.padding_idx if module.padding_idx >= 0 else None
    rows = F.embedding(indices, weight, padding_idx=pad, scale_grad_by_freq=module.by_freq)
    kept = (indices != module.padding_idx).to(weight.dtype)
    rows = rows * kept[:, None]  # a bag leaves its padding rows out
    if module.weighted:
        rows = rows * psw[:, None]
    out = torch.zeros(bags, weight.shape[1], dtype=weight.dtype).index_add(0, bag_of, rows)
    if module.mode == MEAN:
        count = torch.zeros(bags, dtype=weight.dtype).index_add(0, bag_of, kept)
        out = out / count.clamp(min=1)[:, None]
    g = torch.cos(3 * out.detach()) + 0.5
    if module.weighted:
        return torch.autograd.grad(out, [weight, psw], g)
    return torch.autograd.grad(out, weight, g)[0]


def _bags(n, bags, last, dtype=torch.int64, seed=0):
    """Indices with repeats (few rows), and offsets with an empty bag where there is room."""
    gen = torch.Generator().manual_seed(seed + n)
    indices = torch.randint(0, ROWS // 2, (n,), generator=gen)
    cuts = torch.randint(0, n + 1, (bags - 1,), generator=gen).sort().values
    if bags > 2 and n > 1:
        cuts[1] = cuts[0]  # an empty bag
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), cuts])
    if last:
        offsets = torch.cat([offsets, torch.tensor([n])])
    return indices.to(dtype), offsets.to(dtype)


CASES = {
    "sum": dict(mode=SUM),
    "mean": dict(mode=MEAN),
    "max": dict(mode=MAX),
    "sum_last_offset": dict(mode=SUM, last=True),
    "mean_last_offset": dict(mode=MEAN, last=True),
    "max_last_offset": dict(mode=MAX, last=True),
    "sum_padding": dict(mode=SUM, padding_idx=2),
    "mean_padding": dict(mode=MEAN, padding_idx=2),
    "max_padding": dict(mode=MAX, padding_idx=2),
    "sum_by_freq": dict(mode=SUM, by_freq=True),
    "mean_by_freq_padding": dict(mode=MEAN, by_freq=True, padding_idx=1),
    "sum_weighted": dict(mode=SUM, weighted=True),
    "sum_weighted_padding_last": dict(mode=SUM, weighted=True, padding_idx=0, last=True),
}


def _inputs(case, n, bags, dtype, index_dtype=torch.int64):
    module = BagBackward(**CASES[case])
    gen = torch.Generator().manual_seed(n)
    weight = torch.randn(ROWS, WIDTH, generator=gen, dtype=dtype)
    indices, offsets = _bags(n, bags, module.last, index_dtype)
    psw = torch.randn(n, generator=gen, dtype=dtype)
    return module, (weight, indices, offsets, psw)


def _check(program, module, args, dtype):
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-9, atol=1e-9)
    got = program(*args)
    want = module(*args) if module.mode == MAX else _reference(module, *args)
    torch.testing.assert_close(got, want, **tol)
    if not module.by_freq:  # eager's own kernel agrees wherever its frequencies are right
        torch.testing.assert_close(got, module(*args), **tol)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_embedding_bag_backward_static(case, dtype):
    for n, bags in [(1, 1), (7, 3), (ROWS, 4), (33, 5)]:  # n = ROWS: rows as the table
        module, args = _inputs(case, n, bags, dtype)
        program = aten_mlir.compile(torch.export.export(module, args))
        assert program.fallbacks == []
        _check(program, module, args, dtype)


@pytest.mark.parametrize("case", ["sum", "mean", "max", "sum_weighted_padding_last"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_embedding_bag_backward_dynamic(case, dtype):
    module, args = _inputs(case, 9, 4, dtype)
    n, b = Dim("n", min=2, max=256), Dim("b", min=3, max=64)
    shapes = ({}, {0: n}, {0: b}, {0: n})
    program = aten_mlir.compile(torch.export.export(module, args, dynamic_shapes=shapes))
    assert program.fallbacks == []
    for size, bags in [(9, 4), (7, 3), (33, 5), (129, 17), (2, 3)]:
        module, args = _inputs(case, size, bags, dtype)
        _check(program, module, args, dtype)


def test_int32_indices_and_offsets():
    module, args = _inputs("mean_padding", 33, 5, torch.float32, torch.int32)
    program = aten_mlir.compile(torch.export.export(module, args))
    assert program.fallbacks == []
    _check(program, module, args, torch.float32)


@pytest.mark.parametrize("case", ["sum_weighted", "mean", "max_last_offset"])
def test_indices_in_no_bag_get_no_gradient(case):
    """include_last_offset with the single offset 0: no bags, three indices. ATen's backward
    reads past the empty gradient there (a crash in torch 2.13); ours gives zeros."""
    module = BagBackward(**{**CASES[case], "last": True})
    weight, indices, offsets = torch.randn(ROWS, WIDTH), torch.tensor([1, 2, 3]), torch.tensor([0])
    psw = torch.randn(3)
    program = aten_mlir.compile(torch.export.export(module, (weight, indices, offsets, psw)))
    assert program.fallbacks == []
    got = program(weight, indices, offsets, psw)
    for g in got if isinstance(got, tuple) else [got]:
        torch.testing.assert_close(g, torch.zeros_like(g), rtol=0, atol=0)


class Bags(torch.nn.Module):
    """A training model through every mode: offsets with include_last_offset and padding_idx,
    fixed-size bags (2-d input), per-sample weights."""

    def __init__(self):
        super().__init__()
        self.total = torch.nn.EmbeddingBag(13, 6, mode="sum")
        self.mean = torch.nn.EmbeddingBag(13, 6, mode="mean", padding_idx=3)
        self.max = torch.nn.EmbeddingBag(13, 6, mode="max", include_last_offset=True)
        self.head = torch.nn.Linear(6, 3)

    def forward(self, x):
        indices, offsets, fixed, psw = x
        a = self.total(indices, offsets, per_sample_weights=psw)
        b = self.mean(fixed)  # (bags, length): fixed-size bags
        c = self.max(indices, torch.cat([offsets, offsets.new_tensor([len(indices)])]))
        return self.head(torch.tanh(a + b + c))


def _batch(seed, n=19, bags=4):
    gen = torch.Generator().manual_seed(seed)
    indices, offsets = _bags(n, bags, False, seed=seed)
    fixed = torch.randint(0, 13, (bags, 3), generator=gen)
    fixed[0, 1] = 3  # a padding index in a bag
    psw = torch.rand(n, generator=gen)
    return (indices, offsets, fixed, psw), torch.randint(0, 3, (bags,), generator=gen)


def test_a_training_step_through_them_has_no_fallback():
    torch.manual_seed(0)
    model = Bags()
    batches = [_batch(s) for s in range(4)]
    check_training_matches_eager(model, batches, F.cross_entropy)


def test_an_index_out_of_range_still_raises_in_a_training_step():
    torch.manual_seed(0)
    model = Bags()
    (indices, offsets, fixed, psw), y = _batch(0)
    indices[2] = 13  # one past the table: eager raises in the forward
    with pytest.raises(RuntimeError, match="not in the valid range"):
        model((indices, offsets, fixed, psw))
    with fresh_dynamo():
        with pytest.raises(IndexError, match="out of range|outside"):
            train(model, [((indices, offsets, fixed, psw), y)], F.cross_entropy, compile_it=True)


class DenseBackward(torch.nn.Module):
    """`_embedding_bag_dense_backward` (no offsets: the forward's offset2bag maps indices to
    bags; float64 keeps ATen's forward off its fast path, which leaves offset2bag empty)."""

    def __init__(self, mode, padding_idx=-1):
        super().__init__()
        self.mode, self.padding_idx = mode, padding_idx

    def forward(self, weight, indices, offsets):
        out, bag_of, sizes, maxima = aten._embedding_bag(
            weight, indices, offsets, False, self.mode, False, None, False, self.padding_idx
        )
        g = torch.cos(3 * out) + 0.5
        return aten._embedding_bag_dense_backward(
            g, indices, bag_of, sizes, maxima, weight.shape[0], False, self.mode, None,
            self.padding_idx,
        )  # fmt: skip


@pytest.mark.parametrize("mode", [SUM, MEAN, MAX], ids=["sum", "mean", "max"])
def test_embedding_bag_dense_backward(mode):
    module = DenseBackward(mode, padding_idx=2)
    for n, bags in [(1, 1), (7, 3), (33, 5)]:
        weight = torch.randn(ROWS, WIDTH, dtype=torch.float64)
        indices, offsets = _bags(n, bags, False)
        program = aten_mlir.compile(torch.export.export(module, (weight, indices, offsets)))
        assert program.fallbacks == []
        torch.testing.assert_close(
            program(weight, indices, offsets), module(weight, indices, offsets)
        )


def test_sparse_gradients_are_refused_by_name():
    """sparse=True: the gradient is a sparse COO tensor, which has no tensor type here; with
    fallbacks made errors the compile says so instead of running the graph eagerly."""
    model = torch.nn.EmbeddingBag(13, 6, mode="mean", sparse=True)
    indices, offsets = _bags(7, 3, False)
    with fresh_dynamo():
        step = compiled(model)
        with pytest.raises(Exception, match="sparse_coo"):
            step(indices, offsets).sum().backward()

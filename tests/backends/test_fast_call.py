"""The per-call fast path of a program that is one native call (`Plan.direct`): inputs checked by
`CallGuards` in one pass per property, marshalled without a second check (`bind(checked=True)`),
results wrapped all at once (`results.StaticResults`). Each test fails if the fast path skips
what `ep.module()` checks or returns results that alias an input or another call's results."""

from __future__ import annotations

import gc

import pytest
import torch
from torch.export import Dim, export

import aten_mlir
from aten_mlir.backends.cpu import abi
from aten_mlir.backends.cpu.results import StaticResults, take_results
from tests.modules import Fn


def _compiled(f, args, dynamic_shapes=None):
    return aten_mlir.compile(export(Fn(f), args, dynamic_shapes=dynamic_shapes), cache=False)


def _function(compiled):
    (function,) = compiled._functions.values()
    return function


def _masked(x, i, m):
    return torch.where(m, x, 0.0)[i] * 2, i + 1, m & (x > 0)


def _masked_args():
    return torch.randn(6, 4), torch.tensor([5, 0, 3]), torch.rand(6, 4) > 0.5


def test_a_static_call_is_direct_checked_and_wraps_its_results_at_once():
    compiled = _compiled(_masked, _masked_args())
    call = compiled._plan.direct[0]
    assert "_checked_call" in call.__qualname__  # the guards cover what marshalling checks
    assert compiled._fresh_outputs is not None
    first_args = _masked_args()
    first = compiled(*first_args)
    assert isinstance(_function(compiled)._static, StaticResults)
    kept = [t.clone() for t in first]
    for _ in range(3):  # later calls neither reuse nor write the earlier results' storage
        args = _masked_args()
        got = compiled(*args)
        for g, want in zip(got, _masked(*args)):
            assert g.dtype == want.dtype and torch.equal(g, want)
        pointers = {t.data_ptr() for t in got}
        assert len(pointers) == 3 and not pointers & {t.data_ptr() for t in first + args}
    for f, k in zip(first, kept):
        assert torch.equal(f, k) and not f.untyped_storage().resizable()  # native storage


def test_the_direct_call_still_guards_every_input():
    compiled = _compiled(_masked, _masked_args())
    x, i, m = _masked_args()
    bad = {
        "dtype": ((x.double(), i, m), "argument 'args_0'.*torch.float64"),
        "bool as its bytes": ((x, i, m.to(torch.uint8)), "argument 'args_2'.*torch.uint8"),
        "shape": ((x[:5], i, m[:5]), "argument 'args_0'.*dim 0 was 6"),
        "rank": ((x, i, m.unsqueeze(0)), "argument 'args_2'"),
        "index length": ((x, i[:2], m), "argument 'args_1'"),
        "not a tensor": ((x.tolist(), i, m), "argument 'args_0': expected a tensor"),
        "device": ((x.to("meta"), i, m), "argument 'args_0' is on meta"),
    }
    for args, match in bad.values():
        with pytest.raises(ValueError, match=match):
            compiled(*args)
    with pytest.raises(IndexError, match="index 6 is out of range"):  # the index pre-check
        compiled(x, torch.tensor([6, 0, 0]), m)
    # non-contiguous inputs are read as their elements, not their storage
    xt, mt = torch.randn(4, 6).t(), (torch.rand(4, 6) > 0.5).t()
    for g, want in zip(compiled(xt, i, mt), _masked(xt, i, mt)):
        assert torch.equal(g, want)


@pytest.mark.parametrize("rows", [1, 7, 33, 129])
def test_dynamic_sizes_stay_consistent_on_the_fast_path(rows):
    w = torch.randn(5, 3)

    def f(x, y):
        return (x + y) @ w, (x * y).sum(1) > 0

    n = Dim("n", min=1, max=512)
    compiled = _compiled(f, (torch.randn(9, 5), torch.randn(9, 5)), (({0: n}, {0: n}),))
    assert compiled._plan.direct is not None
    for size in (rows, rows, 2 * rows + 1):
        x, y = torch.randn(size, 5), torch.randn(size, 5)
        for g, want in zip(compiled(x, y), f(x, y)):
            torch.testing.assert_close(g, want)
        # after a good call of these sizes, bad ones of the same batch are still refused
        with pytest.raises(ValueError):
            compiled(x, torch.randn(size + 1, 5))  # `n` of x and of y disagree
        with pytest.raises(ValueError, match="dim 1"):
            compiled(x, torch.randn(size, 6))  # a static dim
        with pytest.raises(ValueError):
            compiled(x.int(), y)


def test_mutated_buffers_are_written_back():
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("total", torch.zeros(4))

        def forward(self, x):
            self.total.add_(x)
            return self.total * 2, x > 0

    x = torch.randn(4)
    ours, eager = Counter(), Counter()
    compiled = aten_mlir.compile(export(ours, (x,)), cache=False)
    for _ in range(3):
        x = torch.randn(4)
        got, want = compiled(x), eager(x)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and torch.equal(g, w)
        assert torch.equal(compiled.state["total"], eager.total)


def test_static_results_free_each_buffer_once_with_its_last_view():
    compiled = _compiled(_masked, _masked_args())
    function = _function(compiled)
    freed, free = [], function._free
    function._free = lambda address: freed.append(address) or free(address)
    function._static = None  # made again, with the counting free
    got = compiled(*_masked_args())
    assert isinstance(function._static, StaticResults)
    flags = len(freed)  # index-check flags, if any, are read as bytes and freed at once
    assert flags == len(function._bytes_results)
    view = got[0][1:]
    del got
    gc.collect()
    assert len(freed) == flags + 2  # the index and mask results; the view holds the first
    del view
    gc.collect()
    assert len(freed) == flags + 3 and len(set(freed)) == flags + 3


def _sized(x, y):
    return (x + y) * 2, (x * y).sum(1) > 0


@pytest.mark.parametrize("sizes", [(1, 7, 33, 129), (0, 7, 0)])
def test_dynamic_results_are_wrapped_at_once_per_sizes(sizes, monkeypatch):
    """`?` results take `StaticResults` too, keyed by their sizes; an empty one the general
    path. Each call's results own their storage, hold eager's values, and are freed once."""
    general = []
    monkeypatch.setattr(abi, "take_results", lambda *a: general.append(1) or take_results(*a))
    n = Dim("n", min=1, max=512)
    compiled = _compiled(_sized, (torch.randn(9, 5), torch.randn(9, 5)), (({0: n}, {0: n}),))
    function = _function(compiled)
    freed, free = [], function._free
    function._free = lambda address: freed.append(address) or free(address)
    live = []
    for size in sizes:
        args = torch.randn(size, 5), torch.randn(size, 5)
        got = compiled(*args)
        assert isinstance(function._static, StaticResults)
        assert (function._static._by_sizes[(size, size)] is None) == (size == 0)
        assert len(general) == (size == 0)  # the general path only for empty results
        general.clear()
        for g, want in zip(got, _sized(*args)):
            assert g.dtype == want.dtype and g.shape == want.shape and torch.equal(g, want)
        if size:
            assert not got[0].untyped_storage().resizable()  # native storage, not a copy
            pointers = {t.data_ptr() for t in got}
            earlier = {t.data_ptr() for t in live if t.numel()}
            assert len(pointers) == 2 and not pointers & ({t.data_ptr() for t in args} | earlier)
        live += [got[0][1:], got[1]]  # a view keeps its buffer too
    del got, g
    gc.collect()
    before = len(freed)  # an empty call's buffers, freed at once
    wrapped = 2 * sum(1 for size in sizes if size)
    del live
    gc.collect()
    # (malloc may hand an address freed by an empty call to a later call's result)
    assert len(freed) == before + wrapped and len(set(freed[before:])) == wrapped


def test_a_dynamic_result_over_an_input_or_another_result_is_copied():
    """Results whose descriptors are not one whole buffer each (an input returned) leave the
    fast path: copied, so no output aliases an input."""

    def f(x):
        y = x * 3
        return y, y, x

    n = Dim("n", min=1, max=512)
    compiled = _compiled(f, (torch.randn(9, 5),), (({0: n},),))
    for size in (1, 7, 33):
        x = torch.randn(size, 5)
        got = compiled(x)
        for g, want in zip(got, f(x)):
            assert torch.equal(g, want)
        # the same tensor twice, as eager returns it; never the input's storage
        pointers = [t.data_ptr() for t in got]
        assert pointers[0] == pointers[1] != pointers[2] and x.data_ptr() not in pointers


def test_dynamic_argument_words_follow_each_calls_shapes():
    """The `?` arguments' sizes and strides come from a template per set of their shapes
    (`_checked_call`): calls that go back and forth between shapes, with two independent `?`
    dims and a zero size, each read their own inputs' shapes."""
    w = torch.randn(5, 3)

    def f(x, y):
        return x @ w + y.sum(), y * 2

    n, k = Dim("n", min=1, max=512), Dim("k", min=1, max=512)
    compiled = _compiled(f, (torch.randn(9, 5), torch.randn(4, 6)), (({0: n}, {0: k}),))
    assert "_checked_call" in compiled._plan.direct[0].__qualname__
    for rows, cols in [(7, 1), (1, 7), (33, 4), (7, 1), (129, 33), (1, 7), (0, 3), (7, 0)]:
        x, y = torch.randn(rows, 5), torch.randn(cols, 6)
        for g, want in zip(compiled(x, y), f(x, y)):
            assert g.shape == want.shape
            torch.testing.assert_close(g, want)

"""`as_strided` of a view reads the view's base storage as eager does (torch-mlir's
AtenAsStridedAfter* e2e tests returned wrong values): after each kind of view, after copies
into another memory format, nested, with and without an explicit offset; out-of-storage
windows and dynamic view chains are clear errors, never out-of-bounds reads."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.modules import Fn

A = torch.ops.aten


def _ids(*shape):
    return torch.arange(torch.Size(shape).numel(), dtype=torch.float32).reshape(shape)


CASES = {
    "alias-detach": (
        lambda x: A.as_strided(A.detach(A.alias(x[1:3])), (2, 2), (8, 1), 0),
        (3, 2, 4),
    ),
    "expand": (lambda x: A.as_strided(x.expand(3, 4), (3, 2), (0, 1), 1), (1, 4)),
    "slice-permute": (lambda x: A.as_strided(x[1:3].permute(1, 0, 2), (2, 2), (12, 1)), (3, 2, 4)),
    "diagonal": (lambda x: A.as_strided(x.diagonal(), (3,), (6,), 0), (4, 5)),
    "diagonal-offset": (lambda x: A.as_strided(x.diagonal(1), (3,), (5,)), (4, 5)),
    "nested": (lambda x: A.as_strided(A.as_strided(x, (2,), (1,), 2), (2,), (1,), 0), (10,)),
    "nested-own-offset": (
        lambda x: A.as_strided(A.as_strided(x, (2,), (1,), 2), (2,), (1,)),
        (10,),
    ),
    "movedim": (lambda x: A.as_strided(x.movedim(1, 2), (2, 4, 2), (12, 1, 4), 0), (2, 3, 4)),
    "narrow": (lambda x: A.as_strided(x.narrow(1, 1, 2), (2, 3), (20, 1)), (2, 4, 5)),
    "numpy_T": (lambda x: A.as_strided(A.numpy_T(x), (4, 3, 1), (1, 4, 12), 0), (2, 3, 4)),
    "permute": (
        lambda x: A.as_strided(x.permute(0, 2, 1, 3), (1, 3, 2, 2), (24, 4, 12, 1), 0),
        (1, 2, 3, 4),
    ),
    "select": (lambda x: A.as_strided(x.select(1, 1), (2, 2), (12, 1)), (2, 3, 4)),
    "slice": (lambda x: A.as_strided(x[1:4], (2, 3), (6, 1)), (4, 5, 6)),
    "slice-explicit-offset": (lambda x: A.as_strided(x[1:4], (2, 3), (6, 1), 0), (4, 5, 6)),
    "slice-step": (lambda x: A.as_strided(x[:, ::2], (3, 2), (4, 2)), (3, 4)),
    "squeeze-unsqueeze": (
        lambda x: A.as_strided(x.squeeze().unsqueeze(1), (2, 1, 3), (3, 0, 1), 0),
        (1, 2, 1, 3),
    ),
    "t": (lambda x: A.as_strided(x.t(), (3, 2), (1, 3), 0), (2, 3)),
    "transpose": (lambda x: A.as_strided(x.transpose(1, 2), (2, 3, 2), (12, 4, 1), 0), (2, 3, 4)),
    "unflatten": (lambda x: A.as_strided(x.unflatten(0, (4, 6)), (2, 3), (6, 1), 0), (24,)),
    "unfold": (lambda x: A.as_strided(x.unfold(0, 3, 2), (2, 2), (2, 1)), (10,)),
    "view": (lambda x: A.as_strided(x.view(4, 6), (3, 4), (6, 1), 0), (2, 3, 4)),
    "reshape-copies": (lambda x: A.as_strided(x.t().reshape(6), (2, 2), (1, 3), 1), (2, 3)),
    "contiguous-after-t": (lambda x: A.as_strided(x.t().contiguous(), (2, 2), (3, 1), 0), (3, 4)),
    "channels_last": (
        lambda x: A.as_strided(
            x.contiguous(memory_format=torch.channels_last), (1, 4, 5, 3), (60, 15, 3, 1), 0
        ),
        (1, 3, 4, 5),
    ),
    "to-channels_last": (
        lambda x: A.as_strided(
            x.to(memory_format=torch.channels_last), (1, 4, 5, 3), (60, 15, 3, 1), 0
        ),
        (1, 3, 4, 5),
    ),
    "of-a-result": (lambda x: A.as_strided(torch.relu(x)[1:], (2, 2), (4, 1)), (3, 4)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_like_eager(name):
    fn, shape = CASES[name]
    x = _ids(*shape)
    compiled = aten_mlir.compile(torch.export.export(Fn(fn), (x,)))
    assert compiled.fallbacks == []
    torch.testing.assert_close(compiled(x), fn(x), rtol=0, atol=0)


def test_window_outside_storage_is_an_error():
    """Eager raises for a window past the base's storage; compiling must too (the diagonal of a
    4x5 has 4 elements but its base 20: reading past 20 used to read out of bounds)."""
    fn = lambda x: A.as_strided(x.diagonal(), (4,), (6,), 3)  # noqa: E731  last: 3 + 18 = 21
    x = _ids(4, 5)
    with pytest.raises(RuntimeError):
        fn(x)
    with pytest.raises(aten_mlir.CompileError, match="as_strided"):
        aten_mlir.compile(torch.export.export(Fn(fn), (x,)))


def test_dynamic_view_chain_is_an_error():
    fn = lambda x: A.as_strided(x[1:], (2, 2), (4, 1))  # noqa: E731
    x = _ids(3, 4)
    ep = torch.export.export(Fn(fn), (x,), dynamic_shapes=(({1: Dim("n", min=2)},),))
    with pytest.raises(aten_mlir.CompileError, match="as_strided"):
        aten_mlir.compile(ep)


def test_dynamic_order_keeping_views_compile():
    """Views that keep a contiguous tensor's flat order (view, unsqueeze, detach) need no
    replay: a dynamic chain of them still compiles."""
    fn = lambda x: A.as_strided(x.view(-1).unsqueeze(0).detach(), (2, 2), (1, 2), 1)  # noqa: E731
    x = _ids(3, 4)
    ep = torch.export.export(Fn(fn), (x,), dynamic_shapes=(({0: Dim("n", min=2)},),))
    compiled = aten_mlir.compile(ep)
    for n in (3, 5):
        y = _ids(n, 4)
        torch.testing.assert_close(compiled(y), fn(y), rtol=0, atol=0)


class _AsStridedInput(torch.nn.Module):
    def forward(self, x):
        return x.as_strided((2, 2), (1, 3), 0)


class _AsStridedParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        w = torch.randn(1, 3, 2, 2).to(memory_format=torch.channels_last)
        self.w = torch.nn.Parameter(w)

    def forward(self, x):
        return self.w.as_strided((2, 2), (1, 2), 0) + x


def test_a_non_contiguous_input_read_through_its_storage_is_refused():
    """Compiled code sees a user input's elements in order from offset 0: that is its storage
    only when it is contiguous and starts it (eager reads `x.t()`'s storage as it is)."""
    x = torch.arange(6.0).view(2, 3)
    compiled = aten_mlir.compile(torch.export.export(_AsStridedInput(), (x,)), cache=False)
    torch.testing.assert_close(compiled(x), _AsStridedInput()(x))
    for bad in (torch.arange(6.0).view(3, 2).t(), torch.arange(7.0)[1:].view(2, 3)):
        with pytest.raises(ValueError, match=r"argument 'x' is read through as_strided"):
            compiled(bad)


def test_a_channels_last_parameter_read_through_its_storage_is_refused():
    ep = torch.export.export(_AsStridedParameter(), (torch.randn(2, 2),))
    with pytest.raises(ValueError, match=r"state 'w' is read through as_strided"):
        aten_mlir.compile(ep, cache=False)

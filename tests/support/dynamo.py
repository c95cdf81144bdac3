"""`torch.compile(..., backend="aten_mlir")` in tests: a fresh dynamo state per compile, and the
backend's counters (graphs compiled, graphs and ops run eagerly) to assert on."""

from __future__ import annotations

import contextlib
import copy

import torch
from torch._dynamo.utils import counters

from aten_mlir.backends import dynamo


@contextlib.contextmanager
def fresh_dynamo():
    """Dynamo's caches and the backend's counters emptied before and after."""
    torch._dynamo.reset()
    counters.clear()
    try:
        yield counters["aten_mlir"]
    finally:
        torch._dynamo.reset()


def compiled(model, **kwargs):
    """`torch.compile(model, backend="aten_mlir", ...)` with every fallback an error."""
    options = {"fallback": "error", **kwargs.pop("options", {})}
    dynamo.register()
    return torch.compile(model, backend="aten_mlir", options=options, **kwargs)


def train(model, batches, loss_fn, *, compile_it: bool, lr: float = 0.05, **kwargs):
    """SGD with momentum over `batches`; returns the losses (the model is trained in place)."""
    step = compiled(model, **kwargs) if compile_it else model
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = loss_fn(step(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def train_both(model, batches, loss_fn, lr: float = 0.05, **kwargs):
    """Trains a copy eagerly and `model` compiled: (compiled losses, eager losses, eager copy)."""
    twin = copy.deepcopy(model)
    got = train(model, batches, loss_fn, compile_it=True, lr=lr, **kwargs)
    want = train(twin, batches, loss_fn, compile_it=False, lr=lr)
    return got, want, twin


def check_training_matches_eager(model, batches, loss_fn, rtol=1e-4, atol=1e-5, **kwargs):
    """Trains `model` compiled and an eager copy over `batches`: no graph or op ran eagerly, and
    the losses and final parameters agree."""
    with fresh_dynamo() as counts:
        got, want, twin = train_both(model, batches, loss_fn, **kwargs)
    assert counts["op_fallbacks"] == 0 and counts["graph_fallbacks"] == 0
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
    for p, q in zip(model.parameters(), twin.parameters()):
        torch.testing.assert_close(p, q, rtol=rtol, atol=atol)

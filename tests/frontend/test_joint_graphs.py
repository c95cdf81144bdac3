"""Joint forward-backward programs (`torch.export.experimental._export_forward_backward`): the
loss and the gradients are outputs of the call, in the graph's order; buffers are written back."""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.export.experimental import _export_forward_backward

import aten_mlir


class Regression(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.norm = nn.BatchNorm1d(3)

    def forward(self, x, target):
        return (nn.functional.mse_loss(self.norm(self.linear(x)), target),)


def test_a_joint_program_returns_the_loss_and_the_gradients():
    torch.manual_seed(0)
    model = Regression()
    twin = copy.deepcopy(model)  # eager's run, on state the compiled program does not share
    x, target = torch.randn(6, 4), torch.randn(6, 3)
    ep = _export_forward_backward(torch.export.export(model, (x, target)))
    compiled = aten_mlir.compile(ep, cache=False)
    names = [s.name for s in compiled.signature.outputs if s.role == "user_output"]
    assert names[1:] == [f"grad:{n}" for n, _ in model.named_parameters()]
    running = twin.norm.running_mean.clone()
    loss, *grads = compiled(x, target)
    (want,) = twin(x, target)
    want.backward()
    torch.testing.assert_close(loss, want)
    for g, p in zip(grads, twin.parameters()):
        torch.testing.assert_close(g, p.grad)
    # the running statistics were written back as eager's were
    state_mean = compiled.state["norm.running_mean"]
    assert not torch.equal(state_mean, running)
    torch.testing.assert_close(state_mean, twin.norm.running_mean)
    assert not compiled.fallbacks

"""`CompiledProgram._outputs` on the fast path: an output that is an input or a parameter comes
back as a copy, a mutated input and a mutated buffer are written in place, and grad mode is
restored after a call (also after a call that fails)."""

from __future__ import annotations

import pytest
import torch
from torch.export import export

import aten_mlir


class Passthrough(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3, 4))

    def forward(self, x):
        return x, self.w, x * 2


class Mutates(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        x.add_(1)
        self.count.add_(1)
        return x * 3


def test_an_output_that_is_an_input_or_a_parameter_is_a_copy():
    module, x = Passthrough(), torch.randn(3, 4)
    compiled = aten_mlir.compile(export(module, (x,)), target="cpu", cache=False)
    same, w, doubled = compiled(x)
    torch.testing.assert_close(same, x)
    torch.testing.assert_close(w, module.w.detach())
    assert same.data_ptr() != x.data_ptr() and w.data_ptr() != module.w.data_ptr()
    torch.testing.assert_close(doubled, x * 2)


def test_mutated_inputs_and_buffers_are_written_in_place():
    module, x = Mutates(), torch.randn(3)
    compiled = aten_mlir.compile(export(Mutates(), (x.clone(),)), target="cpu", cache=False)
    y = x.clone()
    out = compiled(y)
    torch.testing.assert_close(y, x + 1)
    torch.testing.assert_close(out, (x + 1) * 3)
    compiled(y)
    assert compiled.state["count"].tolist() == [2.0, 2.0, 2.0]
    assert module.count.tolist() == [0.0, 0.0, 0.0]


def test_grad_mode_is_restored_after_a_call_and_a_failed_call():
    compiled = aten_mlir.compile(export(Passthrough(), (torch.randn(3, 4),)), target="cpu")
    assert torch.is_grad_enabled()
    compiled(torch.randn(3, 4))
    assert torch.is_grad_enabled()
    with pytest.raises(ValueError):
        compiled(torch.randn(3, 5))
    assert torch.is_grad_enabled()
    with torch.no_grad():
        compiled(torch.randn(3, 4))
        assert not torch.is_grad_enabled()

"""`aten-outline-repeated-blocks` with `aten-split-fresh-deallocs`: a model's repeated layers
compile once and run as calls, with results equal to eager."""

from __future__ import annotations

import torch

import aten_mlir


class _Layer(torch.nn.Module):
    def __init__(self, width: int, scale: float):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 2 * width)
        self.down = torch.nn.Linear(2 * width, width)
        self.scale = scale

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x)))) * self.scale


class _Stack(torch.nn.Module):
    def __init__(self, scales, width: int = 32):
        super().__init__()
        self.layers = torch.nn.ModuleList(_Layer(width, s) for s in scales)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x.sum(-1), x


def _compile(model, x, tmp_path):
    program = aten_mlir.compile(torch.export.export(model.eval(), (x,)), dump_dir=tmp_path)
    with torch.no_grad():
        for got, want in zip(program(x), model(x)):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    return (tmp_path / "03-fusion.mlir").read_text(), (tmp_path / "04-bufferize.mlir").read_text()


def test_identical_layers_become_calls_of_one_function(tmp_path):
    torch.manual_seed(0)
    fused, bufferized = _compile(_Stack([0.5] * 6), torch.randn(4, 16, 32), tmp_path)
    calls = [line for line in fused.splitlines() if "call @segment0_block" in line]
    assert len(calls) >= 3 and all("@segment0_block0(" in line for line in calls)
    assert fused.count("func.func private @segment0_block") == 1
    # the layers' results are freed one by one, with no runtime alias check
    assert "bufferization.dealloc" not in bufferized and "dealloc_helper" not in bufferized
    assert bufferized.count("memref.dealloc") >= len(calls)


def test_layers_differing_in_a_constant_stay_apart_and_stay_right(tmp_path):
    torch.manual_seed(0)
    fused, _ = _compile(_Stack([0.5, 0.5, 0.25, 0.5]), torch.randn(2, 8, 32), tmp_path)
    calls = [line for line in fused.splitlines() if "call @" in line]
    segment, functions = fused.split("func.func private", 1)
    # three layers share a function; the 0.25 one (its scale differs) stays inline
    assert len(calls) == 3 and all("@segment0_block0(" in line for line in calls)
    assert "2.500000e-01" in segment and "2.500000e-01" not in functions


def test_layers_go_back_inline_when_deallocation_needs_a_runtime_alias_check(tmp_path, monkeypatch):
    from aten_mlir.passes.bufferization import split_deallocs

    # as if a layer returned a view of its input: its results cannot be freed one by one
    monkeypatch.setattr(split_deallocs, "_split", lambda dealloc, fresh: False)
    torch.manual_seed(0)
    fused, bufferized = _compile(_Stack([0.5] * 4), torch.randn(2, 8, 32), tmp_path)
    assert "call @" not in fused and "dealloc_helper" not in bufferized

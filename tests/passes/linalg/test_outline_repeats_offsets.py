"""`aten-outline-repeated-blocks` on unrolled recurrences: cells that differ only in the time
step their slices read become calls of one function taking the step's offset, with results
equal to eager."""

from __future__ import annotations

import pytest
import torch
from torch.utils._pytree import tree_leaves as leaves

import aten_mlir


class _Cells(torch.nn.Module):
    """A Python loop over time steps of an `LSTMCell` or `GRUCell`."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x):
        h = torch.zeros(x.shape[1], self.cell.hidden_size)
        state = (h, torch.zeros_like(h)) if isinstance(self.cell, torch.nn.LSTMCell) else h
        outputs = []
        for t in range(x.shape[0]):
            state = self.cell(x[t], state)
            outputs.append(state[0] if isinstance(state, tuple) else state)
        return torch.stack(outputs)


def _fused(model, x, tmp_path, dynamic_shapes=None, batch_dim=1, batches=()):
    """The module after fusion; checks the program against eager at `x` and other batches."""
    model = model.eval()
    ep = torch.export.export(model, (x,), dynamic_shapes=dynamic_shapes)
    program = aten_mlir.compile(ep, cache=False, dump_dir=tmp_path)
    with torch.no_grad():
        for batch in (x.shape[batch_dim], *batches):
            shape = list(x.shape)
            shape[batch_dim] = batch
            y = torch.randn(shape)
            got, want = leaves(program(y)), leaves(model(y))
            assert len(got) == len(want)
            for g, w in zip(got, want):
                torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)
    return (tmp_path / "03-fusion.mlir").read_text()


def _calls(fused: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in fused.splitlines():
        if " call @" in line:
            name = line.split("call @", 1)[1].split("(", 1)[0]
            counts[name] = counts.get(name, 0) + 1
    return counts


def test_two_layer_lstm_runs_one_function_per_layer(tmp_path):
    torch.manual_seed(0)
    fused = _fused(torch.nn.LSTM(16, 24, num_layers=2), torch.randn(12, 3, 16), tmp_path)
    calls = _calls(fused)
    # the first step of each layer (zero state: h and c the same value) stays inline
    assert sum(calls.values()) == 2 * 11, calls
    assert len(calls) <= 2 and fused.count("func.func private") == len(calls)
    segment, functions = fused.split("func.func private", 1)
    # the time step is passed: the step's slice reads it as a dynamic offset
    assert ": index" in functions.split("\n", 1)[0]
    assert "tensor.extract_slice %arg" in functions and "[%arg" in functions


@pytest.mark.parametrize(
    "model, x",
    [
        (lambda: torch.nn.LSTM(16, 24), torch.randn(9, 3, 16)),
        (lambda: torch.nn.LSTM(16, 24, batch_first=True), torch.randn(3, 9, 16)),
        (lambda: torch.nn.LSTM(16, 24, bidirectional=True), torch.randn(9, 3, 16)),
        (lambda: torch.nn.GRU(16, 24, num_layers=2), torch.randn(9, 3, 16)),
        (lambda: torch.nn.RNN(16, 24, num_layers=2), torch.randn(9, 3, 16)),
    ],
    ids=["lstm", "lstm-batch-first", "lstm-bidirectional", "gru", "rnn-tanh"],
)
def test_recurrences_become_calls_and_match_eager(model, x, tmp_path):
    torch.manual_seed(0)
    fused = _fused(model(), x, tmp_path, batch_dim=0 if x.shape[0] == 3 else 1)
    assert sum(_calls(fused).values()) >= 6, _calls(fused)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_dynamic_batch_becomes_calls_and_matches_eager(kind, tmp_path):
    torch.manual_seed(0)
    model = {"lstm": torch.nn.LSTM(16, 24, num_layers=2), "gru": torch.nn.GRU(16, 24)}[kind]
    batch = torch.export.Dim("batch", min=1, max=256)
    x = torch.randn(7, 5, 16)
    fused = _fused(model, x, tmp_path, ({1: batch},), batches=(1, 33))
    # the cells' empties sized by `tensor.dim` of the input are cloned, not passed
    assert sum(_calls(fused).values()) >= 5, _calls(fused)


# A loop over `LSTMCell`/`GRUCell` steps compiles as one segment per step (the cell's op falls
# back to eager between them): no call to count, the results must still match.
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("cell", [torch.nn.LSTMCell, torch.nn.GRUCell], ids=["lstm", "gru"])
def test_loops_over_cells_match_eager(cell, dynamic, tmp_path):
    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=1, max=256)
    shapes = ({1: batch},) if dynamic else None
    x = torch.randn(7, 5, 16)
    _fused(_Cells(cell(16, 24)), x, tmp_path, shapes, batches=(1, 33) if dynamic else ())

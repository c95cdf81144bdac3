"""nn.LSTM / nn.GRU / nn.RNN decompose to core aten (no `aten.lstm.input` & co. left) and compile
with no eager fallback to eager's numbers, on CPU and Triton (interpreted), over layers,
directions, batch_first, biases, proj_size and train-mode dropout."""

from __future__ import annotations

import warnings

import pytest
import torch

import aten_mlir
from aten_mlir.frontend import import_program
from aten_mlir.passes.decompose import decompose, ops_outside, target_set
from aten_mlir.tests.support.programs import single_op_program

CONFIGS = {
    "lstm-2layer-batch_first": ("LSTM", dict(num_layers=2, batch_first=True)),
    "lstm-bidirectional": ("LSTM", dict(num_layers=2, bidirectional=True)),
    "lstm-proj-nobias": ("LSTM", dict(bias=False, proj_size=3)),
    "lstm-proj-bidirectional": (
        "LSTM",
        dict(num_layers=2, bidirectional=True, proj_size=2, batch_first=True),
    ),
    "gru-bidirectional": ("GRU", dict(num_layers=2, bidirectional=True, batch_first=True)),
    "gru-nobias": ("GRU", dict(bias=False)),
    "rnn-relu": ("RNN", dict(num_layers=2, nonlinearity="relu")),
    "rnn-tanh-bidirectional-nobias": ("RNN", dict(num_layers=3, bidirectional=True, bias=False)),
}


@pytest.fixture
def triton_interpreter():
    """Triton kernels in the interpreter when no GPU is present (as tests/backends/triton's
    conftest does for its folder)."""
    import triton

    from aten_mlir.backends.triton.launch import interpreting

    if interpreting():
        triton.knobs.runtime.interpret = True


def _model(name):
    torch.manual_seed(0)
    kind, kwargs = CONFIGS[name]
    m = getattr(torch.nn, kind)(4, 5, **kwargs).eval()
    x = torch.randn(2, 6, 4) if kwargs.get("batch_first") else torch.randn(6, 2, 4)
    return m, x


def _export(m, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nn.RNNBase's _flat_weights note
        return torch.export.export(m, args)


def _flat(out):
    return list(torch.utils._pytree.tree_leaves(out))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_decomposes_to_core(name):
    m, x = _model(name)
    program = decompose(import_program(_export(m, (x,))))
    assert [op.name for op in ops_outside(program.module.operation, target_set())] == []


def _assert_compiles_like_eager(m, args, target):
    compiled = aten_mlir.compile(_export(m, args), target=target)
    assert compiled.fallbacks == []
    for got, want in zip(_flat(compiled(*args)), _flat(m(*args)), strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_cpu_like_eager(name):
    m, x = _model(name)
    _assert_compiles_like_eager(m, (x,), "cpu")


@pytest.mark.parametrize("name", ["lstm-proj-bidirectional", "gru-bidirectional", "rnn-relu"])
def test_triton_like_eager(name, triton_interpreter):
    m, x = _model(name)
    _assert_compiles_like_eager(m, (x,), "triton")


def test_initial_state_passed():
    m, x = _model("lstm-bidirectional")
    h0, c0 = torch.randn(4, 2, 5), torch.randn(4, 2, 5)
    _assert_compiles_like_eager(m, (x, (h0, c0)), "cpu")


def test_train_mode_dropout():
    """Dropout between layers in train mode: layer 0's final state is untouched (dropout acts on
    its output sequence only), the layer 1 state differs from eval mode's."""
    torch.manual_seed(0)
    m = torch.nn.GRU(4, 32, num_layers=2, dropout=0.5).train()
    x = torch.randn(5, 3, 4)
    compiled = aten_mlir.compile(_export(m, (x,)))
    assert compiled.fallbacks == []
    _, h = compiled(x)
    _, h_eval = m.eval()(x)
    torch.testing.assert_close(h[0], h_eval[0], atol=1e-5, rtol=1e-5)
    assert not torch.allclose(h[1], h_eval[1], atol=1e-3)


@pytest.mark.parametrize("name", ["lstm-proj-bidirectional", "gru-nobias"])
def test_dynamic_batch(name):
    """A `Dim` on the batch (the length stays static: torch.export specialises it)."""
    m, x = _model(name)
    batch_dim = 0 if CONFIGS[name][1].get("batch_first") else 1
    ep = torch.export.export(m, (x,), dynamic_shapes=({batch_dim: torch.export.Dim("B")},))
    compiled = aten_mlir.compile(ep)
    assert compiled.fallbacks == []
    y = torch.randn(*[5 if d == batch_dim else s for d, s in enumerate(x.shape)])
    for got, want in zip(_flat(compiled(y)), _flat(m(y)), strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("reverse", [False, True])
def test_mkldnn_rnn_layer_matches_the_oneDNN_kernel(reverse):
    """One LSTM layer and direction as `aten.lstm` reaches a `torch.compile` backend on CPU."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(6, 5)
    x, h, c = torch.randn(4, 3, 6), torch.randn(1, 3, 5), torch.randn(1, 3, 5)
    weights = [w.detach() for w in lstm.parameters()]  # w_ih, w_hh, b_ih, b_hh
    args = dict(reverse=reverse, batch_sizes=[], mode=2, hidden_size=5, num_layers=1)
    args.update(has_biases=True, bidirectional=False, batch_first=False, train=False)
    tensors = [x, *weights, h, c]
    names = ["input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"]
    program = single_op_program("aten.mkldnn_rnn_layer", tensors, names=names, **args)
    decomposed = decompose(program)
    assert [op.name for op in ops_outside(decomposed.module.operation, target_set())] == []
    compiled = aten_mlir.compile(program, cache=False)
    assert not compiled.fallbacks
    got = compiled(*tensors)
    want = torch.ops.aten.mkldnn_rnn_layer(*tensors, *args.values())
    for g, w in zip(got[:3], want[:3]):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


class _Cells(torch.nn.Module):
    """A Python loop over a cell (export keeps `aten.gru_cell` & co. as ops), the state
    handed from one cell kind to the next; an unbatched call of each as well."""

    def __init__(self, bias: bool):
        super().__init__()
        self.gru = torch.nn.GRUCell(4, 5, bias=bias)
        self.lstm = torch.nn.LSTMCell(4, 5, bias=bias)
        self.tanh = torch.nn.RNNCell(4, 5, bias=bias)
        self.relu = torch.nn.RNNCell(4, 5, bias=bias, nonlinearity="relu")

    def forward(self, x, h):
        for t in range(x.shape[1]):
            h = self.gru(x[:, t], h)
        h, c = self.lstm(x[:, 0], (h, h * 0.5))
        h = self.relu(x[:, 1], self.tanh(x[:, 2], h))
        return h, c, self.gru(x[0, 0], h[0])


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dynamic", [False, True])
def test_cell_ops_compile_like_eager(bias, dynamic):
    torch.manual_seed(0)
    m = _Cells(bias).eval()
    x, h = torch.randn(3, 4, 4), torch.randn(3, 5)
    batch = torch.export.Dim("B", min=2)
    shapes = ({0: batch}, {0: batch}) if dynamic else None
    ep = torch.export.export(m, (x, h), dynamic_shapes=shapes)
    names = {str(n.target) for n in ep.graph.nodes}
    assert {"aten.gru_cell.default", "aten.lstm_cell.default"} <= names  # what is tested
    assert [
        op.name for op in ops_outside(decompose(import_program(ep)).module.operation, target_set())
    ] == []
    compiled = aten_mlir.compile(ep)
    assert compiled.fallbacks == []
    for size in (3, 7) if dynamic else (3,):
        args = (torch.randn(size, 4, 4), torch.randn(size, 5))
        for got, want in zip(_flat(compiled(*args)), _flat(m(*args)), strict=True):
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)

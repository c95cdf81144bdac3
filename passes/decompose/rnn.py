"""Recurrent layers -> core aten, as torch's own table (`lstm_impl`, `gru_impl`,
`rnn_tanh_input`): per layer and direction, the input projection of every time step is one
`aten.linear`, then the time steps are unrolled (a static sequence length) with one hidden-state
product and the gate arithmetic per step. The packed-sequence `.data` overloads are not reachable
from `torch.export` (`pack_padded_sequence` needs data-dependent batch sizes), so only the
`.input` forms are here.

Dropout between layers (train=True, dropout > 0) is `aten.dropout` as in ATen's `_rnn_impl`
(torch's decomposition drops it through a bug in its layer test); eval mode has none.
"""

from __future__ import annotations

from mlir import ir

from .common import dtype, rank
from .registry import register_decomposition


def _sequence_length(x: ir.Value, dim: int) -> int | None:
    t = ir.RankedTensorType(x.type)
    return None if t.is_dynamic_dim(dim) else t.get_dim_size(dim)


def _param_groups(params, has_biases: bool, projections: bool) -> list[tuple]:
    """The flat `params` list per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]."""
    size = 2 + 2 * has_biases + projections
    if len(params) % size:
        return []
    return [tuple(params[i : i + size]) for i in range(0, len(params), size)]


class _Layer:
    """One direction of one layer: its weights, and the cell that advances its state."""

    def __init__(self, rewriter, group, has_biases: bool, cell):
        self.rw = rewriter
        self.w_ih, self.w_hh = group[0], group[1]
        self.b_ih = group[2] if has_biases else None
        self.b_hh = group[3] if has_biases else None
        self.w_hr = group[-1] if len(group) in (3, 5) else None
        self.cell = cell

    def linear(self, x, w, b):
        return self.rw.aten("aten.linear", x, w, b)

    def run(self, seq, state, reverse: bool):
        """seq [T, B, I], state a tuple of [B, H] tensors -> (outputs [T, B, H'], final state)."""
        rw = self.rw
        length = _sequence_length(seq, 0)
        projected = self.linear(seq, self.w_ih, self.b_ih)
        outputs = []
        steps = range(length - 1, -1, -1) if reverse else range(length)
        for t in steps:
            state = self.cell(self, rw.aten("aten.select.int", projected, 0, t), state)
            outputs.append(state[0])
        if reverse:
            outputs.reverse()
        return rw.aten("aten.stack", outputs, 0), state


def _chunks(rewriter, gates, count: int):
    """`gates.chunk(count, -1)` as static slices."""
    width = ir.RankedTensorType(gates.type).get_dim_size(rank(gates) - 1) // count
    return [
        rewriter.aten("aten.slice.Tensor", gates, -1, k * width, (k + 1) * width)
        for k in range(count)
    ]


def _lstm_cell(layer, x_t, state):
    """lstm_cell: gates = x_t + h W_hh^T + b_hh; c' = f*c + i*g; h' = o*tanh(c') [W_hr^T]."""
    rw = layer.rw
    h, c = state
    gates = rw.aten("aten.add.Tensor", layer.linear(h, layer.w_hh, layer.b_hh), x_t)
    i, f, g, o = _chunks(rw, gates, 4)
    i, f, o = (rw.aten("aten.sigmoid", v) for v in (i, f, o))
    g = rw.aten("aten.tanh", g)
    c = rw.aten(
        "aten.add.Tensor", rw.aten("aten.mul.Tensor", f, c), rw.aten("aten.mul.Tensor", i, g)
    )
    h = rw.aten("aten.mul.Tensor", o, rw.aten("aten.tanh", c))
    if layer.w_hr is not None:
        h = layer.linear(h, layer.w_hr, None)
    return h, c


def _gru_cell(layer, x_t, state):
    """gru_cell: r, z from sigmoid(x + h-part); n = tanh(x_n + r * h_n); h' = (h - n) * z + n."""
    rw = layer.rw
    (h,) = state
    x_r, x_z, x_n = _chunks(rw, x_t, 3)
    h_r, h_z, h_n = _chunks(rw, layer.linear(h, layer.w_hh, layer.b_hh), 3)
    r = rw.aten("aten.sigmoid", rw.aten("aten.add.Tensor", h_r, x_r))
    z = rw.aten("aten.sigmoid", rw.aten("aten.add.Tensor", h_z, x_z))
    n = rw.aten("aten.tanh", rw.aten("aten.add.Tensor", x_n, rw.aten("aten.mul.Tensor", h_n, r)))
    keep = rw.aten("aten.mul.Tensor", rw.aten("aten.sub.Tensor", h, n), z)
    return (rw.aten("aten.add.Tensor", keep, n),)


def _simple_cell(activation: str):
    def cell(layer, x_t, state):
        rw = layer.rw
        (h,) = state
        pre = rw.aten("aten.add.Tensor", layer.linear(h, layer.w_hh, layer.b_hh), x_t)
        return (rw.aten(activation, pre),)

    return cell


def _stacked(rewriter, seq, states, groups, cell, a):
    """_rnn_helper: layers in order, each direction over the previous layer's output; `states`
    holds, per layer and direction, the initial state tuple. Returns the output and the final
    state tuples in the same order."""
    rw = rewriter
    directions = 2 if a["bidirectional"] else 1
    finals = []
    for layer_index in range(a["num_layers"]):
        outs = []
        for d in range(directions):
            k = layer_index * directions + d
            layer = _Layer(rw, groups[k], a["has_biases"], cell)
            out, final = layer.run(seq, states[k], reverse=d == 1)
            outs.append(out)
            finals.append(final)
        seq = outs[0] if directions == 1 else rw.aten("aten.cat", outs, -1)
        if a["train"] and a["dropout"] > 0 and layer_index < a["num_layers"] - 1:
            seq = rw.aten("aten.dropout", seq, a["dropout"], True)
    return seq, finals


def _run(op, rewriter, initial: list, cell, projections: bool = False):
    """The shared driver: `initial` is one [L*D, B, H] tensor per state component."""
    rw = rewriter
    a = rw.args
    x = a["input"]
    time_dim = 1 if a["batch_first"] else 0
    if rank(x) != 3 or _sequence_length(x, time_dim) is None:
        return None  # unbatched inputs are made batched by nn.RNNBase before export
    groups = _param_groups(a["params"], a["has_biases"], projections)
    count = a["num_layers"] * (2 if a["bidirectional"] else 1)
    if len(groups) != count:
        return None
    seq = rw.aten("aten.transpose.int", x, 0, 1) if a["batch_first"] else x
    states = [
        tuple(rw.aten("aten.select.int", component, 0, k) for component in initial)
        for k in range(count)
    ]
    seq, finals = _stacked(rw, seq, states, groups, cell, a)
    if a["batch_first"]:
        seq = rw.aten("aten.transpose.int", seq, 0, 1)
    stacked = [
        rw.aten("aten.stack", [final[j] for final in finals], 0) for j in range(len(initial))
    ]
    return [seq, *stacked]


@register_decomposition("aten.lstm.input")
def decompose_lstm(op, rewriter):
    """aten.lstm.input -> aten.linear, aten.select.int, aten.slice.Tensor, aten.sigmoid,
    aten.tanh, aten.mul.Tensor, aten.add.Tensor, aten.stack (aten.transpose.int, aten.cat,
    aten.dropout as configured): unrolled over a static sequence length; proj_size allowed"""
    h0, c0 = rewriter.args["hx"]
    h_t, c_t = (ir.RankedTensorType(v.type) for v in (h0, c0))
    projections = h_t.get_dim_size(2) != c_t.get_dim_size(2)
    return _run(op, rewriter, [h0, c0], _lstm_cell, projections)


@register_decomposition("aten.gru.input")
def decompose_gru(op, rewriter):
    """aten.gru.input -> aten.linear, aten.select.int, aten.slice.Tensor, aten.sigmoid,
    aten.tanh, aten.mul.Tensor, aten.sub.Tensor, aten.add.Tensor, aten.stack: unrolled over a
    static sequence length"""
    return _run(op, rewriter, [rewriter.args["hx"]], _gru_cell)


@register_decomposition("aten.rnn_tanh.input")
def decompose_rnn_tanh(op, rewriter):
    """aten.rnn_tanh.input -> aten.linear, aten.select.int, aten.add.Tensor, aten.tanh,
    aten.stack: unrolled over a static sequence length"""
    return _run(op, rewriter, [rewriter.args["hx"]], _simple_cell("aten.tanh"))


@register_decomposition("aten.rnn_relu.input")
def decompose_rnn_relu(op, rewriter):
    """aten.rnn_relu.input -> aten.linear, aten.select.int, aten.add.Tensor, aten.relu,
    aten.stack: unrolled over a static sequence length"""
    return _run(op, rewriter, [rewriter.args["hx"]], _simple_cell("aten.relu"))


def _one_step(rewriter, hx: tuple, cell):
    """A cell op's single step: the input projected (x W_ih^T + b_ih), then `cell`."""
    a = rewriter.args
    group = (a["w_ih"], a["w_hh"], a["b_ih"], a["b_hh"])  # a bias may be None: no add
    layer = _Layer(rewriter, group, True, cell)
    return cell(layer, layer.linear(a["input"], layer.w_ih, layer.b_ih), hx)


@register_decomposition("aten.lstm_cell")
def decompose_lstm_cell(op, rewriter):
    """aten.lstm_cell -> aten.linear, aten.slice.Tensor, aten.sigmoid, aten.tanh,
    aten.mul.Tensor, aten.add.Tensor: one step of nn.LSTMCell (export keeps the cell op)"""
    h, c = rewriter.args["hx"]
    return list(_one_step(rewriter, (h, c), _lstm_cell))


@register_decomposition("aten.gru_cell")
def decompose_gru_cell(op, rewriter):
    """aten.gru_cell -> aten.linear, aten.slice.Tensor, aten.sigmoid, aten.tanh,
    aten.mul.Tensor, aten.sub.Tensor, aten.add.Tensor: one step of nn.GRUCell"""
    return list(_one_step(rewriter, (rewriter.args["hx"],), _gru_cell))


@register_decomposition("aten.rnn_tanh_cell")
def decompose_rnn_tanh_cell(op, rewriter):
    """aten.rnn_tanh_cell -> aten.linear, aten.add.Tensor, aten.tanh: one step of nn.RNNCell"""
    return list(_one_step(rewriter, (rewriter.args["hx"],), _simple_cell("aten.tanh")))


@register_decomposition("aten.rnn_relu_cell")
def decompose_rnn_relu_cell(op, rewriter):
    """aten.rnn_relu_cell -> aten.linear, aten.add.Tensor, aten.relu: one step of
    nn.RNNCell(nonlinearity="relu")"""
    return list(_one_step(rewriter, (rewriter.args["hx"],), _simple_cell("aten.relu")))


@register_decomposition("aten.mkldnn_rnn_layer")
def decompose_mkldnn_rnn_layer(op, rewriter):
    """aten.mkldnn_rnn_layer -> aten.linear, aten.select.int, aten.slice.Tensor, aten.sigmoid,
    aten.tanh, aten.mul.Tensor, aten.add.Tensor, aten.stack, aten.zeros (aten.transpose.int):
    one direction of one LSTM layer, what `aten.lstm` becomes on CPU under `torch.compile`;
    inference only (training saves oneDNN's workspace for its backward)."""
    rw = rewriter
    a = rw.args
    if a["train"] or a["mode"] != 2 or a["batch_sizes"]:  # 2: oneDNN's LSTM
        return None
    x = a["input"]
    time_dim = 1 if a["batch_first"] else 0
    if rank(x) != 3 or _sequence_length(x, time_dim) is None:
        return None
    group = (a["weight0"], a["weight1"], a["weight2"], a["weight3"])
    layer = _Layer(rw, group, a["has_biases"], _lstm_cell)
    seq = rw.aten("aten.transpose.int", x, 0, 1) if a["batch_first"] else x
    # the states may carry the layers' dim ([1, B, H]); the cell takes [B, H]
    state = [
        rw.aten("aten.select.int", v, 0, 0) if rank(v) == 3 else v for v in (a["hx_"], a["cx_"])
    ]
    seq, final = layer.run(seq, tuple(state), reverse=a["reverse"])
    h, c = (
        rw.aten("aten.unsqueeze", v, 0) if rank(r) == 3 else v
        for v, r in zip(final, op.results[1:3])
    )
    if a["batch_first"]:
        seq = rw.aten("aten.transpose.int", seq, 0, 1)
    # oneDNN's workspace: nothing reads it outside training
    workspace = ir.RankedTensorType(op.results[3].type)
    if not workspace.has_static_shape:
        return None
    shape = [workspace.get_dim_size(d) for d in range(workspace.rank)]
    empty = rw.aten("aten.zeros", shape, dtype=dtype(op.results[3]), results=[workspace])
    return [seq, h, c, empty]

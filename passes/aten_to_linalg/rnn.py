"""Recurrent layers over a dynamic sequence length -> an `scf.for` over time of linalg ops.

`aten-decompose` unrolls `aten.lstm.input` & co. when the sequence length is static
(passes/decompose/rnn.py); a `Dim` on the time dim leaves the op whole, and this lowering runs
the same cells (torch's `lstm_cell`, `gru_cell`, `rnn_cell`) in a loop over time carrying the
states and the output sequence: per step one `tensor.extract_slice` of the input, two products
(`linalg.generic` contractions with the transposed weights: input and hidden), one elementwise
`linalg.generic` for the gates, and a `tensor.insert_slice` of the new hidden state. Layers and
directions run one loop each. f32/f64, eval mode (train-mode dropout > 0 stays an eager call).
"""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith, bufferization, math, scf, tensor

from .builder import PARALLEL, REDUCTION, tensor_type
from .reductions_common import empty, full, generic, ranked
from .registry import register_lowering

DYN = ir.ShapedType.get_dynamic_size()


def _mixed(values):
    dynamic = [v for v in values if isinstance(v, ir.Value)]
    return dynamic, [DYN if isinstance(v, ir.Value) else v for v in values]


def _slice(src, offsets, sizes, result):
    """`tensor.extract_slice` (unit strides) at the current insertion point; a `result` of one
    rank less drops the leading unit dim, by a collapse_shape after a full-rank slice (the
    Triton loop lowering mis-indexes rank-reducing subviews)."""
    dyn_off, st_off = _mixed(offsets)
    dyn_size, st_size = _mixed(sizes)
    ones = [1] * len(offsets)
    full_t = ir.RankedTensorType.get(st_size, result.element_type)
    out = tensor.ExtractSliceOp(full_t, src, dyn_off, dyn_size, [], st_off, st_size, ones).result
    if result.rank == len(offsets):
        return out
    return tensor.CollapseShapeOp(result, out, _reassoc(len(offsets))).result


def _insert(src, dest, offsets, sizes):
    """`tensor.insert_slice` of `src` at `offsets` of `dest`; a `src` of one rank less is
    expanded with a leading unit dim first (see `_slice`)."""
    dyn_off, st_off = _mixed(offsets)
    dyn_size, st_size = _mixed(sizes)
    ones = [1] * len(offsets)
    src_t = tensor_type(src)
    if src_t.rank < len(offsets):
        full_t = ir.RankedTensorType.get(st_size, src_t.element_type)
        src = tensor.ExpandShapeOp(full_t, src, _reassoc(len(offsets)), dyn_size, st_size).result
    return tensor.InsertSliceOp(src, dest, dyn_off, dyn_size, [], st_off, st_size, ones).result


def _reassoc(rank: int) -> ir.ArrayAttr:
    """[[0, 1], [2], ...]: the leading unit dim joined to the next."""
    i64 = ir.IntegerType.get_signless(64)
    groups = [[0, 1]] + [[d] for d in range(2, rank)]
    return ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups]
    )


_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _linear(x, w, b, rows):
    """x [M, K] @ w[N, K]^T (+ b[N]) at the current insertion point."""
    e = tensor_type(x).element_type
    n = tensor_type(w).get_dim_size(0)
    acc = full(ranked([tensor_type(x).shape[0], n], e), [rows, n], 0.0)
    m = ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(2)])
    wm = ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(1), ir.AffineDimExpr.get(2)])
    om = ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)])
    (y,) = generic(
        [x, w],
        [acc],
        [m, wm, om],
        [PARALLEL, PARALLEL, REDUCTION],
        lambda a, c, s: arith.addf(s, arith.mulf(a, c)),
    )
    if b is None:
        return y
    ident = ir.AffineMap.get_identity(2)
    col = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(1)])
    return generic(
        [y, b], [y], [ident, col, ident], [PARALLEL] * 2, lambda v, c, _o: arith.addf(v, c)
    )[0]


def _sigmoid(v):
    one = arith.constant(v.type, 1.0)
    return arith.divf(one, arith.addf(one, math.exp(arith.negf(v))))


def _cell_body(kind):
    """The scalar cell: (gate inputs..., states...) -> new states."""

    # LSTM's old cell state is read through its output (the carried tensor, written in place).
    def lstm(i_x, f_x, g_x, o_x, i_h, f_h, g_h, o_h, _h, c):
        i = _sigmoid(arith.addf(i_h, i_x))
        f = _sigmoid(arith.addf(f_h, f_x))
        g = math.tanh(arith.addf(g_h, g_x))
        o = _sigmoid(arith.addf(o_h, o_x))
        c2 = arith.addf(arith.mulf(f, c), arith.mulf(i, g))
        return [arith.mulf(o, math.tanh(c2)), c2]

    def gru(r_x, z_x, n_x, r_h, z_h, n_h, h, _out):
        r = _sigmoid(arith.addf(r_h, r_x))
        z = _sigmoid(arith.addf(z_h, z_x))
        n = math.tanh(arith.addf(n_x, arith.mulf(n_h, r)))
        return [arith.addf(arith.mulf(arith.subf(h, n), z), n)]

    def rnn_tanh(x, h_part, _h):
        return [math.tanh(arith.addf(h_part, x))]

    def rnn_relu(x, h_part, _h):
        v = arith.addf(h_part, x)
        return [arith.maximumf(v, arith.constant(v.type, 0.0))]

    return {"lstm": lstm, "gru": gru, "rnn_tanh": rnn_tanh, "rnn_relu": rnn_relu}[kind]


class _Loop:
    """One layer and direction over time: `run(seq, states)` -> (out [T, B, H'], states)."""

    def __init__(self, rw, kind, group, has_biases):
        self.rw, self.kind = rw, kind
        self.w_ih, self.w_hh = group[0], group[1]
        self.b_ih = group[2] if has_biases else None
        self.b_hh = group[3] if has_biases else None
        self.w_hr = group[-1] if len(group) in (3, 5) else None

    def _chunks(self, v, count, batch):
        width = tensor_type(v).get_dim_size(1) // count
        t = ranked([tensor_type(v).shape[0], width], tensor_type(v).element_type)
        return [_slice(v, [0, k * width], [batch, width], t) for k in range(count)]

    def step(self, x_t, h, cell_state, batch):
        """One time step: the new hidden state (fresh) and cell state (written over the
        carried one, which the cell reads through its output)."""
        count = _GATES[self.kind]
        gi = _linear(x_t, self.w_ih, self.b_ih, batch)
        gh = _linear(h, self.w_hh, self.b_hh, batch)
        ins = self._chunks(gi, count, batch) + self._chunks(gh, count, batch)
        if self.kind == "gru":
            ins.append(h)
        width = tensor_type(ins[0]).get_dim_size(1)
        t = ranked([tensor_type(x_t).shape[0], width], tensor_type(x_t).element_type)
        outs = [empty(t, [batch, width]), *([cell_state] if cell_state is not None else [])]
        ident = ir.AffineMap.get_identity(2)
        maps = [ident] * (len(ins) + len(outs))
        new = generic(ins, outs, maps, [PARALLEL] * 2, _cell_body(self.kind))
        if self.w_hr is not None:
            new[0] = _linear(new[0], self.w_hr, None, batch)
        return new[0], (new[1] if cell_state is not None else None)

    def run(self, seq, states, length, batch, reverse):
        """The hidden states live in one [T + 1, B, H] tensor, h0 at row 0 (forward) or T
        (reverse): a step reads the row before it and writes its own, so that the loop carries
        only tensors it updates in place (an scf.for yield must bufferize to the buffer it
        carries, and a carried h would be replaced by a copy)."""
        rw = self.rw
        e = tensor_type(seq).element_type
        width = tensor_type(states[0]).get_dim_size(1)
        rows = ranked([DYN, tensor_type(seq).shape[1], width], e)
        index = ir.IndexType.get()
        with rw.at():
            c0, c1 = arith.constant(index, 0), arith.constant(index, 1)
            total = arith.addi(length, c1)
            dyn = [total] + ([batch] if rows.is_dynamic_dim(1) else [])
            hs = bufferization.AllocTensorOp(rows, dyn).result
            hs = _insert(states[0], hs, [length if reverse else c0, 0, 0], [1, batch, width])
            cell = None
            if len(states) > 1:  # a fresh buffer for the cell state, updated in place
                cell = bufferization.AllocTensorOp(tensor_type(states[1]), [], copy=states[1])
                cell = cell.result
            last = arith.subi(length, c1)
            loop = scf.ForOp(c0, length, c1, [hs, *([cell] if cell is not None else [])])
        with ir.InsertionPoint(loop.body), rw.op.location:
            t = loop.induction_variable
            at = arith.subi(last, t) if reverse else t
            hs, *carried = loop.inner_iter_args
            read = arith.addi(at, c1) if reverse else at
            write = at if reverse else arith.addi(at, c1)
            step_t = ranked([tensor_type(seq).shape[1], width], e)
            in_w = tensor_type(seq).get_dim_size(2)
            x_t = _slice(
                seq, [at, 0, 0], [1, batch, in_w], ranked([tensor_type(seq).shape[1], in_w], e)
            )
            h = _slice(hs, [read, 0, 0], [1, batch, width], step_t)
            h, cell = self.step(x_t, h, carried[0] if carried else None, batch)
            hs = _insert(h, hs, [write, 0, 0], [1, batch, width])
            scf.YieldOp([hs, *([cell] if cell is not None else [])])
        hs = loop.results[0]
        with rw.at():
            first = c0 if reverse else c1
            out_t = ranked([tensor_type(seq).shape[0], tensor_type(seq).shape[1], width], e)
            out = _slice(hs, [first, 0, 0], [length, batch, width], out_t)
            final = _slice(hs, [c0 if reverse else length, 0, 0], [1, batch, width], step_t)
        return out, [final, *loop.results[1:]]


def _swap01(x, sizes):
    """x [A, B, C] -> [B, A, C] (batch_first <-> time first)."""
    t = tensor_type(x)
    shape = [t.shape[1], t.shape[0], t.shape[2]]
    out = empty(ranked(shape, t.element_type), [sizes[1], sizes[0], sizes[2]])
    d = [ir.AffineDimExpr.get(i) for i in range(3)]
    read = ir.AffineMap.get(3, 0, [d[1], d[0], d[2]])
    ident = ir.AffineMap.get_identity(3)
    return generic([x], [out], [read, ident], [PARALLEL] * 3, lambda v, _o: v)[0]


def _groups(params, has_biases, projections):
    size = 2 + 2 * has_biases + projections
    if len(params) % size:
        return []
    return [params[i : i + size] for i in range(0, len(params), size)]


def lower_rnn(kind: str, op, rw):
    """The layers and directions of `kind` as loops over a dynamic sequence length."""
    with rw.op.location:
        return _lower_rnn(kind, rw)


def _lower_rnn(kind: str, rw):
    a = rw.args
    x = a["input"]
    xt = tensor_type(x)
    initial = list(a["hx"]) if kind == "lstm" else [a["hx"]]
    floats = (ir.F32Type, ir.F64Type)
    if xt.rank != 3 or not isinstance(xt.element_type, floats):
        return None
    if a["train"] and a["dropout"] > 0:
        return None  # dropout between layers: torch's RNG, left to eager
    time_dim = 1 if a["batch_first"] else 0
    if not xt.is_dynamic_dim(time_dim):
        return None  # aten-decompose unrolls a static length
    projections = (
        kind == "lstm" and tensor_type(initial[0]).shape[2] != tensor_type(initial[1]).shape[2]
    )
    groups = _groups(a["params"], a["has_biases"], projections)
    directions = 2 if a["bidirectional"] else 1
    if len(groups) != a["num_layers"] * directions:
        return None
    sizes = rw.sizes(x)
    batch = sizes[1 - time_dim]
    length = rw._index(sizes[time_dim])
    e = xt.element_type
    with rw.at():
        seq = _swap01(x, sizes) if a["batch_first"] else x
        states = [
            [
                _slice(
                    h,
                    [k, 0, 0],
                    [1, batch, tensor_type(h).shape[2]],
                    ranked([tensor_type(h).shape[1], tensor_type(h).shape[2]], e),
                )
                for h in initial
            ]
            for k in range(len(groups))
        ]
    finals = []
    for layer in range(a["num_layers"]):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            loop = _Loop(rw, kind, groups[k], a["has_biases"])
            out, final = loop.run(seq, states[k], length, batch, reverse=d == 1)
            outs.append(out)
            finals.append(final)
        with rw.at():
            seq = outs[0] if directions == 1 else _concat(outs, length, batch)
    with rw.at():
        if a["batch_first"]:
            seq = _swap01(seq, [length, batch, tensor_type(seq).shape[2]])
        stacked = [_stack([f[j] for f in finals], batch) for j in range(len(initial))]
        results = [seq, *stacked]
        return [
            v if v.type == rw.result_type(i) else tensor.CastOp(rw.result_type(i), v).result
            for i, v in enumerate(results)
        ]


def _concat(outs, length, batch):
    """[T, B, H] pieces side by side along the last dim."""
    t = tensor_type(outs[0])
    width = t.shape[2]
    out = empty(
        ranked([t.shape[0], t.shape[1], width * len(outs)], t.element_type),
        [length, batch, width * len(outs)],
    )
    for i, piece in enumerate(outs):
        out = _insert(piece, out, [0, 0, i * width], [length, batch, width])
    return out


def _stack(states, batch):
    """[B, H] states -> [len, B, H]."""
    t = tensor_type(states[0])
    out = empty(
        ranked([len(states), t.shape[0], t.shape[1]], t.element_type),
        [len(states), batch, t.shape[1]],
    )
    for k, s in enumerate(states):
        out = _insert(s, out, [k, 0, 0], [1, batch, t.shape[1]])
    return out


register_lowering(
    "aten.lstm.input",
    partial(lower_rnn, "lstm"),
    summary="aten.lstm.input -> scf.for over a dynamic length(tensor.extract_slice, "
    "linalg.generic(products, gates), tensor.insert_slice)",
)
register_lowering(
    "aten.gru.input",
    partial(lower_rnn, "gru"),
    summary="aten.gru.input -> scf.for over a dynamic length(tensor.extract_slice, "
    "linalg.generic(products, gates), tensor.insert_slice)",
)
register_lowering(
    "aten.rnn_tanh.input",
    partial(lower_rnn, "rnn_tanh"),
    summary="aten.rnn_tanh.input -> scf.for over a dynamic length(tensor.extract_slice, "
    "linalg.generic(products, tanh), tensor.insert_slice)",
)
register_lowering(
    "aten.rnn_relu.input",
    partial(lower_rnn, "rnn_relu"),
    summary="aten.rnn_relu.input -> scf.for over a dynamic length(tensor.extract_slice, "
    "linalg.generic(products, relu), tensor.insert_slice)",
)

"""RNN ops over a dynamic sequence length lower to an scf.for over time (no eager fallback) and
match eager's aten.lstm/gru/rnn_*.input at several lengths. torch.export specialises the length
of nn.LSTM & co. (its fake kernel is the unrolled decomposition), so the programs are built
here as aten IR, as `aten-opt` users write them."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from mlir.dialects import func

import aten_mlir
from aten_mlir.dialects import build_aten, make_context, tensor_type
from aten_mlir.frontend.program import InputSpec, OutputSpec, Program, Signature
from tests.support.lowering import TARGET


def _program(op_name, x, states, params, time_dim, **flags) -> Program:
    """`@main(x, *states, *params)` returning `op_name(x, states, params, **flags)`, the time dim
    of x `?`."""
    tensors = [x, *states, *params]
    dyn = ir.ShapedType.get_dynamic_size()
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        types = [tensor_type(t.shape, t.dtype) for t in tensors]
        shape = [dyn if d == time_dim else s for d, s in enumerate(x.shape)]
        types[0] = ir.RankedTensorType.get(shape, types[0].element_type)
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", ir.FunctionType.get(types, []))
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            args = list(block.arguments)
            hx = args[1 : 1 + len(states)]
            hx = hx if op_name == "aten.lstm.input" else hx[0]
            op = build_aten(op_name, args[0], hx, args[1 + len(states) :], **flags)
            func.ReturnOp(op.results)
        results = [r.type for r in op.results]
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, results))
    signature = Signature(
        [InputSpec("user_input", f"x{i}") for i in range(len(tensors))],
        [OutputSpec("user_output", f"out{i}") for i in range(len(results))],
    )
    return Program(module, {}, signature)


CONFIGS = {
    "lstm-2layer-bidirectional": ("LSTM", dict(num_layers=2, bidirectional=True)),
    "lstm-batch_first-proj": ("LSTM", dict(batch_first=True, proj_size=3)),
    "gru-bidirectional-batch_first": ("GRU", dict(bidirectional=True, batch_first=True)),
    "gru-nobias": ("GRU", dict(bias=False, num_layers=2)),
    "rnn-tanh": ("RNN", dict()),
    "rnn-relu-bidirectional": ("RNN", dict(nonlinearity="relu", bidirectional=True)),
}
OPS = {"LSTM": "aten.lstm.input", "GRU": "aten.gru.input"}


def _target(target):
    """`target`, with Triton kernels in the interpreter when no GPU is present (as
    tests/backends/triton's conftest does for its folder)."""
    if target == "triton":
        import triton

        from aten_mlir.backends.triton.launch import interpreting

        if interpreting():
            triton.knobs.runtime.interpret = True
    return target


@pytest.mark.parametrize("target", sorted({TARGET, "triton"}))
@pytest.mark.parametrize("name", list(CONFIGS))
def test_dynamic_length_loops(name, target):
    torch.manual_seed(0)
    kind, kwargs = CONFIGS[name]
    m = getattr(torch.nn, kind)(4, 5, **kwargs).eval()
    op_name = OPS.get(kind) or f"aten.rnn_{m.nonlinearity}.input"
    batch_first = kwargs.get("batch_first", False)
    layers = m.num_layers * (2 if m.bidirectional else 1)
    states = [torch.randn(layers, 2, m.proj_size or m.hidden_size)]
    if kind == "LSTM":
        states.append(torch.randn(layers, 2, m.hidden_size))
    params = [p.detach() for p in m._flat_weights]
    flags = dict(
        has_biases=m.bias,
        num_layers=m.num_layers,
        dropout=0.0,
        train=False,
        bidirectional=m.bidirectional,
        batch_first=batch_first,
    )
    x = torch.randn(2, 6, 4) if batch_first else torch.randn(6, 2, 4)
    program = _program(op_name, x, states, params, 1 if batch_first else 0, **flags)
    compiled = aten_mlir.compile(program, target=_target(target))
    assert compiled.fallbacks == []
    op = eval("torch.ops." + op_name)  # noqa: S307  (a literal table name)
    for length in (6, 1, 11):
        x = torch.randn(2, length, 4) if batch_first else torch.randn(length, 2, 4)
        hx = states if kind == "LSTM" else states[0]
        expected = op(x, hx, params, *flags.values())
        actual = compiled(x, *states, *params)
        for a, e in zip(actual, expected, strict=True):
            torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)

"""AOTAutograd graphs as ExportedPrograms (frontend/fx_graphs.py): SymInt inputs as size
arithmetic or carrier inputs, outputs that are sizes, inputs, None, and lifted constants."""

from __future__ import annotations

import pytest
import sympy
import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

import aten_mlir
from aten_mlir.backends.dynamo import decompositions
from aten_mlir.frontend import import_program
from aten_mlir.frontend.fx_graphs import CallPlan, GraphImportError, exported_from_graph


def _graphs(fn, *args, dynamic=True, backward=True):
    """The forward and backward graphs AOTAutograd makes for `fn(*args)`, with example args."""
    seen = []

    def keep(kind):
        def compiler(gm, example_inputs):
            seen.append((kind, gm, list(example_inputs)))
            return make_boxed_func(gm.forward)

        return compiler

    backend = aot_autograd(
        fw_compiler=keep("forward"), bw_compiler=keep("backward"), decompositions=decompositions()
    )
    torch._dynamo.reset()
    out = torch.compile(fn, backend=backend, dynamic=dynamic)(*args)
    if backward:
        (out[0] if isinstance(out, tuple) else out).sum().backward()
    torch._dynamo.reset()
    return {kind: (gm, ex) for kind, gm, ex in seen}


def _run_both(gm, args):
    """(the graph's own outputs, the compiled program's through the plan) for real `args`."""
    ep, plan = exported_from_graph(gm)
    compiled = aten_mlir.compile(import_program(ep, functional=True), cache=False)
    return gm(*args), plan.results(args, compiled(*plan.inputs(args))), ep, plan


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, torch.Tensor):
            torch.testing.assert_close(g, w)
        else:
            assert g == w


def _real(example):
    """Real arguments like AOTAutograd's fake ones at other sizes: each size symbol s is given
    2 * hint + 1 and every size expression is evaluated with that."""
    values = {}
    for e in example:
        for s in e.shape if isinstance(e, torch.Tensor) else [e]:
            if isinstance(s, torch.SymInt):
                for symbol in s.node.expr.free_symbols:
                    hint = s.node.shape_env.var_to_val[symbol]
                    values.setdefault(symbol, 2 * int(hint) + 1)

    def size(s):
        return int(s.node.expr.xreplace(values)) if isinstance(s, torch.SymInt) else s

    return [
        torch.randn([size(d) for d in e.shape], dtype=e.dtype)
        if isinstance(e, torch.Tensor)
        else size(e)
        for e in example
    ]


def test_symint_inputs_become_size_reads_and_sizes_come_back():
    linear = torch.nn.Linear(6, 4)

    def f(x):
        return torch.nn.functional.gelu(linear(x)).reshape(-1)

    graphs = _graphs(f, torch.randn(5, 6))
    for kind in ("forward", "backward"):
        gm, example = graphs[kind]
        assert any(isinstance(e, torch.SymInt) for e in example), kind
        ep, plan = exported_from_graph(gm)
        placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
        assert all(isinstance(p.meta["val"], torch.Tensor) for p in placeholders)
        args = [a.detach() if isinstance(a, torch.Tensor) else a for a in _real(example)]
        # a forward's SymInt outputs (saved for the backward) are computed from the sizes
        want, got, _, _ = _run_both(gm, args)
        _same(got, want)


def _has_power(node):
    val = node.meta.get("val")
    sizes = val.shape if isinstance(val, torch.Tensor) else [val]
    return any(isinstance(s, torch.SymInt) and s.node.expr.has(sympy.Pow) for s in sizes)


def test_a_square_images_element_count_is_a_power_of_one_size():
    # dynamic=True gives a square image's height and width one symbol s; a group norm's count
    # of elements per group is then 4 * s**2, which the graphs carry as a size (it was refused:
    # both graphs of a U-Net-style model ran eagerly)
    norm = torch.nn.GroupNorm(2, 4)

    def f(x):
        return torch.nn.functional.silu(norm(x))

    graphs = _graphs(f, torch.randn(2, 4, 6, 6))
    assert any(_has_power(n) for n in graphs["forward"][0].graph.nodes)
    for kind in ("forward", "backward"):
        gm, example = graphs[kind]
        args = [a.detach() if isinstance(a, torch.Tensor) else a for a in _real(example)]
        want, got, _, _ = _run_both(gm, args)
        _same(got, want)


def test_size_expressions_torch_writes_evaluate_as_python_would():
    from torch.utils._sympy.functions import CleanDiv, Max, Min, PowByNatural, PythonMod

    from aten_mlir.frontend.fx_graphs import _evaluator

    s, t = sympy.symbols("s t", integer=True, positive=True)
    values = {s: 0, t: 1}

    def reader(e):
        return (lambda args, _i=values[e]: args[_i]) if e in values else None

    exprs = [
        Max(s, t + 2),
        Min(2 * s, t),
        PythonMod(s + 5, t),
        CleanDiv(4 * s, 2),
        PowByNatural(s, 3),
    ]
    for args in [(3, 4), (7, 2), (1, 9)]:
        want = [max(args[0], args[1] + 2), min(2 * args[0], args[1]), (args[0] + 5) % args[1]]
        want += [4 * args[0] // 2, args[0] ** 3]
        assert [_evaluator(e, reader)(args) for e in exprs] == want
    with pytest.raises(GraphImportError, match="cannot be evaluated"):
        _evaluator(sympy.Pow(s, sympy.Rational(1, 2)), reader)


def test_a_size_no_tensor_carries_gets_a_carrier_input():
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    n = graph.placeholder("n")
    graph.output((graph.call_function(torch.ops.aten.mul.Tensor, (x, n)), n))
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    mode = FakeTensorMode(shape_env=ShapeEnv())
    with mode:
        x.meta["val"] = torch.empty(3)
    n.meta["val"] = mode.shape_env.create_unbacked_symint()
    graph.output_node().args[0][0].meta["val"] = x.meta["val"]
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    ep, plan = exported_from_graph(gm)
    assert plan.carrier_args == (1,)
    args = [torch.randn(3), 7]
    assert [t.shape for t in plan.inputs(args)] == [(3,), (7, 0)]
    results = plan.results(args, [torch.zeros(3)])
    assert results[1] == 7


def test_outputs_that_are_inputs_none_or_constants():
    plan = CallPlan(
        tensor_args=(0,),
        carrier_args=(),
        outputs=(("result", 0), ("argument", 0), ("constant", None), ("constant", 3)),
    )
    x, y = torch.randn(2), torch.randn(2)
    got = plan.results([x], y)  # one result comes back bare, as modules return it
    assert got[0] is y and got[1] is x and got[2] is None and got[3] == 3


def test_masked_gradients_of_a_convolution_backward_import():
    conv = torch.nn.Conv2d(3, 4, 3)
    graphs = _graphs(conv, torch.randn(2, 3, 8, 8), dynamic=False)
    gm, example = graphs["backward"]
    assert "convolution_backward" in gm.code
    want, got, _, _ = _run_both(gm, [torch.randn(e.shape) for e in example])
    _same(got, want)


def test_tensor_constants_are_lifted():
    class WithConstant(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", torch.arange(6.0), persistent=False)

        def forward(self, x):
            return x + self.table

    graph = torch.fx.symbolic_trace(WithConstant())
    for node in graph.graph.nodes:
        if node.op == "placeholder":
            node.meta["val"] = torch.empty(6)
        elif node.op == "get_attr":
            node.meta["val"] = torch.empty(6)
        elif node.op == "call_function":
            node.target = torch.ops.aten.add.Tensor
            node.meta["val"] = torch.empty(6)
    graph.graph.output_node().args = ((graph.graph.output_node().args[0],),)
    graph.recompile()
    ep, plan = exported_from_graph(graph)
    assert [s.kind.name for s in ep.graph_signature.input_specs] == [
        "CONSTANT_TENSOR",
        "USER_INPUT",
    ]
    x = torch.randn(6)
    compiled = aten_mlir.compile(import_program(ep, functional=True), cache=False)
    torch.testing.assert_close(
        plan.results([x], compiled(*plan.inputs([x])))[0], x + torch.arange(6.0)
    )


def test_a_float_input_is_refused_by_name():
    graph = torch.fx.Graph()
    p = graph.placeholder("scale")
    p.meta["val"] = 0.5
    graph.output((p,))
    with pytest.raises(GraphImportError, match="input 'scale' is a float"):
        exported_from_graph(torch.fx.GraphModule(torch.nn.Module(), graph))

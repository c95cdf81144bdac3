"""The FX graphs `torch.compile` hands a backend (AOTAutograd's forward, backward and inference
graphs) as `ExportedProgram`s, so they reach `compile()` through the same import as
`torch.export` programs: one pipeline for both entries (shared/DESIGN.md section 6).

What AOTAutograd's graphs have that an export's do not, and what becomes of it here:
- `SymInt` placeholders, dynamic sizes passed by value. Each becomes `aten.sym_size` arithmetic
  on a tensor input that has the symbol as one of its dims. A symbol no tensor carries gets a
  carrier input of its own, an empty `[s, 0]` tensor made per call: its descriptor holds `s` as
  an `index`, which the compiled code reads as it reads any size.
- Outputs that are not computed tensors: `SymInt`s saved for the backward (evaluated per call
  from the argument sizes), `None` gradients and constants, and inputs returned as they are (an
  identity the compiled code would copy).
- Tensor constants reached by `get_attr`: lifted to constant inputs, as export lifts them.
- No signature: every tensor placeholder is a user input (AOTAutograd lifted the parameters),
  every computed tensor output a user output.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import sympy
import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import (
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)
from torch.utils._sympy.functions import CleanDiv, FloorDiv, Max, Min, Mod, PowByNatural, PythonMod

from .locations import describe_node

# sympy's node types -> the operators FX records for SymInt arithmetic, which the importer's
# symbolic importers lower to `index` arithmetic
_SYMBOLIC_OPS = {
    sympy.Add: operator.add,
    sympy.Mul: operator.mul,
    FloorDiv: operator.floordiv,
    CleanDiv: operator.floordiv,  # a division known exact
    Mod: operator.mod,
    PythonMod: operator.mod,
    Max: torch.sym_max,
    Min: torch.sym_min,
}


class GraphImportError(NotImplementedError):
    """A graph construct this adapter cannot express (the backend runs that graph eagerly)."""


@dataclass(frozen=True)
class CallPlan:
    """How a boxed call's arguments become the compiled program's inputs, and its results the
    graph's outputs.

    `tensor_args`: positions of the arguments the program takes, in its input order;
    `carrier_args`: positions of `SymInt` arguments passed after them as `[s, 0]` carriers;
    `outputs`: per graph output, `("result", k)` the program's k-th result, `("argument", i)`
    the i-th argument itself, `("size", f)` with `f(args)` a symbolic size, `("constant", v)`.
    """

    tensor_args: tuple[int, ...]
    carrier_args: tuple[int, ...]
    outputs: tuple[tuple[str, object], ...]

    def inputs(self, args) -> list:
        carriers = [torch.empty((args[i], 0)) for i in self.carrier_args]
        return [args[i] for i in self.tensor_args] + carriers

    def results(self, args, results) -> list:
        if not isinstance(results, (tuple, list)):
            results = (results,)  # a program with one result returns it bare, as modules do
        out = []
        for kind, what in self.outputs:
            if kind == "result":
                out.append(results[what])
            elif kind == "argument":
                out.append(args[what])
            elif kind == "size":
                out.append(what(args))
            else:
                out.append(what)
        return out


def exported_from_graph(gm: torch.fx.GraphModule) -> tuple[ExportedProgram, CallPlan]:
    """`gm` (an AOTAutograd graph, flat inputs and a flat output tuple) as an ExportedProgram
    with a signature, and the plan that maps calls of `gm` onto calls of its compiled form."""
    graph = torch.fx.Graph()
    returned = graph.graph_copy(gm.graph, {})  # placeholders and meta carried over
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    position = {p: i for i, p in enumerate(placeholders)}
    sizes = _SizeSources(graph, placeholders)
    outputs, results = _plan_outputs(returned, position, sizes)
    carriers = sizes.lower_symint_placeholders()
    constants = _lift_tensor_constants(graph, gm)
    graph.output(tuple(results))
    tensors = [p for p in placeholders if isinstance(p.meta.get("val"), torch.Tensor)]
    specs = [InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(n), n) for n in constants]
    specs += [
        InputSpec(InputKind.USER_INPUT, TensorArgument(p.name), None)
        for p in tensors + [c for c, _ in carriers]
    ]
    out_specs = [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(r.name), None) for r in results]
    try:
        ep = _exported(graph, specs, out_specs, sizes.ranges(), constants)
    except Exception as e:  # torch's verifier: name the graph's problem in one line
        raise GraphImportError(f"the graph is not a valid exported program: {e}") from e
    plan = CallPlan(
        tensor_args=tuple(position[p] for p in tensors),
        carrier_args=tuple(position[p] for _, p in carriers),
        outputs=tuple(outputs),
    )
    return ep, plan


def _exported(graph, specs, out_specs, ranges, constants) -> ExportedProgram:
    return ExportedProgram(
        root=torch.nn.Module(),
        graph=graph,
        graph_signature=ExportGraphSignature(specs, out_specs),
        state_dict={},
        range_constraints=ranges,
        module_call_graph=[],
        example_inputs=None,
        constants=constants,
    )


def _plan_outputs(returned, position, sizes):
    """The plan's outputs and the nodes the program computes (each once)."""
    outputs, results, index = [], [], {}
    for value in returned if isinstance(returned, (tuple, list)) else (returned,):
        if not isinstance(value, torch.fx.Node):
            outputs.append(("constant", value))
            continue
        val = value.meta.get("val")
        if isinstance(val, torch.SymInt):
            outputs.append(("size", sizes.evaluator(val)))
        elif not isinstance(val, torch.Tensor):
            raise GraphImportError(
                f"output '{value.name}' is a {type(val).__name__}, at {describe_node(value)}"
            )
        elif value.op == "placeholder":
            outputs.append(("argument", position[value]))
        else:
            if value not in index:
                index[value] = len(results)
                results.append(value)
            outputs.append(("result", index[value]))
    return outputs, results


class _SizeSources:
    """Where each size can be read from: a dim of a tensor placeholder, or a `SymInt`
    placeholder (passed to the program as a carrier input)."""

    def __init__(self, graph: torch.fx.Graph, placeholders: list[torch.fx.Node]):
        self.graph, self.placeholders = graph, placeholders
        self.dims: dict[sympy.Symbol, tuple[int, int]] = {}  # symbol -> (argument, dim)
        self.scalars: dict[sympy.Expr, int] = {}  # size -> argument passing it by value
        self.shape_env = None
        for i, p in enumerate(placeholders):
            val = p.meta.get("val")
            if isinstance(val, torch.Tensor):
                self.shape_env = self.shape_env or _shape_env(val)
                for d, s in enumerate(val.shape):
                    if isinstance(s, torch.SymInt) and isinstance(s.node.expr, sympy.Symbol):
                        self.dims.setdefault(s.node.expr, (i, d))
            elif isinstance(val, torch.SymInt):
                self.scalars.setdefault(val.node.expr, i)
            else:
                raise GraphImportError(
                    f"input '{p.name}' is a {type(val).__name__} ({val}), at {describe_node(p)}"
                )

    def evaluator(self, val: torch.SymInt):
        """`f(args) -> int`: the value of the size `val` in a call with arguments `args`."""
        return _evaluator(val.node.expr, self._reader)

    def _reader(self, expr):
        if expr in self.scalars:
            i = self.scalars[expr]
            return lambda args: int(args[i])
        if expr in self.dims:
            i, d = self.dims[expr]
            return lambda args: args[i].shape[d]
        return None

    def lower_symint_placeholders(self) -> list[tuple[torch.fx.Node, torch.fx.Node]]:
        """Replaces every `SymInt` placeholder by size arithmetic on the tensor inputs' dims, or,
        for a size they do not determine, by the size of a carrier input made for it; returns
        the carriers as (carrier placeholder, the SymInt placeholder it stands for)."""
        graph = self.graph
        reads, carriers = {}, []
        last = self.placeholders[-1] if self.placeholders else None
        first = next((n for n in graph.nodes if n.op != "placeholder"), None)

        def read(source, d, val):
            with graph.inserting_before(first):
                node = graph.call_function(torch.ops.aten.sym_size.int, (source, d))
            node.meta["val"] = val
            return node

        for symbol, (i, d) in self.dims.items():
            reads[symbol] = read(self.placeholders[i], d, self.placeholders[i].meta["val"].shape[d])
        for p in self.placeholders:
            val = p.meta.get("val")
            if not isinstance(val, torch.SymInt):
                continue
            expr = val.node.expr
            if expr.free_symbols <= set(reads):
                with graph.inserting_before(first):
                    value = _size_nodes(graph, expr, reads, p)
            else:
                with graph.inserting_after(last):
                    carrier = graph.placeholder(f"{p.name}_size")
                with _fake_mode_of(self.placeholders):
                    carrier.meta["val"] = torch.empty((val, 0))
                carriers.append((carrier, p))
                last = carrier
                value = read(carrier, 0, val)
                if isinstance(expr, sympy.Symbol):
                    reads[expr] = value
            p.replace_all_uses_with(value) if isinstance(value, torch.fx.Node) else _inline(
                p, value
            )
            graph.erase_node(p)
        for node in reads.values():
            if not node.users:
                graph.erase_node(node)
        return carriers

    def ranges(self) -> dict:
        if self.shape_env is None:
            return {}
        known = self.shape_env.var_to_range
        symbols = set(self.dims).union(*(e.free_symbols for e in self.scalars))
        return {s: known[s] for s in symbols if s in known}


def _inline(placeholder: torch.fx.Node, value: int) -> None:
    """A SymInt placeholder whose size is a constant: its uses take the int."""
    for user in list(placeholder.users):
        user.args = torch.fx.node.map_arg(user.args, lambda a: value if a is placeholder else a)
        user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda a: value if a is placeholder else a)


def _size_nodes(graph, expr, reads, where):
    if isinstance(expr, sympy.Integer):
        return int(expr)
    if isinstance(expr, sympy.Symbol):
        return reads[expr]
    op, args = _operands(expr)
    if op is None:
        raise GraphImportError(f"size {expr} of '{where.name}' at {describe_node(where)}")
    terms = [_size_nodes(graph, a, reads, where) for a in args]
    value = terms[0]
    for term in terms[1:]:
        node = graph.call_function(op, (value, term))
        node.meta["val"] = op(_example(value), _example(term))  # the verifier wants every val
        value = node
    return value


def _operands(expr):
    """(the Python operator folding `expr`'s terms left to right, the terms); a power with a
    positive integer exponent as repeated products: `H * W` of a square image traced with
    dynamic sizes is `s**2` (a group norm's element count), which names one symbol twice."""
    if isinstance(expr, (sympy.Pow, PowByNatural)):
        base, exp = expr.args
        if exp.is_Integer and int(exp) >= 1:
            return operator.mul, [base] * int(exp)
        return None, ()
    return _SYMBOLIC_OPS.get(type(expr)), expr.args


def _example(x):
    return x.meta["val"] if isinstance(x, torch.fx.Node) else x


def _evaluator(expr, reader):
    if isinstance(expr, sympy.Integer):
        value = int(expr)
        return lambda args: value
    direct = reader(expr)
    if direct is not None:
        return direct
    op, args = _operands(expr)
    if op is None:
        raise GraphImportError(f"size {expr} cannot be evaluated from the graph's inputs")
    terms = [_evaluator(a, reader) for a in args]

    def evaluate(args):
        value = terms[0](args)
        for term in terms[1:]:
            value = op(value, term(args))
        return value

    return evaluate


def _lift_tensor_constants(graph: torch.fx.Graph, gm: torch.fx.GraphModule) -> dict:
    """`get_attr` tensors -> constant placeholders (before the inputs, as export orders them)."""
    constants = {}
    first = next(iter(graph.nodes), None)
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        value = _attr(gm, node.target)
        if not isinstance(value, torch.Tensor):
            raise GraphImportError(
                f"get_attr '{node.target}' is a {type(value).__name__}, at {describe_node(node)}"
            )
        name = f"c_{len(constants)}_{node.name}"
        with graph.inserting_before(first):
            lifted = graph.placeholder(name)
        lifted.meta.update(node.meta)
        node.replace_all_uses_with(lifted)
        graph.erase_node(node)
        constants[name] = value
    return constants


def _attr(gm, target: str):
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _shape_env(val):
    mode = getattr(val, "fake_mode", None)
    return getattr(mode, "shape_env", None)


def _fake_mode_of(placeholders):
    for p in placeholders:
        mode = getattr(p.meta.get("val"), "fake_mode", None)
        if mode is not None:
            return mode
    raise GraphImportError("a dynamic size without a fake tensor input to make its carrier")

"""`import_program`: a `torch.export.ExportedProgram` -> a `Program` whose `@main` holds aten ops.

Mirrors torch-mlir's FX importer, minus the Torch dialect: each ATen `OpOverload` node becomes the
`aten` op of the same name on builtin tensor types; parameters, buffers, lifted constants and user
inputs become `@main` arguments in graph-signature order.
"""

from __future__ import annotations

import functools
import logging
import operator
import warnings
from collections.abc import Collection

import torch
from mlir import ir
from mlir.dialects import func
from torch.export.graph_signature import InputKind

from aten_mlir.dialects import (
    AtenBuildError,
    AttributeEncodingError,
    UnsupportedDtypeError,
    build_aten,
    get_op_def,
    make_context,
    op_name_of_overload,
    tensor_type,
    verify_module,
)
from aten_mlir.dialects.dtypes import scalar_type_of
from aten_mlir.dialects.opaque import build_opaque_call, overload_name
from aten_mlir.dialects.opdefs import NAMESPACES

from .arguments import call_fields
from .in_place import out_of_place
from .index_checks import InProgramChecks, checked_before_call
from .locations import describe_node, node_location
from .masked_results import masked_result_vals
from .program import InputSpec, OutputSpec, Program, Signature
from .roles import INPUT_ROLE, OUTPUT_ROLE, argument_role, named_role, out_spec, user_output_name
from .symbolic import SYMBOLIC_IMPORTERS

log = logging.getLogger(__name__)

# Nodes that only assert facts export already checked; they carry no computation.
_DROPPED = {
    torch.ops.aten._assert_tensor_metadata.default,
    torch.ops.aten._assert_scalar.default,
    torch.ops.aten.sym_constrain_range_for_size.default,
    torch.ops.aten.sym_constrain_range.default,
    torch.ops.aten._assert_async.msg,
    torch.ops.aten._assert_async.default,
}
# In-place ops that only change autograd metadata: their value is their input. (Export leaves
# `lift_fresh_copy(constant).detach_()` for constants made in forward.)
_PASSED_THROUGH = {torch.ops.aten.detach_.default}
# What functionalization makes of an op whose schema mutates (a custom op with `mutates_args`).
_AUTO_FUNCTIONALIZED = {
    getattr(torch.ops.higher_order, name, None)
    for name in ("auto_functionalized", "auto_functionalized_v2")
} - {None}


class UnsupportedOpError(NotImplementedError):
    """An op or construct the aten dialect cannot express; names the op and the user's line."""


def import_program(
    ep: torch.export.ExportedProgram,
    *,
    decomposed_later: Collection[str] | None = None,
    functional: bool = False,
) -> Program:
    """Imports an exported program into a fresh context, as functional ATen with nothing
    decomposed: torch's `run_decompositions({})` first, unless the program is that already (no
    mutation, and every composite op it holds is named in `decomposed_later`, ops a later stage
    decomposes itself). That re-trace is most of an import's time (1 s of GPT-2 small's 1.1 s).

    `decomposed_later` defaults to what the decompose stage handles, so this is the program
    `compile(ep)` compiles; `()` always re-traces. `functional=True` says `ep` is functional
    ATen already (an AOTAutograd graph, `frontend/fx_graphs.py`): never re-traced."""
    if decomposed_later is None:
        decomposed_later = handled_by_decompose()
    _check_layouts(ep)
    if not functional and not _is_functional(ep, decomposed_later):
        try:
            with warnings.catch_warnings():
                # torch's own deprecation noise from deep-copying its module call graph.
                warnings.simplefilter("ignore", FutureWarning)
                ep = ep.run_decompositions({})
        except Exception as e:  # torch's own functionalization failed: say so in one line
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise UnsupportedOpError(
                f"import: torch's run_decompositions({{}}) failed: {first}"
            ) from e
    program = _Importer(ep).run()
    verify_module(program.module)  # the design's contract: every stage boundary is verified
    return program


@functools.cache
def handled_by_decompose() -> frozenset[str]:
    """The ops the decompose stage brings to the core set (or keeps). Read from the stage's table
    (a later stage: imported here, not at module level) because the fast path's legality is a
    fact about that table, and one definition keeps `import_program(ep)` and `compile(ep)` equal."""
    from aten_mlir.passes.decompose import DECOMPOSITIONS, target_set

    return frozenset(DECOMPOSITIONS) | target_set()


def _is_functional(ep, decomposed_later: Collection[str]) -> bool:
    """Whether `run_decompositions({})` would change nothing a later stage does not do itself:
    no mutation (but in-place ops on fresh temporaries, see `_out_of_place`), and every op one
    `decomposed_later` names (decomposed later, or already in the target set)."""
    if not decomposed_later:
        return False
    for node in ep.graph.nodes:
        target = node.target
        if node.op != "call_function" or target in _PASSED_THROUGH or target in _DROPPED:
            continue
        if target is operator.getitem or target in SYMBOLIC_IMPORTERS:
            continue
        if not isinstance(target, torch._ops.OpOverload):
            return False  # higher-order ops (grad modes, effects) need torch's re-trace
        if target.namespace not in NAMESPACES:
            if target._schema.is_mutable:
                return False  # torch's re-trace makes it `auto_functionalized`
            continue  # an opaque call (`_import_opaque`), as the re-trace would leave it
        if target._schema.is_mutable:
            target = out_of_place(node)
            if target is None:
                return False
        if op_name_of_overload(target) not in decomposed_later:
            # Left to torch: composite ops it decomposes, and ops it rewrites while
            # functionalizing though their schema says they mutate nothing (native_batch_norm in
            # training writes its running stats: torch makes it the _legit_functional variant).
            return False
    return True


def _check_layouts(ep) -> None:
    """Sparse (and other non-strided) tensors have no builtin tensor type; checked before
    run_decompositions, whose own failure on them names neither layout nor line."""
    for node in ep.graph.nodes:
        vals = node.meta.get("val")
        vals = vals if isinstance(vals, (list, tuple)) else [vals]
        for val in vals:
            if isinstance(val, torch.Tensor) and val.layout != torch.strided:
                what = f"input '{node.name}'" if node.op == "placeholder" else f"'{node.target}'"
                raise UnsupportedOpError(
                    f"import: {what} has layout {val.layout}; only dense (strided) tensors map "
                    f"to builtin tensor types, at {describe_node(node)}"
                )


def _type_of(val, node) -> ir.Type:
    if isinstance(val, (list, tuple)):
        return [_type_of(v, node) for v in val]
    if isinstance(val, torch.Tensor):
        try:
            return tensor_type(val.shape, val.dtype)
        except UnsupportedDtypeError as e:
            raise UnsupportedOpError(f"import: {e} at {describe_node(node)}") from None
    return scalar_type_of(val)


class _Importer:
    def __init__(self, ep: torch.export.ExportedProgram):
        self.ep = ep
        self.values: dict[torch.fx.Node, object] = {}  # ir.Value(s) or baked Python constants
        self.checks = InProgramChecks(self.values, checked_before_call(ep))

    def run(self) -> Program:
        ctx = make_context()
        with ctx, ir.Location.unknown():
            module = ir.Module.create()
            inputs, placeholders = self._input_specs()
            arg_types = [_type_of(p.meta["val"], p) for p in placeholders]
            out_node = next(n for n in self.ep.graph.nodes if n.op == "output")
            with ir.InsertionPoint(module.body):
                fn = func.FuncOp("main", ir.FunctionType.get(arg_types, []))
                block = fn.add_entry_block([ir.Location.name(p.name) for p in placeholders])
            for p, arg in zip(placeholders, block.arguments):
                self.values[p] = arg
            with ir.InsertionPoint(block):
                for node in self.ep.graph.nodes:
                    if node.op == "call_function":
                        self._import_call(node)
                    elif node.op == "get_attr":
                        raise UnsupportedOpError(
                            f"import: get_attr '{node.target}' (a submodule or unlifted attribute) "
                            f"at {describe_node(node)}"
                        )
                outputs, results, constant_outputs = self._outputs(out_node)
                flags = self.checks.result()
                if flags is not None:  # last: the runtime checks them before any write-back
                    outputs.append(OutputSpec("index_check", flags[1]))
                    results.append(flags[0])
                func.ReturnOp(results, loc=ir.Location.name("output"))
            _erase_unused_size_arithmetic(block)
            fn.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(arg_types, [r.type for r in results])
            )
            fn.arg_attrs = ir.ArrayAttr.get(
                [argument_role(s, p) for s, p in zip(inputs, placeholders)]
            )
            fn.res_attrs = ir.ArrayAttr.get([named_role(s.role, s.name) for s in outputs])
        state = {**self.ep.state_dict, **self.ep.constants}
        returned = sum(s.role == "user_output" for s in outputs) + len(constant_outputs)
        signature = Signature(
            inputs,
            outputs,
            constant_outputs,
            self.ep.call_spec.in_spec,
            out_spec(self.ep, returned),
            **call_fields(self.ep),
        )
        return Program(module, state, signature)

    def _input_specs(self):
        """Specs and placeholder nodes of the `@main` arguments; constant inputs are baked."""
        nodes = {n.name: n for n in self.ep.graph.nodes if n.op == "placeholder"}
        specs, placeholders = [], []
        for spec in self.ep.graph_signature.input_specs:
            node = nodes[spec.arg.name]
            if spec.kind is InputKind.USER_INPUT and not isinstance(
                node.meta.get("val"), torch.Tensor
            ):
                if isinstance(node.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool)):
                    raise UnsupportedOpError(
                        f"import: input '{node.name}' is a dynamic non-tensor argument (no "
                        f"single value to compile in); export it static, at {describe_node(node)}"
                    )
                # A non-tensor user input was specialised by export: bake its value (each call
                # is checked to pass the same one).
                self.values[node] = getattr(spec.arg, "value", node.meta.get("val"))
                continue
            role = INPUT_ROLE.get(spec.kind)
            if role is None:
                raise UnsupportedOpError(
                    f"import: input '{spec.arg.name}' of kind {spec.kind.name}"
                )
            specs.append(InputSpec(role, spec.target or spec.arg.name))
            placeholders.append(node)
        return specs, placeholders

    def _outputs(self, out_node):
        """User outputs first, then what the program writes back (mutated buffers/inputs)."""
        user, written, constants = [], [], {}
        for spec, arg in zip(self.ep.graph_signature.output_specs, out_node.args[0]):
            role = OUTPUT_ROLE.get(spec.kind)
            if role is None:
                raise UnsupportedOpError(f"import: output '{spec.arg}' of kind {spec.kind.name}")
            value = self.values[arg] if isinstance(arg, torch.fx.Node) else arg
            if role != "user_output":
                written.append((OutputSpec(role, spec.target), value))
            elif isinstance(value, ir.Value):
                user.append((OutputSpec(role, user_output_name(spec, arg)), value))
            else:
                constants[len(user) + len(constants)] = value
        pairs = user + written
        return [s for s, _ in pairs], [v for _, v in pairs], constants

    def _arg(self, a):
        if isinstance(a, torch.fx.Node):
            return self.values[a]
        if isinstance(a, (list, tuple)):
            return [self._arg(x) for x in a]
        return a

    def _kwargs(self, node: torch.fx.Node) -> dict:
        return {k: self._arg(v) for k, v in node.kwargs.items()}

    def _import_call(self, node: torch.fx.Node) -> None:
        target = node.target
        if target in _DROPPED:
            log.debug("import: dropped %s (%s)", node.name, target)
            return
        if target in _PASSED_THROUGH:
            self.values[node] = self._arg(node.args[0])
            return
        with node_location(node):
            if target is operator.getitem:
                self.values[node] = self._arg(node.args[0])[node.args[1]]
            elif target in SYMBOLIC_IMPORTERS:
                self.values[node] = SYMBOLIC_IMPORTERS[target](*self._arg(node.args))
            elif isinstance(target, torch._ops.OpOverload) and target.namespace in NAMESPACES:
                self.values[node] = self._import_aten(node)
                self.checks.after(node)
            elif isinstance(target, torch._ops.OpOverload):
                self.values[node] = self._import_opaque(node)
            elif target in _AUTO_FUNCTIONALIZED:
                raise UnsupportedOpError(
                    f"import: '{_target_name(node.args[0])}' mutates its arguments (a custom op "
                    f"with mutates_args); only functional custom ops run as eager steps, at "
                    f"{describe_node(node)}"
                )
            else:
                raise UnsupportedOpError(
                    f"import: '{_target_name(target)}' is not an ATen op the aten dialect can "
                    f"express, at {describe_node(node)}"
                )

    def _import_aten(self, node: torch.fx.Node):
        overload = node.target
        if overload._schema.is_mutable:
            overload = out_of_place(node) or overload
        op_name = op_name_of_overload(overload)
        opdef = get_op_def(op_name)
        if opdef is None or opdef.inexpressible:
            why = "is not in the aten registry" if opdef is None else f"has {opdef.inexpressible}"
            raise UnsupportedOpError(f"import: '{op_name}' {why}, at {describe_node(node)}")
        if node.target.namespace != "aten" and op_name not in handled_by_decompose():
            # Nothing lowers another namespace's op: only those decompose rewrites import.
            raise UnsupportedOpError(
                f"import: '{op_name}' has no decomposition into aten ops, at {describe_node(node)}"
            )
        val = node.meta.get("val")
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        if any(v is None for v in vals):
            vals = masked_result_vals(op_name, node, vals)
            if vals is None:
                raise UnsupportedOpError(
                    f"import: '{op_name}' returns None for a result, at {describe_node(node)}"
                )
            val = vals
        result_types = [_type_of(v, node) for v in vals] if opdef.results else []
        try:
            op = build_aten(
                op_name, *self._arg(node.args), results=result_types, **self._kwargs(node)
            )
        except (AtenBuildError, AttributeEncodingError, UnsupportedDtypeError) as e:
            raise UnsupportedOpError(
                f"import: '{op_name}': {e}, at {describe_node(node)}"
            ) from None
        return _regroup(list(op.results), val)

    def _import_opaque(self, node: torch.fx.Node):
        """An op of another namespace (`mylib::foo`, a user's `torch.library` op) as one
        `aten.opaque_call` the runtime calls eagerly; its result types are the node's FakeTensor
        values (see `dialects/opaque.py`)."""
        overload = node.target
        name = _target_name(overload)
        if overload._schema.is_mutable:
            raise UnsupportedOpError(
                f"import: '{name}' mutates its arguments; only functional ops of other namespaces "
                f"run as eager steps, at {describe_node(node)}"
            )
        val = node.meta.get("val")
        vals = (list(val) if isinstance(val, (list, tuple)) else [val]) if val is not None else []
        if len(vals) < len(overload._schema.returns) or any(v is None for v in vals):
            raise UnsupportedOpError(
                f"import: '{name}' has no example value for a result (no fake kernel?), at "
                f"{describe_node(node)}"
            )
        try:
            types = [_type_of(v, node) for v in vals]
            op = build_opaque_call(
                overload, self._arg(node.args), self._kwargs(node), results=types
            )
        except (AtenBuildError, AttributeEncodingError, UnsupportedDtypeError) as e:
            raise UnsupportedOpError(f"import: '{name}': {e}, at {describe_node(node)}") from None
        log.debug("import: '%s' runs eagerly (an op outside aten), %s", name, describe_node(node))
        return _regroup(list(op.results), val)


def _erase_unused_size_arithmetic(block: ir.Block) -> None:
    """The asserts we drop leave their `tensor.dim`/`arith` predicates unused; erase those
    (pure ops only, so nothing observable goes)."""
    for op in reversed(list(block.operations)):
        op = op.operation
        pure = op.name == "tensor.dim" or op.name.startswith("arith.")
        if pure and all(len(list(r.uses)) == 0 for r in op.results):
            op.erase()


def _regroup(results: list, val):
    """The node's value shaped like its example value: one result, or a (nested) list."""
    if not isinstance(val, (list, tuple)):
        return results[0] if results else None
    grouped, it = [], iter(results)
    for v in val:
        grouped.append([next(it) for _ in v] if isinstance(v, (list, tuple)) else next(it))
    return grouped


def _target_name(target) -> str:
    if isinstance(target, torch._ops.OpOverload):
        if target.namespace not in NAMESPACES:
            return overload_name(target)  # as torch spells it: `mylib::foo.default`
        return f"{target.namespace}.{target._schema.name.split('::')[-1]}.{target._overloadname}"
    return getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or str(target)

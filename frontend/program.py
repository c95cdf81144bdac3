"""`Program`: what travels between stages, as an `ExportedProgram` does (graph, state,
signature)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import torch
from mlir import ir

from aten_mlir.dialects import describe_location, make_context

# Argument / result attribute keys naming a role; the value is the fully qualified name.
INPUT_ROLES = ("parameter", "buffer", "constant", "user_input")
OUTPUT_ROLES = ("user_output", "mutated_buffer", "mutated_input", "index_check")


class IRParseError(ValueError):
    """Malformed IR text; the first line is MLIR's diagnostic with its file:line:col."""


@dataclass(frozen=True)
class InputSpec:
    role: str  # one of INPUT_ROLES
    name: str  # fully qualified parameter/buffer/constant name, or the user input's name


@dataclass(frozen=True)
class OutputSpec:
    role: str  # one of OUTPUT_ROLES
    # the output's FX name, the fully qualified name of what it writes back, or for the
    # `index_check` flags the JSON list of their messages (`frontend/index_checks.py`)
    name: str


@dataclass
class Signature:
    """Which `@main` argument is which, and which results are user outputs.

    `constant_outputs` maps a user-output position to a Python value the module returns that
    is not a tensor computed by the graph (`None`, an int...); `in_spec`/`out_spec` are the
    module's pytree specs when known.

    What a call must satisfy (`frontend/arguments.py`; empty when unknown, as for IR text):
    `arg_names` are the forward's argument names (positional ones, then keywords);
    `input_constants` maps a leaf of `in_spec` to the non-tensor value export specialised it to;
    `input_sizes` holds each user input's sizes as text (`"4"`, `"s0"`, `"2*s0 + 1"`);
    `size_ranges` maps a size expression to its inclusive `[low, high]` (`None`: unbounded);
    `shape_guards` are the tracer's guards in torch's source syntax (`L['x'].size()[0] != 7`);
    `index_bounds` lists `[input, size, wraps, op]` for each user input an indexing op reads as
    indices into a dim of `size` (text, as in `input_sizes`), negative ones valid if `wraps`.
    """

    inputs: list[InputSpec]
    outputs: list[OutputSpec]
    constant_outputs: dict[int, object] = field(default_factory=dict)
    in_spec: object = None
    out_spec: object = None
    arg_names: list[str] | None = None
    input_constants: dict[int, object] = field(default_factory=dict)
    input_sizes: list[list[str]] = field(default_factory=list)
    size_ranges: dict[str, list[int | None]] = field(default_factory=dict)
    shape_guards: list[str] = field(default_factory=list)
    index_bounds: list[list] = field(default_factory=list)

    @property
    def user_inputs(self) -> list[InputSpec]:
        return [s for s in self.inputs if s.role == "user_input"]

    @property
    def num_user_outputs(self) -> int:
        return sum(s.role == "user_output" for s in self.outputs) + len(self.constant_outputs)


@dataclass
class Program:
    """An MLIR module with a `func.func @main`, its state and its signature."""

    module: ir.Module
    state: dict[str, torch.Tensor]
    signature: Signature

    @property
    def context(self) -> ir.Context:
        return self.module.context

    @property
    def main(self) -> ir.Operation:
        for op in self.module.body.operations:
            if op.operation.name == "func.func" and op.attributes["sym_name"].value == "main":
                return op.operation
        raise ValueError("the module has no func.func @main")

    def __str__(self) -> str:
        return str(self.module)

    def text(self, debug_info: bool = False) -> str:
        return self.module.operation.get_asm(enable_debug_info=debug_info)

    def with_module(self, module: ir.Module) -> Program:
        """A new Program with the same state and signature around another module."""
        return Program(module, self.state, self.signature)

    @classmethod
    def from_text(cls, text: str, source_name: str = "<string>") -> Program:
        """Parses IR alone: no state, so every `@main` argument is a user input."""
        module = parse_module(text, source_name)
        prog = cls(module, {}, Signature([], []))
        fn = prog.main
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        prog.signature = Signature(
            [InputSpec("user_input", f"arg{i}") for i in range(len(ftype.inputs))],
            _output_specs(fn, len(ftype.results)),
            input_sizes=_recorded_sizes(fn, ftype),
        )
        return prog


def _recorded_sizes(fn: ir.Operation, ftype: ir.FunctionType) -> list[list[str]]:
    """Each argument's sizes as the import named them (`aten.sizes`), so that the call guards
    check the equal sizes the lowering relies on; a `?` not named gets a name of its own."""
    attrs = list(ir.ArrayAttr(fn.attributes["arg_attrs"])) if "arg_attrs" in fn.attributes else []
    named = [
        ir.DictAttr(a)["aten.sizes"] if "aten.sizes" in ir.DictAttr(a) else None for a in attrs
    ]
    if all(n is None for n in named):
        return []
    sizes = []
    for i, t in enumerate(ftype.inputs):
        if named[i] is not None:
            sizes.append([ir.StringAttr(s).value for s in ir.ArrayAttr(named[i])])
        elif isinstance(t, ir.RankedTensorType):
            shape = ir.RankedTensorType(t)
            sizes.append(
                [
                    f"arg{i}_{d}" if shape.is_dynamic_dim(d) else str(shape.get_dim_size(d))
                    for d in range(shape.rank)
                ]
            )
        else:
            sizes.append([])
    return sizes


def _output_specs(fn: ir.Operation, n: int) -> list[OutputSpec]:
    specs = [OutputSpec("user_output", f"result{i}") for i in range(n)]
    if "res_attrs" not in fn.attributes:
        return specs
    for i, d in enumerate(ir.ArrayAttr(fn.attributes["res_attrs"])):
        d = ir.DictAttr(d)
        for role in OUTPUT_ROLES:
            if f"aten.{role}" in d:
                specs[i] = OutputSpec(role, ir.StringAttr(d[f"aten.{role}"]).value)
    return specs


def parse_module(
    text: str, source_name: str = "<string>", context: ir.Context | None = None
) -> ir.Module:
    """Parses IR text in a fresh aten context; raises `IRParseError` with MLIR's diagnostic."""
    ctx = context or make_context()
    with ctx:
        try:
            try:
                op = ir.Operation.parse(text, source_name=source_name)
            except ir.MLIRError as e:
                if "single top-level operation" not in str(e):
                    raise
                # Several top-level ops: wrap them as mlir-opt does, keeping line numbers.
                op = ir.Operation.parse(_wrapped(text), source_name=source_name)
        except ir.MLIRError as e:
            diags = [f"{describe_location(d.location)}: {d.message}" for d in e.error_diagnostics]
            diags = diags or [str(e)]
            raise IRParseError(f"cannot parse IR: {diags[0]}") from None
        if op.operation.name != "builtin.module":
            # mlir-opt's convention: a lone top-level op is wrapped in a module.
            module = ir.Module.create(ir.Location.unknown())
            module.body.append(op.operation)
            return module
        return _as_module(op.operation)


_ALIAS = re.compile(r"^[#!][\w.$-]+\s*=.*$", re.MULTILINE)


def _wrapped(text: str) -> str:
    """`text` in a `module {...}`: attribute and type aliases (`#map = ...`), which only the top
    level may define, go before it on its first line, blank lines in their place."""
    aliases = _ALIAS.findall(text)
    body = _ALIAS.sub("", text)
    return " ".join(aliases) + " module {" + body + "\n}"


def _as_module(parsed: ir.Operation) -> ir.Module:
    """Moves a parsed `builtin.module` op into an `ir.Module` (only `Operation.parse` keeps the
    source name in locations, and only `ir.Module` is what users and `PassManager` expect)."""
    module = ir.Module.create(parsed.location)
    for name in parsed.attributes:
        module.operation.attributes[name] = parsed.attributes[name]
    for op in list(parsed.regions[0].blocks[0].operations):
        module.body.append(op)
    parsed.erase()
    return module

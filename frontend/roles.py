"""The roles of an exported program's inputs and outputs in a `Signature`, from export's
`InputKind`/`OutputKind`; joint forward-backward programs
(`torch.export.experimental._export_forward_backward`) included."""

from __future__ import annotations

import torch
from mlir import ir
from torch.export.graph_signature import InputKind, OutputKind

from .arguments import size_text

INPUT_ROLE = {
    InputKind.PARAMETER: "parameter",
    InputKind.BUFFER: "buffer",
    InputKind.CONSTANT_TENSOR: "constant",
    InputKind.USER_INPUT: "user_input",
}
OUTPUT_ROLE = {
    OutputKind.USER_OUTPUT: "user_output",
    OutputKind.BUFFER_MUTATION: "mutated_buffer",
    OutputKind.USER_INPUT_MUTATION: "mutated_input",
    # a joint graph: the loss and the gradients are what a call returns, in the graph's order
    OutputKind.LOSS_OUTPUT: "user_output",
    OutputKind.GRADIENT_TO_PARAMETER: "user_output",
    OutputKind.GRADIENT_TO_USER_INPUT: "user_output",
}
_GRADIENTS = (OutputKind.GRADIENT_TO_PARAMETER, OutputKind.GRADIENT_TO_USER_INPUT)


def user_output_name(spec, arg) -> str:
    """A returned value's name: its FX name, or `grad:<target>` for a gradient (which parameter
    or input it is the gradient of)."""
    if spec.kind in _GRADIENTS:
        return f"grad:{spec.target}"
    return getattr(spec.arg, "name", str(arg))


def out_spec(ep: torch.export.ExportedProgram, returned: int):
    """The pytree spec of a call's result: the module's, but a flat tuple of the `returned`
    values for a joint program (the module's spec covers the loss alone)."""
    kinds = {s.kind for s in ep.graph_signature.output_specs}
    if kinds & {OutputKind.LOSS_OUTPUT, *_GRADIENTS}:
        return torch.utils._pytree.tree_flatten(tuple(range(returned)))[1]
    return ep.call_spec.out_spec


def argument_role(spec, node: torch.fx.Node) -> ir.DictAttr:
    """The argument's role; a user input with symbolic sizes also names them as export does
    (`aten.sizes = ["s0", "3", "s1"]`): the call guards check that dims of one symbol are equal
    at every call, so the lowering may read them as one size (`aten-split-dynamic-expands`)."""
    val = node.meta.get("val")
    if spec.role != "user_input" or not isinstance(val, torch.Tensor):
        return named_role(spec.role, spec.name)
    if not any(isinstance(d, torch.SymInt) for d in val.shape):
        return named_role(spec.role, spec.name)
    sizes = ir.ArrayAttr.get([ir.StringAttr.get(size_text(d)) for d in val.shape])
    return ir.DictAttr.get({f"aten.{spec.role}": ir.StringAttr.get(spec.name), "aten.sizes": sizes})


def named_role(role: str, name: str) -> ir.DictAttr:
    """`{aten.<role> = "<name>"}`: an argument's or result's role attribute."""
    return ir.DictAttr.get({f"aten.{role}": ir.StringAttr.get(name)})

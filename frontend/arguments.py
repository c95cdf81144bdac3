"""What a call of the exported program must satisfy, read from the ExportedProgram: the forward's
argument names, the non-tensor arguments export specialised, each input's symbolic sizes and
their ranges, and the tracer's own shape guards. `ep.module()` checks the same facts
(`torch.export._unlift._get_input_guards_for_graph`); the runtime checks them per call
(`backends/guards.py`), so they are kept as plain data (text, ints) the cache can save.
"""

from __future__ import annotations

import math

import torch
from torch.export.graph_signature import InputKind

from .locations import describe_node


def call_fields(ep: torch.export.ExportedProgram) -> dict:
    """The `Signature` fields describing a call of `ep` (see `Signature`)."""
    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    user = [
        placeholders[s.arg.name]
        for s in ep.graph_signature.input_specs
        if s.kind is InputKind.USER_INPUT
    ]
    constants, sizes = {}, []
    for position, node in enumerate(user):
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            sizes.append([size_text(d) for d in val.shape])
        else:
            constants[position] = val
    call = ep.module_call_graph[0].signature if ep.module_call_graph else None
    names = getattr(call, "forward_arg_names", None)
    return {
        "arg_names": list(names) if names else None,
        "input_constants": constants,
        "input_sizes": sizes,
        "size_ranges": {
            str(expr): [_bound(r.lower), _bound(r.upper)]
            for expr, r in ep.range_constraints.items()
        },
        "shape_guards": list(getattr(ep, "_guards_code", None) or []),
        "index_bounds": _index_bounds(ep, user),
    }


# op -> (index argument, indexed argument, dim: an int or the name of its argument, negative
# indices wrap): the ops whose index tensor, when it is a user input, is checked before a call
_INDEXING = {
    "aten.embedding.default": (1, 0, 0, False),
    "aten.index_select.default": (2, 0, "dim", False),
    "aten.gather.default": (2, 0, "dim", False),
    "aten.scatter.src": (2, 0, "dim", False),
    "aten.scatter.value": (2, 0, "dim", False),
    "aten.scatter_add.default": (2, 0, "dim", False),
    "aten.scatter_reduce.two": (2, 0, "dim", False),
    "aten.index_add.default": (2, 0, "dim", False),
    "aten.index_copy.default": (2, 0, "dim", False),
    "aten.index_fill.int_Scalar": (2, 0, "dim", True),
}


def _index_bounds(ep: torch.export.ExportedProgram, user: list) -> list:
    """[index input, dim size as text, negative ones wrap, the op and where] per user input
    that an indexing op reads as indices: compiled code clamps every index into its buffer (no
    access outside it), so a bad one must be refused before the call, as eager refuses it."""
    position = {node: k for k, node in enumerate(user)}
    bounds = []
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        for index, source, dim, wraps in _indexed(node):
            val = getattr(source, "meta", {}).get("val")
            if index in position and isinstance(val, torch.Tensor) and val.dim():
                size = size_text(val.shape[dim % val.dim()])
                where = f"'{node.target}' at {describe_node(node)}"
                bounds.append([position[index], size, wraps, where])
    return bounds


def _indexed(node) -> list:
    """(index node, indexed node, dim, wraps) for each index tensor `node` reads."""
    name = str(node.target)
    args = list(node.args) + [None] * 4
    if name == "aten.index.Tensor":  # indices[k] indexes dim k
        return [(i, args[0], k, True) for k, i in enumerate(args[1] or []) if i is not None]
    if name not in _INDEXING:
        return []
    index, source, dim, wraps = _INDEXING[name]
    if isinstance(dim, str):
        dim = node.kwargs.get(dim, args[1])
    return [(args[index], args[source], dim, wraps)] if isinstance(dim, int) else []


def size_text(d) -> str:
    return str(d.node.expr) if isinstance(d, torch.SymInt) else str(int(d))


def _bound(v) -> int | None:
    """A range bound as an int; None for an infinite one (sympy's `int_oo`)."""
    try:
        return None if math.isinf(float(v)) else int(v)
    except (TypeError, ValueError, OverflowError):
        return None

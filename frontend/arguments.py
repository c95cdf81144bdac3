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

from .index_checks import pre_call_bounds, size_text


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
        "index_bounds": pre_call_bounds(ep, user),
    }


def _bound(v) -> int | None:
    """A range bound as an int; None for an infinite one (sympy's `int_oo`)."""
    try:
        return None if math.isinf(float(v)) else int(v)
    except (TypeError, ValueError, OverflowError):
        return None

"""`aten-drop-dead`: erases aten ops nothing uses.

Upstream DCE (`canonicalize`, `remove-dead-values`) never erases the aten ops: they are
unregistered, so MLIR must assume they have side effects. Their schemas say which do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
from mlir import ir

from aten_mlir.dialects import get_op_def

from ..registry import ModulePass, option, register_pass


def has_side_effects(op: ir.Operation, keep_random: bool = True) -> bool:
    """Whether erasing `op` could change what the program does even when its results are unused:
    it has no results, an unknown schema, mutates an argument or (with `keep_random`) advances the
    RNG, as torch.fx `Node.is_impure(impure_random=True)` decides for FX graphs."""
    opdef = get_op_def(op.name)
    if not op.results or opdef is None or opdef.inexpressible:
        return True
    if any(a.mutable for a in opdef.args):
        return True
    return keep_random and torch.Tag.nondeterministic_seeded in opdef.overload.tags


def _unused(op: ir.Operation) -> bool:
    return all(not list(r.uses) for r in op.results)


def _erasable_aten_ops(root: ir.Operation, keep_random: bool) -> list[ir.Operation]:
    """Aten ops without side effects, users (later ops) before their producers."""
    found: list[ir.Operation] = []

    def visit(op):
        op = op.operation
        if op.name.startswith("aten.") and not has_side_effects(op, keep_random):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.POST_ORDER)
    return found[::-1]


@register_pass
@dataclass(frozen=True)
class AtenDropDead(ModulePass):
    """Erases aten ops whose results are all unused, to a fixed point (side effects are kept)."""

    name: ClassVar[str] = "aten-drop-dead"
    keep_random: bool = option(True, "keep unused random ops: they advance the RNG, as in eager")

    def run(self, module_op: ir.Operation) -> None:
        # Reverse post-order visits users before producers wherever defs dominate uses, so one
        # sweep clears whole chains; graph regions (no dominance) may need another sweep.
        while True:
            erased = 0
            for op in _erasable_aten_ops(module_op, self.keep_random):
                if _unused(op):
                    op.erase()
                    erased += 1
            if not erased:
                return

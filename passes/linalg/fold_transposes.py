"""`aten-fold-transposes`: a `linalg.transpose` on tensors folds into the `linalg.generic` ops
that read it, as a permuted indexing map instead of a copy (fusion leaves them in front of
products, where the CPU micro-kernel and `tl.dot` want the operand read in place)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..ir import nested_ops
from ..registry import ModulePass, register_pass
from .generics import indexing_maps


@register_pass
@dataclass(frozen=True)
class FoldTransposes(ModulePass):
    """Folds linalg.transpose on tensors into the linalg.generic ops reading it (a permuted
    indexing map instead of a copy)."""

    name: ClassVar[str] = "aten-fold-transposes"

    def run(self, module_op: ir.Operation) -> None:
        transposes = [
            op
            for op in nested_ops(module_op)
            if op.name == "linalg.transpose" and isinstance(op.results[0].type, ir.RankedTensorType)
        ]
        with module_op.context:
            for op in transposes:
                _fold_transpose(op)


def _fold_transpose(op) -> None:
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    source = op.operands[0]
    for use in list(op.results[0].uses):
        user = use.owner
        user = getattr(user, "operation", user)
        n_inputs = len(user.operands) - len(user.results)
        if user.name != "linalg.generic" or use.operand_number >= n_inputs:
            continue
        maps = indexing_maps(user)
        m = maps[use.operand_number]
        results = list(m.results)
        # transposed[i] = source[perm[i]]: source dim perm[i] is read at the transposed index i
        new_results = [None] * len(results)
        for i, p in enumerate(perm):
            new_results[p] = results[i]
        maps[use.operand_number] = ir.AffineMap.get(m.n_dims, m.n_symbols, new_results)
        user.operands[use.operand_number] = source
        user.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(x) for x in maps])
    if not list(op.results[0].uses):
        op.erase()

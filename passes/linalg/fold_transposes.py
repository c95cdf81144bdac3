"""`aten-fold-transposes`: a `linalg.transpose` on tensors folds into the `linalg.generic` ops
that read it, as a permuted indexing map instead of a copy (fusion leaves them in front of
products, where the CPU micro-kernel and `tl.dot` want the operand read in place).

With dynamic dims, the size of a product's output is read off its operands (`tensor.dim`,
possibly through the `collapse_shape` of a batch folding): such a read of the transposed value
becomes a read of the source's dim, so the transpose is left unused and goes (a dynamic BERT
copied K transposed per layer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, tensor

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


def _constant_index(v: ir.Value) -> int | None:
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def _source_dim(user, at: int, source: ir.Value, perm: list[int]) -> None:
    """`user`, a `tensor.dim` of the transposed value's dim `at`: the source's dim instead."""
    with ir.InsertionPoint(user), user.location:
        index = arith.constant(ir.IndexType.get(), perm[at])
        user.results[0].replace_all_uses_with(tensor.dim(source, index))
    user.erase()


def _fold_dims(op, source: ir.Value, perm: list[int]) -> None:
    """The `tensor.dim` reads of `op`'s result, direct or of one uncollapsed dim of a
    `collapse_shape` of it, as reads of `source`'s dims."""
    for use in list(op.results[0].uses):
        user = getattr(use.owner, "operation", use.owner)
        if user.name == "tensor.dim" and use.operand_number == 0:
            at = _constant_index(user.operands[1])
            if at is not None:
                _source_dim(user, at, source, perm)
        elif user.name == "tensor.collapse_shape":
            groups = [
                [ir.IntegerAttr(i).value for i in g] for g in user.attributes["reassociation"]
            ]
            for inner in list(user.results[0].uses):
                dim = getattr(inner.owner, "operation", inner.owner)
                at = _constant_index(dim.operands[1]) if dim.name == "tensor.dim" else None
                if at is not None and len(groups[at]) == 1:
                    _source_dim(dim, groups[at][0], source, perm)
            if not list(user.results[0].uses):
                user.erase()


def _fold_transpose(op) -> None:
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    source = op.operands[0]
    _fold_dims(op, source, perm)
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

"""`aten-split-fresh-deallocs`: a `bufferization.dealloc` of distinct fresh buffers becomes one
`memref.dealloc` per buffer.

Ownership-based deallocation frees a function's buffers with one `bufferization.dealloc` of all
of them, and `buffer-deallocation-simplification` splits it only where it proves the buffers
distinct. A buffer a call returned (`aten-outline-repeated-blocks` makes a model's layers calls)
is not proven distinct from anything, so the whole op lowers to a runtime alias check over every
buffer (a helper with `memref<?xi1>` stores, which this LLVM's memref lowering does not even
accept). Here a call's results count as fresh when the callee returns distinct allocations of its
own that it does not free; with every buffer of the op fresh, distinct and unconditionally owned,
each is freed unless a retained value is a view of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, memref

from ..ir import defined_functions, nested_ops, view_root
from ..registry import ModulePass, register_pass


def _returns_fresh(function: ir.Operation) -> bool:
    """Every result is a distinct `memref.alloc` of the function that nothing in it frees."""
    blocks = function.regions[0].blocks
    if len(blocks) != 1:
        return False
    ops = list(nested_ops(function))
    returned = [op for op in ops if op.name == "func.return"]
    if len(returned) != 1:
        return False
    roots = [view_root(v) for v in returned[0].operands]
    for root in roots:
        if isinstance(root.owner, ir.Block) or root.owner.name != "memref.alloc":
            return False
    freed = {view_root(v) for op in ops for v in _freed(op)}
    return len(set(roots)) == len(roots) and not freed.intersection(roots)


def _freed(op: ir.Operation) -> list[ir.Value]:
    if op.name == "memref.dealloc":
        return [op.operands[0]]
    if op.name == "bufferization.dealloc":
        count = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0]
        return list(op.operands)[:count]
    return []


def _is_true(value: ir.Value) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    if isinstance(attr, ir.BoolAttr):
        return attr.value
    return isinstance(attr, ir.IntegerAttr) and attr.value != 0


def _fresh(root: ir.Value, fresh_callees: set[str]) -> bool:
    """An allocation, or a result of a call returning allocations."""
    owner = root.owner
    if isinstance(owner, ir.Block):
        return False
    if owner.name == "func.call":
        return ir.FlatSymbolRefAttr(owner.attributes["callee"]).value in fresh_callees
    return owner.name == "memref.alloc"


def _argument(value: ir.Value, op: ir.Operation) -> bool:
    """An argument of the function `op` is in (not of a block inside it)."""
    owner = value.owner
    if not isinstance(owner, ir.Block):
        return False
    function = op.parent
    while function.name != "func.func":
        function = function.parent
    return owner.owner == function


def _split(dealloc: ir.Operation, fresh_callees: set[str]) -> bool:
    sizes = ir.DenseI32ArrayAttr(dealloc.attributes["operandSegmentSizes"])
    n, _, kept = sizes[0], sizes[1], sizes[2]
    operands = list(dealloc.operands)
    memrefs, conditions, retained = operands[:n], operands[n : 2 * n], operands[2 * n :]
    if len(retained) != kept or not all(_is_true(c) for c in conditions):
        return False
    roots = [view_root(m) for m in memrefs]
    if not all(_fresh(r, fresh_callees) for r in roots) or len(set(roots)) != len(roots):
        return False
    kept_roots = [view_root(r) for r in retained]
    # a retained value must be known to be one of the buffers or none of them: another fresh
    # buffer or a function argument is none; an scf.if or a select may be any
    known = (r in roots or _fresh(r, fresh_callees) or _argument(r, dealloc) for r in kept_roots)
    if not all(known):
        return False
    with dealloc.context, dealloc.location, ir.InsertionPoint(dealloc):
        for m, root in zip(memrefs, roots):
            if root not in kept_roots:
                memref.dealloc(m)
        i1 = ir.IntegerType.get_signless(1)
        owned = [arith.constant(i1, int(r in roots)) for r in kept_roots]
    for result, value in zip(dealloc.results, owned):
        result.replace_all_uses_with(value)
    dealloc.erase()
    return True


@register_pass
@dataclass(frozen=True)
class AtenSplitFreshDeallocs(ModulePass):
    """bufferization.dealloc of distinct fresh buffers (allocations, results of calls returning
    allocations) -> one memref.dealloc per buffer."""

    name: ClassVar[str] = "aten-split-fresh-deallocs"

    def run(self, module_op: ir.Operation) -> None:
        functions = defined_functions(module_op)
        fresh = {
            ir.StringAttr(f.attributes["sym_name"]).value for f in functions if _returns_fresh(f)
        }
        for f in functions:
            for op in [op for op in nested_ops(f) if op.name == "bufferization.dealloc"]:
                _split(op, fresh)

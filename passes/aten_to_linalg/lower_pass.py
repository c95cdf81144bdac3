"""`convert-aten-to-linalg`: core aten ops -> linalg / tensor / arith / math.

The bindings have no dialect conversion, so this is the greedy driver over the lowering patterns
followed by a legality check that names every aten op left (torch-mlir's TorchToLinalg has the
same shape: patterns, then "failed to legalize"). With `allow-fallback` the ops left stay in the
IR; `compile()` then runs them with eager kernels between compiled segments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir import rewrite as mlir_rewrite

from aten_mlir.dialects import describe_location

from ..registry import ModulePass, PassFailure, option, register_pass
from .builder import has_storage_type, storage_type
from .registry import LOWERINGS, as_pattern


def aten_ops(root: ir.Operation) -> list[ir.Operation]:
    found = []

    def visit(op):
        if op.name.startswith("aten."):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def _cast(value: ir.Value, to: ir.Type) -> ir.Value:
    return ir.Operation.create(
        "builtin.unrealized_conversion_cast", results=[to], operands=[value]
    ).result


def store_boundaries(fn: ir.Operation) -> None:
    """Bool and unsigned tensor arguments and results of `fn` become signless int tensors (the
    same bytes), cast back at the entry and before returning, so that no memref of i1 is ever
    stored and arith only ever sees signless ints."""
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    if not fn.regions[0].blocks:
        return
    entry = fn.regions[0].blocks[0]
    inputs = list(ftype.inputs)
    for i, arg in enumerate(entry.arguments):
        if has_storage_type(arg.type):
            bool_type, inputs[i] = arg.type, storage_type(arg.type)
            arg.set_type(inputs[i])
            with fn.location, ir.InsertionPoint.at_block_begin(entry):
                cast = _cast(arg, bool_type)
            arg.replace_all_uses_except(cast, cast.owner.operation)
    results = list(ftype.results)
    for block in fn.regions[0].blocks:
        term = block.operations[len(block.operations) - 1].operation
        if term.name != "func.return":
            continue
        for i, v in enumerate(term.operands):
            if has_storage_type(v.type):
                results[i] = storage_type(v.type)
                with term.location, ir.InsertionPoint(term):
                    term.operands[i] = _cast(v, results[i])
    with fn.context:
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))


def _sizes_from_storage(root: ir.Operation) -> None:
    """`tensor.dim` of a bool tensor reads the i8 tensor it is stored as, so that the i1 view
    (a cast) is not kept alive, nor carried into compiled code, just for its sizes."""

    def visit(op):
        op = op.operation
        if op.name == "tensor.dim":
            owner = op.operands[0].owner
            owner = getattr(owner, "operation", owner)
            if (
                isinstance(owner, ir.Operation)
                and owner.name == "builtin.unrealized_conversion_cast"
                and len(owner.operands) == 1
                and isinstance(owner.operands[0].type, ir.RankedTensorType)
            ):
                op.operands[0] = owner.operands[0]
        return ir.WalkResult.ADVANCE

    root.walk(visit)


@register_pass
@dataclass(frozen=True)
class ConvertAtenToLinalg(ModulePass):
    """Lowers core aten ops to linalg, tensor, arith and math; fails on any aten op left."""

    name: ClassVar[str] = "convert-aten-to-linalg"
    allow_fallback: bool = option(False, "leave ops without a lowering (for eager fallback)")
    no_complex: bool = option(False, "leave ops on complex values (a target without them)")

    def run(self, module_op: ir.Operation) -> None:
        for fn in module_op.regions[0].blocks[0].operations:
            if fn.operation.name == "func.func":
                store_boundaries(fn.operation)
        errors = []
        patterns = mlir_rewrite.RewritePatternSet(module_op.context)
        for op_name, rule in LOWERINGS.items():
            patterns.add(op_name, as_pattern(rule, errors, complex_ok=not self.no_complex))
        with module_op.context:
            mlir_rewrite.apply_patterns_and_fold_greedily(module_op, patterns.freeze())
        _sizes_from_storage(module_op)
        seen = {}
        for e in errors:
            seen.setdefault(str(e), e)
        for e in seen.values():
            e.op.location.emit_error(f"'{e.op.name}' op {e}")
        left = [] if self.allow_fallback else aten_ops(module_op)
        for op in left:
            why = "no lowering rule" if op.name not in LOWERINGS else "the rule does not apply"
            op.location.emit_error(f"'{op.name}' op failed to lower to linalg: {why}")
        if seen or left:
            first = next(iter(seen.values())).op if seen else left[0]
            raise PassFailure(
                f"{self.name}: {describe_location(first.location)}: '{first.name}' not lowered"
            )

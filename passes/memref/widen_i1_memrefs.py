"""`aten-widen-i1-memrefs`: memrefs of i1 become memrefs of i8 (one byte per flag).

`bufferization-lower-deallocations` emits `dealloc_helper`, a runtime alias check that stores
its flags into `memref<?xi1>`; this LLVM's `finalize-memref-to-llvm` asserts
`integralElementType.getWidth() >= 8` on such stores and aborts the process. Every value of an
i1 memref type is retyped to i8 in place (allocations, casts, views, function arguments and
signatures); a store widens its value with `arith.extui`, a load narrows its result with
`arith.trunci`. Nothing else reads these buffers' bytes, so the program is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from ..ir import walked_ops
from ..registry import ModulePass, register_pass


def _is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def _widened(t: ir.Type) -> ir.Type | None:
    """`t` with i8 elements when it is a memref of i1, else None."""
    if isinstance(t, ir.MemRefType) and _is_i1(ir.MemRefType(t).element_type):
        m = ir.MemRefType(t)
        return ir.MemRefType.get(m.shape, ir.IntegerType.get_signless(8), m.layout, m.memory_space)
    if isinstance(t, ir.UnrankedMemRefType) and _is_i1(ir.UnrankedMemRefType(t).element_type):
        u = ir.UnrankedMemRefType(t)
        return ir.UnrankedMemRefType.get(ir.IntegerType.get_signless(8), u.memory_space)
    return None


def _retype(v: ir.Value) -> None:
    wide = _widened(v.type)
    if wide is not None:
        v.set_type(wide)


def _retype_function(fn: ir.Operation) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    inputs = [_widened(t) or t for t in ftype.inputs]
    results = [_widened(t) or t for t in ftype.results]
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    for region in fn.regions:
        for block in region.blocks:
            for arg in block.arguments:
                _retype(arg)


def _widen_access(op: ir.Operation) -> None:
    """A store of an i1 into a (now i8) memref stores its zero extension; a load of one reads
    the byte and truncates it."""
    i8 = ir.IntegerType.get_signless(8)
    if op.name == "memref.store" and _is_i1(op.operands[0].type):
        with ir.InsertionPoint(op), op.location:
            op.operands[0] = arith.extui(i8, op.operands[0])
    elif op.name == "memref.load" and _is_i1(op.results[0].type):
        result = op.results[0]
        uses = [(u.owner, u.operand_number) for u in result.uses]
        result.set_type(i8)
        with ir.InsertionPoint.after(op), op.location:
            narrow = arith.trunci(ir.IntegerType.get_signless(1), result)
        for owner, number in uses:
            owner.operands[number] = narrow


@register_pass
@dataclass(frozen=True)
class WidenI1Memrefs(ModulePass):
    """Retypes memrefs of i1 as memrefs of i8 (extui on store, trunci on load): this LLVM's
    memref lowering aborts on sub-byte element stores."""

    name: ClassVar[str] = "aten-widen-i1-memrefs"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context, ir.Location.unknown():
            self._widen(module_op)

    def _widen(self, module_op: ir.Operation) -> None:
        ops = walked_ops(module_op)
        accesses = [
            op
            for op in ops
            if (op.name == "memref.store" and _widened(op.operands[1].type) is not None)
            or (op.name == "memref.load" and _widened(op.operands[0].type) is not None)
        ]
        for op in ops:
            if op.name == "func.func":
                _retype_function(op)
            for r in op.results:
                _retype(r)
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.arguments:
                        _retype(arg)
        for op in accesses:
            _widen_access(op)

"""`cpu-accurate-math`: math ops whose LLVM lowering loses precision become libm calls.

`convert-math-to-llvm` expands `math.expm1` to `exp(x) - 1` (and, by default, `math.log1p` to
`log(1 + x)`), which is 0 for x = 1e-10 in float32; eager calls libm's expm1/log1p. This pass
runs before it and calls libm for those ops; the LLVM stage passes `approximate-log1p=false`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func

from aten_mlir.passes.registry import ModulePass, register_pass

LIBM = {"math.expm1": "expm1", "math.log1p": "log1p"}


@register_pass
@dataclass(frozen=True)
class AccurateMath(ModulePass):
    """Replaces math.expm1 / math.log1p on f32/f64 scalars with calls to libm."""

    name: ClassVar[str] = "cpu-accurate-math"

    def run(self, module_op: ir.Operation) -> None:
        found = []

        def visit(op):
            op = op.operation
            if op.name in LIBM and isinstance(op.results[0].type, (ir.F32Type, ir.F64Type)):
                found.append(op)
            return ir.WalkResult.ADVANCE

        module_op.walk(visit)
        if not found:
            return
        body = module_op.regions[0].blocks[0]
        declared = {
            ir.StringAttr(o.operation.attributes["sym_name"]).value
            for o in body.operations
            if o.operation.name == "func.func"
        }
        for op in found:
            t = op.results[0].type
            name = LIBM[op.name] + ("f" if isinstance(t, ir.F32Type) else "")
            if name not in declared:
                with op.context, ir.Location.unknown(), ir.InsertionPoint.at_block_begin(body):
                    func.FuncOp(name, ir.FunctionType.get([t], [t]), visibility="private")
                declared.add(name)
            with op.location, ir.InsertionPoint(op):
                call = func.CallOp([t], name, [op.operands[0]])
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()

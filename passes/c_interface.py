"""`aten-emit-c-interface`: marks every function for a C-callable wrapper before LLVM lowering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from .registry import ModulePass, register_pass


@register_pass
@dataclass(frozen=True)
class EmitCInterface(ModulePass):
    """Sets `llvm.emit_c_interface` on every func.func (the native runtime calls the wrappers)."""

    name: ClassVar[str] = "aten-emit-c-interface"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for op in module_op.regions[0].blocks[0].operations:
                if op.operation.name == "func.func":
                    op.operation.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()

"""`cpu-emit-c-interface`: marks every public function for a C-callable wrapper before LLVM
lowering (private ones, such as outlined loop nests, are only called from inside the module)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.passes.registry import ModulePass, register_pass


@register_pass
@dataclass(frozen=True)
class EmitCInterface(ModulePass):
    """Sets `llvm.emit_c_interface` on every public func.func (the native runtime calls the
    wrappers)."""

    name: ClassVar[str] = "cpu-emit-c-interface"

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            for op in module_op.regions[0].blocks[0].operations:
                op = op.operation
                if op.name == "func.func" and not _is_private(op):
                    op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def _is_private(op: ir.Operation) -> bool:
    attrs = op.attributes
    return "sym_visibility" in attrs and ir.StringAttr(attrs["sym_visibility"]).value == "private"

"""`aten-check-expand-groups`: runs before `expand-strided-metadata` and turns an
`expand_shape` group with more than one dynamic size that is still left (after
`aten-split-dynamic-expands` on tensors and `aten-expands-as-casts` on memrefs) into a
diagnostic at the op's location, instead of upstream's abort ("There must be at most one dynamic
size per group")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..ir import walked_ops
from ..linalg.dynamic_expands import multi_dynamic
from ..registry import ModulePass, PassFailure, register_pass


@register_pass
@dataclass(frozen=True)
class CheckExpandGroups(ModulePass):
    """Fails, at the op's location, on an expand_shape group with two dynamic sizes
    (`expand-strided-metadata` would abort on it)."""

    name: ClassVar[str] = "aten-check-expand-groups"

    def run(self, module_op: ir.Operation) -> None:
        bad = [
            op
            for op in walked_ops(module_op)
            if op.name in ("memref.expand_shape", "tensor.expand_shape") and multi_dynamic(op)
        ]
        for op in bad:
            op.location.emit_error(
                f"'{op.name}' op has a reassociation group with more than one dynamic size, "
                "which expand-strided-metadata cannot lower"
            )
        if bad:
            raise PassFailure(
                f"{self.name}: {len(bad)} expand_shape ops with several dynamic sizes in a group"
            )

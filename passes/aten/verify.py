"""`aten-verify`: the aten dialect verifier as a pass, one error diagnostic per problem."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from aten_mlir.dialects import describe_location, get_op_def, verify_aten_ops

from ..registry import ModulePass, PassFailure, PassOptionError, option, register_pass

TARGETS = ("all", "core")


@register_pass
@dataclass(frozen=True)
class AtenVerify(ModulePass):
    """Checks every aten op against its PyTorch schema; with target=core, also the core opset."""

    name: ClassVar[str] = "aten-verify"
    target: str = option("all", "ops allowed: 'all' (any aten op) or 'core' (torch.Tag.core)")
    allow: tuple[str, ...] = option((), "aten ops accepted outside the target set")

    def __post_init__(self):
        if self.target not in TARGETS:
            raise PassOptionError(
                f"{self.name}: option 'target' must be one of {', '.join(TARGETS)}, "
                f"got '{self.target}'"
            )

    def run(self, module_op: ir.Operation) -> None:
        problems = [(d.op, d.message) for d in verify_aten_ops(module_op)]
        if self.target == "core":
            problems += [
                (op, "is not in the core ATen opset") for op in self._outside_core(module_op)
            ]
        for op, message in problems:
            op.location.emit_error(f"'{op.name}' op {message}")
        if problems:
            op, message = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise PassFailure(f"{describe_location(op.location)}: '{op.name}' op {message}{more}")

    def _outside_core(self, root: ir.Operation) -> list[ir.Operation]:
        """Well-defined aten ops outside the core target set (the same set `aten-check-target`
        uses) and not allowed; unknown ops are already reported by the verifier."""
        from ..decompose import ops_outside, target_set

        return [
            op
            for op in ops_outside(root, target_set(self.allow))
            if (opdef := get_op_def(op.name)) is not None and not opdef.inexpressible
        ]

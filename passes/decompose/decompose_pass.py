"""`aten-decompose` (any aten program -> the target op set) and `aten-check-target`.

The target set is a parameter, as `torch._decomp.get_decompositions` makes it one: by default the
overloads tagged `torch.Tag.core` plus `DEFAULT_KEPT` (ops kept whole on purpose, each with its
reason); `keep=` adds ops a backend wants whole, `only=` restricts decomposing to the ops named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir import rewrite as mlir_rewrite

from aten_mlir.dialects import core_op_names, describe_location, is_dialect_op
from aten_mlir.dialects.opaque import OPAQUE_CALL

from ..registry import ModulePass, PassFailure, option, register_pass
from .registry import DECOMPOSITIONS, KEPT_WHOLE, DecompositionError, as_pattern

# Non-core ops the default target set keeps, with why (the core-opset discussion's findings).
DEFAULT_KEPT = {
    "aten.var_mean.correction": "one pass over the data; torch's table splits it into two",
    # sqrt(var) in the accumulator: var of f32/bf16 values near 1e30 overflows its dtype where
    # std does not (ATen takes the root in double)
    "aten.std.correction": "the square root taken before rounding, as ATen's kernel does",
    "aten.std_mean.correction": "the square root taken before rounding, as ATen's kernel does",
}


def target_set(keep: tuple[str, ...] = ()) -> frozenset[str]:
    """Op names a program may hold after decomposing: core, `DEFAULT_KEPT`, and `keep`."""
    return core_op_names() | frozenset(DEFAULT_KEPT) | frozenset(keep)


def _check_names(pass_name: str, names: tuple[str, ...]) -> None:
    from aten_mlir.dialects import get_op_def

    from ..registry import PassOptionError

    bad = [n for n in names if get_op_def(n) is None]
    if bad:
        raise PassOptionError(f"{pass_name}: not aten ops: {', '.join(bad)}")


@register_pass
@dataclass(frozen=True)
class AtenDecompose(ModulePass):
    """Rewrites aten ops outside the target set (core by default) with the decomposition table."""

    name: ClassVar[str] = "aten-decompose"
    keep: tuple[str, ...] = option((), "ops to keep whole, added to the target set")
    only: tuple[str, ...] = option((), "decompose only these ops (default: all outside the set)")

    def __post_init__(self):
        _check_names(self.name, self.keep + self.only)

    def patterns(self, context: ir.Context, errors: list) -> mlir_rewrite.FrozenRewritePatternSet:
        targets = target_set(self.keep)
        patterns = mlir_rewrite.RewritePatternSet(context)
        for op_name, decomposition in DECOMPOSITIONS.items():
            if op_name not in targets and (not self.only or op_name in self.only):
                patterns.add(op_name, as_pattern(decomposition, errors))
        return patterns.freeze()

    def run(self, module_op: ir.Operation) -> None:
        errors: list[DecompositionError] = []
        patterns = self.patterns(module_op.context, errors)
        with module_op.context:
            mlir_rewrite.apply_patterns_and_fold_greedily(module_op, patterns)
        if errors:
            seen = {}
            for e in errors:
                seen.setdefault(str(e), e)
            for e in seen.values():
                e.op.location.emit_error(f"'{e.op.name}' op {e}")
            first = next(iter(seen.values()))
            raise PassFailure(
                f"{self.name}: {describe_location(first.op.location)}: '{first.op.name}' {first}"
            )


def ops_outside(root: ir.Operation, targets: frozenset[str]) -> list[ir.Operation]:
    """Every op of the dialect (aten, prims, quantized_decomposed) under `root` whose name is
    not in `targets`."""
    found = []

    def visit(op):
        op = op.operation
        if is_dialect_op(op.name) and op.name not in targets:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


@register_pass
@dataclass(frozen=True)
class AtenCheckTarget(ModulePass):
    """Fails with one diagnostic per aten op outside the target set (with its location)."""

    name: ClassVar[str] = "aten-check-target"
    set: str = option("core", "the target set: 'core' (torch.Tag.core plus the kept ops)")
    keep: tuple[str, ...] = option((), "ops accepted in addition to the set")
    allow_kept_whole: bool = option(False, "also accept the ops no decomposition exists for")

    def __post_init__(self):
        from ..registry import PassOptionError

        if self.set != "core":
            raise PassOptionError(f"{self.name}: option 'set' must be 'core', got '{self.set}'")
        _check_names(self.name, self.keep)

    def run(self, module_op: ir.Operation) -> None:
        # an opaque call (a custom op) has no decomposition by definition: it runs eagerly
        kept = (*KEPT_WHOLE, OPAQUE_CALL) if self.allow_kept_whole else ()
        accepted = self.keep + kept
        outside = ops_outside(module_op, target_set(accepted))
        for op in outside:
            why = f" (kept whole: {KEPT_WHOLE[op.name]})" if op.name in KEPT_WHOLE else ""
            op.location.emit_error(f"'{op.name}' op is outside the target set '{self.set}'{why}")
        if outside:
            names = sorted({op.name for op in outside})
            raise PassFailure(
                f"{self.name}: {len(outside)} ops outside the target set '{self.set}': "
                + ", ".join(names)
            )

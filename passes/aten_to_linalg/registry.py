"""The lowering table: one rule per core aten overload, building linalg/tensor/arith/math ops.

`@register_lowering("aten.exp")` above a rule `fn(op, rewriter) -> values | None`; families share
one parameterised rule (`register_lowering("aten.exp", partial(unary_float, math.exp))`), and the
summary line (`aten.exp -> linalg.generic(math.exp)`) is then given explicitly. `rewriter` is a
`LoweringRewriter` (see builder.py). Returning None leaves the op for the eager fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from ..rules import Rule, RuleError, add_rule
from ..rules import as_pattern as _as_pattern

LOWERINGS: dict[str, Rule] = {}


def register_lowering(op_name: str, fn: Callable | None = None, *, summary: str | None = None):
    """Registers the lowering rule of `op_name`: as a decorator, or with `fn` (a shared,
    parameterised rule) and its `summary` (`op -> target ops`)."""
    if fn is not None:
        return add_rule(LOWERINGS, "lowering", op_name, fn, summary)
    return lambda f: add_rule(LOWERINGS, "lowering", op_name, f, summary)


def _has_complex(op) -> bool:
    for v in (*op.operands, *op.results):
        t = v.type
        if isinstance(t, ir.ShapedType) and isinstance(t.element_type, ir.ComplexType):
            return True
    return False


def as_pattern(rule: Rule, errors: list[RuleError]):
    """The pattern of one lowering; ops on complex values are never lowered (there is no
    complex arithmetic below linalg here, and the native ABI has no complex memrefs), so they
    stay for the eager fallback whatever the rule would do."""
    from .builder import LoweringRewriter

    def guarded(op, rw):
        return None if _has_complex(op) else rule.fn(op, rw)

    guarded.__name__ = getattr(rule.fn, "__name__", None) or getattr(rule.fn.func, "__name__", "?")
    return _as_pattern(
        Rule(rule.op_name, guarded, rule.summary), errors, LoweringRewriter, "lowering"
    )

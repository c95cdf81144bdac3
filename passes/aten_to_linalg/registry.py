"""The lowering table: one rule per core aten overload, building linalg/tensor/arith/math ops.

`@register_lowering("aten.exp")` above a rule `fn(op, rewriter) -> values | None`; families share
one parameterised rule (`register_lowering("aten.exp", partial(unary_float, math.exp))`), and the
summary line (`aten.exp -> linalg.generic(math.exp)`) is then given explicitly. `rewriter` is a
`LoweringRewriter` (see builder.py). Returning None leaves the op for the eager fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from ..rules import Rule, RuleError, add_rule
from ..rules import as_pattern as _as_pattern

LOWERINGS: dict[str, Rule] = {}


def register_lowering(op_name: str, fn: Callable | None = None, *, summary: str | None = None):
    """Registers the lowering rule of `op_name`: as a decorator, or with `fn` (a shared,
    parameterised rule) and its `summary` (`op -> target ops`)."""
    if fn is not None:
        return add_rule(LOWERINGS, "lowering", op_name, fn, summary)
    return lambda f: add_rule(LOWERINGS, "lowering", op_name, f, summary)


def as_pattern(rule: Rule, errors: list[RuleError]):
    from .builder import LoweringRewriter

    return _as_pattern(rule, errors, LoweringRewriter, "lowering")

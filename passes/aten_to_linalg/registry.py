"""The lowering table: one rule per core aten overload, building linalg/tensor/arith/math ops.

`@register_lowering("aten.exp")` above a rule `fn(op, rewriter) -> values | None`; families share
one parameterised rule (`register_lowering("aten.exp", partial(unary_float, math.exp))`), and the
summary line (`aten.exp -> linalg.generic(math.exp)`) is then given explicitly. `rewriter` is a
`LoweringRewriter` (see builder.py). Returning None leaves the op for the eager fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from aten_mlir.registry import Registry

from ..rules import Rule, RuleError, add_rule
from ..rules import as_pattern as _as_pattern

LOWERINGS: Registry[Rule] = Registry("lowering")


# Ops whose rules handle unsigned-int / complex operands; every other rule never sees them
# (the op stays for the eager fallback), so a rule written for signed ints and real floats
# cannot silently compute wrong answers on other element types.
UNSIGNED_OK: set[str] = set()
COMPLEX_OK: set[str] = set()


def register_lowering(
    op_name: str,
    fn: Callable | None = None,
    *,
    summary: str | None = None,
    unsigned: bool = False,
    complex: bool = False,
):
    """Registers the lowering rule of `op_name`: as a decorator, or with `fn` (a shared,
    parameterised rule) and its `summary` (`op -> target ops`). `unsigned` / `complex` say the
    rule handles those element types (see `UNSIGNED_OK`)."""
    if unsigned:
        UNSIGNED_OK.add(op_name)
    if complex:
        COMPLEX_OK.add(op_name)
    if fn is not None:
        return add_rule(LOWERINGS, "lowering", op_name, fn, summary)
    return lambda f: add_rule(LOWERINGS, "lowering", op_name, f, summary)


def _element_kinds(op) -> set[str]:
    kinds = set()
    for v in (*op.operands, *op.results):
        t = v.type
        if not isinstance(t, ir.ShapedType):
            continue
        e = t.element_type
        if isinstance(e, ir.ComplexType):
            kinds.add("complex")
        elif isinstance(e, ir.IntegerType) and ir.IntegerType(e).is_unsigned:
            kinds.add("unsigned")
    return kinds


def as_pattern(rule: Rule, errors: list[RuleError], complex_ok: bool = True):
    """The pattern of one lowering; ops on complex or unsigned values reach only the rules
    registered as handling them (the others stay for the eager fallback); `complex_ok=False`
    leaves every op on complex values (a target with no complex numbers)."""
    from .builder import LoweringRewriter

    name = rule.op_name

    def guarded(op, rw):
        kinds = _element_kinds(op)
        if ("complex" in kinds and (name not in COMPLEX_OK or not complex_ok)) or (
            "unsigned" in kinds and name not in UNSIGNED_OK
        ):
            return None
        return rule.fn(op, rw)

    guarded.__name__ = getattr(rule.fn, "__name__", None) or getattr(rule.fn.func, "__name__", "?")
    return _as_pattern(
        Rule(rule.op_name, guarded, rule.summary), errors, LoweringRewriter, "lowering"
    )

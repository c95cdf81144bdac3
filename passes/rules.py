"""One mechanism for the rule tables keyed by aten op name (decompositions, lowerings).

A rule is `fn(op, rewriter) -> replacement values | None`, registered by a one-line decorator
right above it; None means "not applicable" (a precondition failed). Rules run as upstream
`mlir.rewrite` patterns, whose callbacks read a returned true value as *no match*: that inverted
convention is wrapped once, in `as_pattern`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir
from mlir import rewrite as mlir_rewrite

from aten_mlir.dialects import get_op_def
from aten_mlir.registry import Registry, owner_of


@dataclass(frozen=True)
class Rule:
    op_name: str  # `aten.silu`
    fn: Callable
    summary: str  # the docstring's first line: `aten.silu -> aten.sigmoid, aten.mul.Tensor`


class RuleError(RuntimeError):
    """A rule raised, or returned values that cannot replace the op."""

    def __init__(self, op: ir.Operation, message: str):
        self.op = op
        super().__init__(message)


def rule_summary(fn: Callable) -> str:
    doc = getattr(fn, "__doc__", None) or getattr(getattr(fn, "func", None), "__doc__", "")
    return doc.strip().splitlines()[0] if doc and doc.strip() else ""


def add_rule(table: Registry, kind: str, op_name: str, fn: Callable, summary: str | None = None):
    """Adds `fn` as the `kind` rule for `op_name` to `table`; a name taken twice (the error names
    both rules), or one that is not an aten op, raises; the summary (docstring) must read
    `op_name -> targets`."""
    opdef = get_op_def(op_name)
    if opdef is None or opdef.inexpressible:
        raise KeyError(f"{kind} for '{op_name}': not an op of the aten dialect")
    if op_name in table:
        table.register(op_name, fn)  # raises DuplicateKeyError naming both owners
    summary = summary if summary is not None else rule_summary(fn)
    if not summary.startswith(op_name + " ->"):
        name = getattr(fn, "__name__", repr(fn))
        raise ValueError(f"{name}: docstring must start '{op_name} -> <target ops>'")
    table.register(op_name, Rule(op_name, fn, summary), owner=owner_of(fn))
    return fn


def _check_replacement(op: ir.Operation, values: list) -> str | None:
    if len(values) != len(op.results):
        return f"rule returned {len(values)} values for {len(op.results)} results"
    for i, (v, r) in enumerate(zip(values, op.results)):
        if not isinstance(v, ir.Value):
            return f"rule returned {type(v).__name__} for result #{i}"
        if v.type != r.type:
            return f"result #{i}: rule built {v.type}, the op has {r.type}"
    return None


def as_pattern(rule: Rule, errors: list[RuleError], rewriter_cls, kind: str = "rule"):
    """The upstream pattern callback for one rule. A failing rule leaves the op in place and
    records why in `errors` (raising through the C++ driver would lose the location).
    `rewriter_cls(op, pattern_rewriter)` must offer `discard()` (erase what the rule built: a
    rule that gives up must leave no trace, or the greedy driver retries forever)."""

    def pattern(op, rewriter: mlir_rewrite.PatternRewriter) -> bool:
        op = op.operation
        builder = None
        try:
            builder = rewriter_cls(op, rewriter)  # reads the args: may find them malformed
            out = rule.fn(op, builder)
            if out is None:
                builder.discard()
                return True  # not applicable: upstream reads True as "no match"
            values = [out] if isinstance(out, ir.Value) else list(out)
            values = builder.finish(values) if hasattr(builder, "finish") else values
            why = _check_replacement(op, values)
        except Exception as e:  # a bug in a rule: reported with the op's location by the pass
            why = f"{type(e).__name__}: {e}"
        if why:
            if builder is not None:
                builder.discard()
            name = getattr(rule.fn, "__name__", None) or getattr(rule.fn.func, "__name__", "?")
            errors.append(RuleError(op, f"{kind} {name}: {why}"))
            return True
        rewriter.replace_op(op, values)
        return False

    return pattern

"""The decomposition table: one Python rule per aten overload, run as an MLIR rewrite pattern.

A rule is `fn(op, rewriter) -> replacement values | None` registered with
`@register_decomposition("aten.silu")` right above it; `rewriter` is a `DecompositionRewriter`
that builds aten ops at the op's position and location. Returning None means "not applicable"
(a precondition failed); the upstream pattern API's inverted convention (a true return value means
*no match*) is wrapped once, here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from mlir import ir
from mlir import rewrite as mlir_rewrite
from mlir.dialects import arith, tensor

from aten_mlir.dialects import build_aten, get_op_def, op_arguments
from aten_mlir.registry import Registry

from ..rules import Rule, RuleError, add_rule
from ..rules import as_pattern as _as_pattern

Decomposition = Rule  # the table entries: op name, rule, docstring summary

DECOMPOSITIONS: Registry[Decomposition] = Registry("decomposition")

# Non-core ops left whole because PyTorch has no aten-level decomposition for them either (LAPACK
# and FFT calls, special functions torch only lowers to prims, data-dependent result shapes):
# op name -> why. Filled by `keep_whole` next to the family the op belongs to.
KEPT_WHOLE: Registry[str] = Registry("op kept whole")


def keep_whole(op_name: str, reason: str) -> None:
    """Records that `op_name` stays whole (no rule), with the reason a reader can check."""
    opdef = get_op_def(op_name)
    if opdef is None or opdef.inexpressible:
        raise KeyError(f"keep_whole('{op_name}'): not an op of the aten dialect")
    if op_name in DECOMPOSITIONS:
        owner = DECOMPOSITIONS.owner(op_name)
        raise KeyError(f"keep_whole('{op_name}'): already decomposed by {owner}")
    if not reason.strip():
        raise ValueError(f"keep_whole('{op_name}'): give the reason")
    # kept twice raises, naming both modules
    KEPT_WHOLE.register(op_name, reason, owner=sys._getframe(1).f_globals.get("__name__"))


def register_decomposition(op_name: str):
    """Registers the decomposition rule for `op_name`; a name taken twice or one that is not an
    op of the aten dialect raises."""

    def wrap(fn):
        if op_name in KEPT_WHOLE:
            raise KeyError(f"decomposition for '{op_name}': the op is listed as kept whole")
        return add_rule(DECOMPOSITIONS, "decomposition", op_name, fn)

    return wrap


class DecompositionRewriter:
    """What a rule builds with: the op's schema arguments, and aten builders that insert before
    the op with the op's location (so errors later still point at the user's line)."""

    def __init__(self, op: ir.Operation, rewriter: mlir_rewrite.PatternRewriter):
        self.op = op
        self.rewriter = rewriter
        self.args = op_arguments(op)
        self.created: list[ir.Operation] = []

    def _track(self, value_or_op):
        op = value_or_op.owner if isinstance(value_or_op, ir.Value) else value_or_op
        self.created.append(op.operation)
        return value_or_op

    def discard(self) -> None:
        """Erases what the rule built: a rule that gives up (or fails) must leave no trace, or the
        greedy driver sees a change, retries, and never converges."""
        for op in reversed(self.created):
            op.erase()
        self.created.clear()

    def build(self, op_name: str, /, *args, results: Sequence[ir.Type] | None = None, **kwargs):
        """The new aten `ir.Operation` (all its results); schema arguments may be passed by name,
        `self` included."""
        with self.op.location:  # also the context type construction needs
            # Materialise the ints of mixed size lists here, so that discard() sees them too.
            args = [self._sizes_as_values(a) for a in args]
            kwargs = {k: self._sizes_as_values(v) for k, v in kwargs.items()}
            op = build_aten(op_name, *args, results=results, ip=self.rewriter.ip, **kwargs)
            return self._track(op)

    def _sizes_as_values(self, arg):
        if isinstance(arg, (list, tuple)) and any(isinstance(v, ir.Value) for v in arg):
            if all(isinstance(v, (int, ir.Value)) and not isinstance(v, bool) for v in arg):
                return [self._index(v) for v in arg]
        return arg

    def aten(self, op_name: str, /, *args, results: Sequence[ir.Type] | None = None, **kwargs):
        """The single result of a new aten op."""
        op = self.build(op_name, *args, results=results, **kwargs)
        if len(op.results) != 1:
            raise ValueError(f"{op_name} has {len(op.results)} results; use build()")
        return op.results[0]

    def size(self, value: ir.Value, dim: int) -> int | ir.Value:
        """Size of `value` along `dim`: an int when static, else a `tensor.dim` index value
        (rules never bake in an example size)."""
        t = ir.RankedTensorType(value.type)
        dim = dim % t.rank if t.rank else dim
        if not t.is_dynamic_dim(dim):
            return t.get_dim_size(dim)
        with self.op.location:
            index = self._index(dim)
            return self._track(tensor.DimOp(value, index, ip=self.rewriter.ip).result)

    def sizes(self, value: ir.Value) -> list[int | ir.Value]:
        return [self.size(value, d) for d in range(ir.RankedTensorType(value.type).rank)]

    def index_arith(self, op_class, a: int | ir.Value, b: int | ir.Value) -> int | ir.Value:
        """`a (op) b` on sizes, folded when both are ints: `index_arith(arith.MulIOp, n, 4)`."""
        folds = {arith.MulIOp: int.__mul__, arith.AddIOp: int.__add__, arith.SubIOp: int.__sub__}
        if isinstance(a, int) and isinstance(b, int) and op_class in folds:
            return folds[op_class](a, b)
        with self.op.location:
            a, b = (self._index(v) for v in (a, b))
            return self._track(op_class(a, b, ip=self.rewriter.ip).result)

    def _index(self, v: int | ir.Value) -> ir.Value:
        if isinstance(v, ir.Value):
            return v
        return self._track(arith.ConstantOp(ir.IndexType.get(), v, ip=self.rewriter.ip).result)


DecompositionError = RuleError


def as_pattern(decomposition: Rule, errors: list[RuleError]):
    """The upstream pattern callback for one decomposition (see `passes.rules.as_pattern`)."""
    return _as_pattern(decomposition, errors, DecompositionRewriter, "decomposition")

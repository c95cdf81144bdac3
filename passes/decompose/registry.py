"""The decomposition table: one Python rule per aten overload, run as an MLIR rewrite pattern.

A rule is `fn(op, rewriter) -> replacement values | None` registered with
`@register_decomposition("aten.silu")` right above it; `rewriter` is a `DecompositionRewriter`
that builds aten ops at the op's position and location. Returning None means "not applicable"
(a precondition failed); the upstream pattern API's inverted convention (a true return value means
*no match*) is wrapped once, here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mlir import ir
from mlir import rewrite as mlir_rewrite
from mlir.dialects import arith, tensor

from aten_mlir.dialects import build_aten, get_op_def, op_arguments


@dataclass(frozen=True)
class Decomposition:
    op_name: str  # `aten.silu`
    fn: Callable
    summary: str  # the docstring's first line: `aten.silu -> aten.sigmoid, aten.mul.Tensor`


DECOMPOSITIONS: dict[str, Decomposition] = {}

# Non-core ops left whole because PyTorch has no aten-level decomposition for them either (LAPACK
# and FFT calls, special functions torch only lowers to prims, data-dependent result shapes):
# op name -> why. Filled by `keep_whole` next to the family the op belongs to.
KEPT_WHOLE: dict[str, str] = {}


def keep_whole(op_name: str, reason: str) -> None:
    """Records that `op_name` stays whole (no rule), with the reason a reader can check."""
    opdef = get_op_def(op_name)
    if opdef is None or opdef.inexpressible:
        raise KeyError(f"keep_whole('{op_name}'): not an op of the aten dialect")
    if op_name in KEPT_WHOLE or op_name in DECOMPOSITIONS:
        raise KeyError(f"keep_whole('{op_name}'): already kept or decomposed")
    if not reason.strip():
        raise ValueError(f"keep_whole('{op_name}'): give the reason")
    KEPT_WHOLE[op_name] = reason


def register_decomposition(op_name: str):
    """Registers the decomposition rule for `op_name`; a name taken twice or one that is not an
    op of the aten dialect raises."""

    def wrap(fn):
        opdef = get_op_def(op_name)
        if opdef is None or opdef.inexpressible:
            raise KeyError(f"decomposition for '{op_name}': not an op of the aten dialect")
        if op_name in DECOMPOSITIONS:
            raise KeyError(f"decomposition for '{op_name}' registered twice")
        if op_name in KEPT_WHOLE:
            raise KeyError(f"decomposition for '{op_name}': the op is listed as kept whole")
        summary = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        if not summary.startswith(op_name + " ->"):
            raise ValueError(f"{fn.__name__}: docstring must start '{op_name} -> <target ops>'")
        DECOMPOSITIONS[op_name] = Decomposition(op_name, fn, summary)
        return fn

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


class DecompositionError(RuntimeError):
    """A rule raised or returned values that cannot replace the op."""

    def __init__(self, op: ir.Operation, message: str):
        self.op = op
        super().__init__(message)


def _check_replacement(op: ir.Operation, values: list) -> str | None:
    if len(values) != len(op.results):
        return f"rule returned {len(values)} values for {len(op.results)} results"
    for i, (v, r) in enumerate(zip(values, op.results)):
        if not isinstance(v, ir.Value):
            return f"rule returned {type(v).__name__} for result #{i}"
        if v.type != r.type:
            return f"result #{i}: rule built {v.type}, the op has {r.type}"
    return None


def as_pattern(decomposition: Decomposition, errors: list[DecompositionError]):
    """The upstream pattern callback for one rule. A failing rule leaves the op in place and
    records why in `errors` (raising through the C++ driver would lose the location)."""

    def pattern(op, rewriter) -> bool:
        op = op.operation
        builder = None
        try:
            builder = DecompositionRewriter(op, rewriter)  # reads the args: may find them malformed
            out = decomposition.fn(op, builder)
            if out is None:
                builder.discard()
                return True  # not applicable: upstream reads True as "no match"
            values = [out] if isinstance(out, ir.Value) else list(out)
            why = _check_replacement(op, values)
        except Exception as e:  # a bug in a rule: reported with the op's location by the pass
            why = f"{type(e).__name__}: {e}"
        if why:
            if builder is not None:
                builder.discard()
            rule = decomposition.fn.__name__
            errors.append(DecompositionError(op, f"decomposition {rule}: {why}"))
            return True
        rewriter.replace_op(op, values)
        return False

    return pattern

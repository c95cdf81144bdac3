"""`LoweringRewriter`: what a lowering rule builds with (tensors, linalg.generic, scalar casts).

Everything is inserted before the op being lowered, with its location, so diagnostics from later
stages still name the user's line. Builders take and return `ir.Value`s; sizes are ints when
static and `index` values when dynamic (never an example size baked in).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor
from mlir.dialects import complex as cx

from aten_mlir.dialects import get_op_def
from aten_mlir.dialects.opdefs import ArgKind

from ..decompose.registry import DecompositionRewriter
from ..ir.conventions import (  # noqa: F401 (the storage convention, re-exported here)
    has_storage_type,
    is_bool_tensor,
    is_unsigned_type,
    storage_type,
)

PARALLEL = linalg.IteratorType.parallel
REDUCTION = linalg.IteratorType.reduction


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def is_int(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType)


def width(t: ir.Type) -> int:
    if is_int(t):
        return ir.IntegerType(t).width
    return {ir.F16Type: 16, ir.BF16Type: 16, ir.F32Type: 32, ir.F64Type: 64}[type(t)]


def elem(value_or_type) -> ir.Type:
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    return ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t


def tensor_type(t_or_v) -> ir.RankedTensorType:
    return ir.RankedTensorType(t_or_v.type if isinstance(t_or_v, ir.Value) else t_or_v)


def _is_runtime_scalar(v) -> bool:
    return isinstance(v, ir.Value) and isinstance(
        v.type, (ir.IndexType, ir.IntegerType, ir.FloatType)
    )


def _scalar_overload(op: ir.Operation) -> bool:
    """The elementwise overloads taking a Scalar operand (`div.Scalar`, `pow.Tensor_Scalar`,
    `div.Scalar_mode`): their rules broadcast a 0-d tensor as they would a number. (Other ops'
    Scalar arguments, `full`'s fill value, are read as scalars by their rules.)"""
    overload = op.name.rsplit(".", 1)[-1]
    return overload in ("Scalar", "Scalar_mode") or overload.endswith("_Scalar")


class LoweringRewriter(DecompositionRewriter):
    """Builds before `op`; `discard()` erases every top-level op a rule built."""

    def __init__(self, op: ir.Operation, rewriter):
        super().__init__(op, rewriter)
        self._ops_before = self._block_len()
        # Storage values of unsigned operands: arith reads them as signless bits, so rules
        # need to know which to widen with extui/uitofp (`is_unsigned`).
        self.unsigned: set[ir.Value] = set()
        global _CURRENT_UNSIGNED
        _CURRENT_UNSIGNED = self.unsigned
        self.args = {k: self._stored(v) for k, v in self.args.items()}
        # An argument the op leaves out takes its schema default (gelu's approximate="none").
        for a in get_op_def(op.name).args:
            if self.args.get(a.name) is None and a.has_default and a.default is not None:
                self.args[a.name] = a.default
            elif _is_runtime_scalar(self.args.get(a.name)) and (
                a.kind is ArgKind.TENSOR or (a.kind is ArgKind.SCALAR and _scalar_overload(op))
            ):
                self.args[a.name] = self._zero_dim(self.args[a.name])

    def _zero_dim(self, v: ir.Value) -> ir.Value:
        """A size computed at run time where ATen takes a Tensor (`x * x.shape[0]`, a batch
        norm backward's `1.0 / numel`), as the 0-d tensor the rules broadcast; the op's result
        type already says how it promoted."""
        with self.at():
            if isinstance(v.type, ir.IndexType):
                v = arith.index_cast(ir.IntegerType.get_signless(64), v)
            return tensor.from_elements(ir.RankedTensorType.get([], v.type), [v])

    # -- bool tensors are stored as i8 (LLVM cannot store memrefs of i1), unsigned ints as ----
    # -- signless ints of their width (arith has no unsigned types) ----------------------------
    def _stored(self, v):
        if isinstance(v, list):
            return [self._stored(x) for x in v]
        if isinstance(v, ir.Value) and isinstance(v.type, ir.RankedTensorType):
            stored = to_storage(v, self.at)
            if is_unsigned_type(v.type):
                self.unsigned.add(stored)
            return stored
        return v

    def is_unsigned(self, v: ir.Value) -> bool:
        """Whether tensor `v` (an operand's storage) holds unsigned ints."""
        return v in self.unsigned or is_unsigned_type(v.type)

    def finish(self, values: list) -> list:
        """Results built in storage types, cast back to the op's (bool) result types; results
        whose dims are `?` where the op's type knows them (or the reverse) get a `tensor.cast`:
        torch specializes a dynamic size of 1 (a batch norm over the 1x1 images of a dynamic
        recompile), so the FX type can be more static than what a rule derives from its input."""
        out = []
        for v, r in zip(values, self.op.results):
            if isinstance(v, ir.Value) and v.type != r.type and _cast_compatible(v.type, r.type):
                with self.at():
                    v = tensor.CastOp(r.type, v).result
            if isinstance(v, ir.Value) and v.type != r.type and v.type == storage_type(r.type):
                with self.at():
                    v = ir.Operation.create(
                        "builtin.unrealized_conversion_cast", results=[r.type], operands=[v]
                    ).result
            out.append(v)
        return out

    # -- bookkeeping -------------------------------------------------------------------------
    def _block_ops(self):
        return self.op.operation.block.operations

    def _block_len(self) -> int:
        return len(self._block_ops())

    def discard(self) -> None:
        """Erases, last first, every op inserted before `op` since the rule started (tracked
        sizes included: erasing those first would leave their users dangling)."""
        self.created.clear()
        ops = self._block_ops()
        extra = len(ops) - self._ops_before
        if extra <= 0:
            return
        all_ops = list(ops)
        at = next(i for i, o in enumerate(all_ops) if o.operation == self.op)
        for o in reversed(all_ops[at - extra : at]):
            o.operation.erase()

    def at(self):
        """Context: insert before the op, with its location (`with rw.at(): arith.addf(...)`)."""
        return _At(self.op)

    # -- types and values --------------------------------------------------------------------
    def result_type(self, i: int = 0) -> ir.RankedTensorType:
        """The type of result `i` as rules build it (bool tensors as i8)."""
        return storage_type(ir.RankedTensorType(self.op.results[i].type))

    def const(self, value, t: ir.Type) -> ir.Value:
        """A scalar `arith.constant` of type `t` (float, int, i1 or index)."""
        with self.at():
            if is_float(t):
                attr = ir.FloatAttr.get(t, float(value))
            elif isinstance(t, ir.IndexType):
                attr = ir.IntegerAttr.get(t, int(value))
            elif ir.IntegerType(t).width == 1:
                attr = ir.IntegerAttr.get(t, 1 if value else 0)
            else:
                attr = ir.IntegerAttr.get(t, _wrap_int(int(value), ir.IntegerType(t).width))
            return arith.ConstantOp(t, attr).result

    def empty(self, t: ir.RankedTensorType, sizes: Sequence[int | ir.Value]) -> ir.Value:
        """`tensor.empty` of type `t`; `sizes` gives the dynamic dims (ints or index values)."""
        mixed = [
            self._index(s) if t.is_dynamic_dim(d) else t.get_dim_size(d)
            for d, s in enumerate(sizes)
        ]
        with self.at():
            return tensor.EmptyOp(mixed, t.element_type).result

    def fill(self, scalar: ir.Value, dest: ir.Value) -> ir.Value:
        with self.at():
            return linalg.fill(scalar, outs=[dest])

    def full(self, t: ir.RankedTensorType, sizes, value) -> ir.Value:
        """A tensor of type `t` filled with the Python number `value`."""
        return self.fill(self.const(value, t.element_type), self.empty(t, sizes))

    def generic(
        self,
        inputs: Sequence[ir.Value],
        outputs: Sequence[ir.Value],
        maps: Sequence[ir.AffineMap],
        iterators: Sequence,
        body: Callable,
    ) -> list[ir.Value]:
        """A `linalg.generic`; `body(*block_args)` builds the region and returns the yielded
        values (scalars), with the insertion point and location set."""
        with self.at():
            op = linalg.GenericOp_(
                list(inputs),
                list(outputs),
                list(maps),
                list(iterators),
            )
            block = op.regions[0].blocks[0]
            with ir.InsertionPoint(block):
                out = body(*block.arguments)
                out = [out] if isinstance(out, ir.Value) else list(out)
                linalg.YieldOp(out)
            return list(op.results)

    def dims(self, value: ir.Value) -> list[int | ir.Value]:
        return self.sizes(value)

    # -- scalar conversions (inside region bodies) ----------------------------------------------
    def convert(self, x: ir.Value, to: ir.Type, unsigned: bool = False) -> ir.Value:
        """Scalar `x` as type `to`, with torch's conversion semantics (bool is != 0; float to
        int truncates; `unsigned` reads integer `x` as unsigned)."""
        return convert(x, to, unsigned)


# The unsigned storage values of the op being lowered (rules run one at a time): lets dtype
# helpers that see only a value (`elementwise_core.dtype`, torch's promotion) read uint8 storage
# as uint8. Replaced by each new LoweringRewriter, so no value outlives its op's rewrite here.
_CURRENT_UNSIGNED: set = set()


def stored_as_unsigned(v: ir.Value) -> bool:
    """Whether `v` is the signless storage of an unsigned operand of the op being lowered."""
    return v in _CURRENT_UNSIGNED


def to_storage(v: ir.Value, at) -> ir.Value:
    """`v` in its storage type: looks through the cast that stored it, else casts."""
    if not has_storage_type(v.type):
        return v
    owner = v.owner
    if isinstance(owner, ir.OpView):
        owner = owner.operation
    if (
        isinstance(owner, ir.Operation)
        and owner.name == "builtin.unrealized_conversion_cast"
        and len(owner.operands) == 1
        and owner.operands[0].type == storage_type(v.type)
    ):
        return owner.operands[0]
    with at():
        return ir.Operation.create(
            "builtin.unrealized_conversion_cast", results=[storage_type(v.type)], operands=[v]
        ).result


class _At:
    def __init__(self, op):
        self.op = op

    def __enter__(self):
        self.ip = ir.InsertionPoint(self.op)
        self.ip.__enter__()
        self.op.location.__enter__()
        return self

    def __exit__(self, *exc):
        self.op.location.__exit__(*exc)
        self.ip.__exit__(*exc)


def _wrap_int(v: int, bits: int) -> int:
    """Two's complement wrap into `bits` as a signed number (what IntegerAttr accepts)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def convert(x: ir.Value, to: ir.Type, unsigned: bool = False) -> ir.Value:
    """Scalar conversion with torch semantics; needs an insertion point and location."""
    src = x.type
    if src == to:
        return x
    if isinstance(src, ir.ComplexType) or isinstance(to, ir.ComplexType):
        return _convert_complex(x, to, unsigned)
    if is_float(src) and is_float(to):
        if width(to) == width(src):  # bf16 <-> f16: through f32
            return arith.truncf(to, arith.extf(ir.F32Type.get(), x))
        if width(to) == 16 and width(src) == 64:
            # c10's Half and BFloat16 are built from a float (double -> float -> half, as
            # eager rounds), and LLVM's f64 -> bf16 libcall is not in libgcc
            return arith.truncf(to, arith.truncf(ir.F32Type.get(), x))
        return arith.extf(to, x) if width(to) > width(src) else arith.truncf(to, x)
    if is_int(src) and is_int(to):
        if width(to) == 1:
            return arith.cmpi(arith.CmpIPredicate.ne, x, _zero(src))
        if width(to) > width(src):
            return arith.extui(to, x) if unsigned or width(src) == 1 else arith.extsi(to, x)
        return arith.trunci(to, x)
    if is_int(src) and is_float(to):
        return arith.uitofp(to, x) if unsigned or width(src) == 1 else arith.sitofp(to, x)
    if is_float(src) and is_int(to):
        if width(to) == 1:
            return arith.cmpf(arith.CmpFPredicate.UNE, x, _zero(src))
        return arith.fptosi(to, x)
    if isinstance(src, ir.IndexType) or isinstance(to, ir.IndexType):
        return arith.index_cast(to, x)
    raise TypeError(f"no conversion from {src} to {to}")


def _convert_complex(x: ir.Value, to: ir.Type, unsigned: bool) -> ir.Value:
    """A real value becomes the real part (imaginary 0); a complex one cast to a real type
    keeps its real part, as torch does."""
    if not isinstance(to, ir.ComplexType):
        return convert(cx.re(x), to, unsigned)
    part = ir.ComplexType(to).element_type
    if isinstance(x.type, ir.ComplexType):
        re, im = convert(cx.re(x), part), convert(cx.im(x), part)
    else:
        re, im = convert(x, part, unsigned), arith.constant(part, 0.0)
    return cx.CreateOp(to, re, im).result


def _zero(t: ir.Type) -> ir.Value:
    if is_float(t):
        return arith.constant(t, 0.0)
    return arith.constant(t, 0)


def _cast_compatible(a: ir.Type, b: ir.Type) -> bool:
    """Ranked tensor types that differ only in which dims are static (and agree where both are)."""
    if not (isinstance(a, ir.RankedTensorType) and isinstance(b, ir.RankedTensorType)):
        return False
    a, b = ir.RankedTensorType(a), ir.RankedTensorType(b)
    if a.element_type != b.element_type or a.rank != b.rank or a.encoding != b.encoding:
        return False
    return all(
        a.is_dynamic_dim(d) or b.is_dynamic_dim(d) or a.get_dim_size(d) == b.get_dim_size(d)
        for d in range(a.rank)
    )

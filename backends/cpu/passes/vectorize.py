"""`cpu-vectorize-generics`: elementwise and reduction linalg.generic ops on memrefs -> loop
nests whose innermost loop runs on vectors.

`convert-linalg-to-parallel-loops` gives scalar nests in which a reduction accumulates through
memory in sequential FP order, so LLVM's loop vectorizer leaves it scalar ("cannot prove it is
safe to reorder floating-point operations"), and per-row values (`rsqrt(var + eps)`) are
recomputed per element. Here the loop dim along which the operands are contiguous (picked by
`vectorize_plan`) becomes the innermost loop, stepping `lanes` elements at a time:
- operands indexed by it are read and written as vectors (masked for the last partial step);
- body values that do not depend on it are computed once per row, before that loop;
- a reduction along it keeps partial results in a vector accumulator (lane j combines
  elements j, j + lanes, ...), combined with the output once per row: a reassociated sum, as
  ATen's vectorized reductions are (and closer to the exact sum than one sequential chain).
Ops this does not match stay for `convert-linalg-to-parallel-loops`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from aten_mlir.passes.ir import nested_ops
from aten_mlir.passes.registry import ModulePass, option, register_pass

from .accurate_math import LIBM
from .bf16_rounding import is_f32_to_bf16, round_to_bf16
from .fast_math import EXPANSIONS as _FAST_MATH
from .float_extrema import reduce_extremum, reduces_as_integers
from .fold_access import fold_access
from .lane_stride import index_value, lane_stride, strided_load
from .lane_tail import emit_tail, plan_tail
from .named_copies import copies_as_generics
from .native_bf16 import rounds_natively
from .vectorize_plan import (
    INTEGER_DIVISIONS,
    Plan,
    long_body,
    long_body_lanes,
    neutral,
    plan,
    register_lanes,
    static_extents,
)

# Math ops that become libm calls run per lane (extract, scalar op, from_elements):
# `cpu-accurate-math` calls libm for scalars only (the vector expm1 would be exp(x) - 1), and
# `convert-math-to-libm` unrolls vectors into `vector.extract`s after `convert-vector-to-llvm`
# ran, which mlir-translate rejects. The ops `convert-math-to-llvm` leaves to libm (checked on
# vector<4xf32> / vector<4xf64> through the llvm stage), minus what `cpu-fast-math` expands.
_PER_LANE = frozenset(
    ("math.acosh", "math.asinh", "math.atanh", "math.cbrt", "math.erf", "math.erfc", *LIBM)
)


def _per_lane(op: ir.Operation) -> bool:
    if op.name not in _PER_LANE:
        return False
    return not (op.name in _FAST_MATH and isinstance(op.results[0].type, ir.F32Type))


# Below this many elements a row runs scalar: one masked step would waste most of its lanes.
MIN_LANE_EXTENT = 4


@register_pass
@dataclass(frozen=True)
class VectorizeGenerics(ModulePass):
    """linalg.generic (elementwise, reductions) on memrefs -> scf.parallel/scf.for over
    vector.load/store, arith/math on vectors, vector.reduction; contiguous dim innermost."""

    name: ClassVar[str] = "cpu-vectorize-generics"
    lanes: int = option(0, "elements per vector step; 0: two f32 registers of `cpu`")
    reduction_lanes: int = option(
        0, "elements per step of a reduction; 0: four f32 registers of `cpu` (add chains)"
    )
    cpu: str = option("", "-mcpu name whose vector width sets lanes of 0; '': the build's")

    def run(self, module_op: ir.Operation) -> None:
        register = 0 if self.lanes and self.reduction_lanes else register_lanes(self.cpu)
        widths = (
            self.lanes or 2 * register,
            self.reduction_lanes or 4 * register,
            self.lanes or long_body_lanes(register),
        )
        narrowest = register or min(widths)  # a dynamic row's last steps: one register
        with module_op.context:
            copies_as_generics(module_op)  # linalg.copy left to the scalar loops: not vectorized
            found = [p for p in map(plan, nested_ops(module_op)) if p is not None]
            for p in found:
                extents = static_extents(p)
                if 0 in extents:
                    p.op.erase()  # no iterations
                    continue
                lanes = _lanes(p, extents, widths)
                if lanes:
                    with p.op.location, ir.InsertionPoint(p.op):
                        _Emitter(p, lanes, narrowest).emit()
                    p.op.erase()


def _lanes(p: Plan, extents: list[int | None], widths: tuple[int, int, int]) -> int:
    """Elements per step: a short static row's covering power of two; 0 below MIN_LANE_EXTENT."""
    lanes = widths[1] if p.reduces else widths[2] if long_body(p.block, _FAST_MATH) else widths[0]
    row = [extents[d] for d in (p.dim, *p.folded)]
    if None in row:
        return lanes
    if math.prod(row) < MIN_LANE_EXTENT:
        return 0
    return min(lanes, 1 << (math.prod(row) - 1).bit_length())


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _create_like(op: ir.Operation, operands, result_types) -> ir.Operation:
    """`op` again (same name and attributes) on other operands and result types."""
    attributes = {name: op.attributes[name] for name in op.attributes}
    return ir.Operation.create(
        op.name, results=result_types, operands=list(operands), attributes=attributes
    )


class _Emitter:
    """Builds the loop nest of one planned generic at the current insertion point."""

    def __init__(self, p: Plan, lanes: int, narrowest: int):
        self.p = p
        self.lanes = lanes
        self.narrowest = narrowest
        self.width = lanes  # elements of the step being built (a dynamic row's tail: fewer)
        self.tail = None
        self.block = p.block
        self.body = [o.operation for o in self.block.operations]
        self.combined = {c.results[0] for c in p.combiners}
        self.extents = self._extents()
        self.lane_extent = self._lane_extent()
        self.accesses = [fold_access(a, p.folded) for a in p.accesses]

    def vector_type(self, t: ir.Type) -> ir.VectorType:
        return ir.VectorType.get([self.width], t)

    def _extents(self) -> list:
        """Per loop dim, an int (static) or an index value (`memref.dim`)."""
        out = static_extents(self.p)
        for a in self.p.accesses:
            for pos, d in enumerate(a.indices):
                if isinstance(d, int) and out[d] is None:
                    out[d] = memref.dim(a.memref, _index(pos))
        return out

    def _lane_extent(self):
        """The vectorized dim's extent times the folded dims': an int when all are static."""
        extents = [self.extents[d] for d in (self.p.dim, *self.p.folded)]
        if all(isinstance(e, int) for e in extents):
            return math.prod(extents)
        total = self._bound(self.p.dim)
        for d in self.p.folded:
            total = arith.muli(total, self._bound(d))
        return total

    def _bound(self, d: int) -> ir.Value:
        e = self.extents[d]
        return _index(e) if isinstance(e, int) else e

    # -- loops ------------------------------------------------------------------------------
    def emit(self) -> None:
        outer = list(self.p.outer)
        if not isinstance(self.lane_extent, int):  # decided here, once, outside the row loops
            self.tail = plan_tail(self.lane_extent, self.lanes, self.narrowest)
        # leading parallel dims form one scf.parallel, as convert-linalg-to-parallel-loops's
        lead = 0
        while lead < len(outer) and self.p.parallel[outer[lead]]:
            lead += 1
        if not lead:
            self._loops(outer, {})
            return
        zero, one = _index(0), _index(1)
        loop = scf.ParallelOp(
            [], [zero] * lead, [self._bound(d) for d in outer[:lead]], [one] * lead, []
        )
        block = loop.regions[0].blocks.append(*[ir.IndexType.get()] * lead)
        with ir.InsertionPoint(block):
            self._loops(outer[lead:], dict(zip(outer[:lead], block.arguments)))
            scf.reduce([], 0)

    def _loops(self, dims: list[int], ivs: dict) -> None:
        if not dims:
            if isinstance(self.lane_extent, int):
                self._row(ivs)
                return
            # the row's hoisted reads run only when the row has elements, as they would
            guard = scf.IfOp(self.tail.nonempty)
            with ir.InsertionPoint(guard.then_block):
                self._row(ivs)
                scf.YieldOp([])
            return
        loop = scf.ForOp(_index(0), self._bound(dims[0]), _index(1))
        with ir.InsertionPoint(loop.body):
            self._loops(dims[1:], {**ivs, dims[0]: loop.induction_variable})
            scf.YieldOp([])

    # -- one row: the lane loop and what is computed once around it -------------------------
    def _row(self, ivs: dict) -> None:
        p = self.p
        self.ivs = ivs
        self.scalars = self._uniform_values()
        self.splats = {}
        widths = [self.lanes]
        if self.tail is not None:
            widths += [w for w, *_ in self.tail.steps] + [self.tail.masked[0]]
        for self.width in widths:
            for v in self._row_values_read_by_lanes():
                self._as_vector(v, {})  # the broadcasts, once per row
        self.width = self.lanes
        accs = [self._splat_const(neutral(k, c.results[0].type)) for k, c in self._reductions()]
        extent = self.lane_extent
        if isinstance(extent, int):
            main, rest = extent - extent % self.lanes, extent % self.lanes
            main_bound = _index(main) if main else None
        else:
            main_bound, rest = self.tail.main_bound, None
        if main_bound is not None:
            loop = scf.ForOp(_index(0), main_bound, _index(self.lanes), accs)
            with ir.InsertionPoint(loop.body):
                scf.YieldOp(self._step(loop.induction_variable, list(loop.inner_iter_args), None))
            accs = list(loop.results)
        if rest is None:
            accs = emit_tail(self, self.tail, accs)
        elif rest:
            mask = vector.constant_mask(self.vector_type(ir.IntegerType.get_signless(1)), [rest])
            accs = self._step(main_bound if main_bound is not None else _index(0), accs, mask)
        for acc, (kind, combine), k in zip(accs, self._reductions(), range(len(accs))):
            self._finish_reduction(acc, kind, combine, self.accesses[p.num_inputs + k])

    def step_at(self, width: int, start: ir.Value, accs: list, mask) -> list:
        """`_step` with vectors of `width` elements (a dynamic row's tail)."""
        self.width = width
        try:
            return self._step(start, accs, mask)
        finally:
            self.width = self.lanes

    def _lane_ops(self) -> list[ir.Operation]:
        return [
            o
            for o in self.body[:-1]
            if o.results[0] in self.p.varying and o.results[0] not in self.combined
        ]

    def _row_values_read_by_lanes(self) -> list[ir.Value]:
        p = self.p
        skip = ("linalg.index", "memref.load")
        read = [v for o in self._lane_ops() if o.name not in skip for v in o.operands]
        if p.reduces:
            args = self.block.arguments[p.num_inputs :]
            read += [v for c, a in zip(p.combiners, args) for v in c.operands if v != a]
        else:
            read += list(self.body[-1].operands)
        return [v for v in read if v not in p.varying]

    def _reductions(self):
        return list(zip(self.p.kinds, self.p.combiners))

    def _finish_reduction(self, acc, kind, combine, access) -> None:
        t = combine.results[0].type
        indices = self._indices(access, None)
        old = memref.load(access.memref, indices)
        fastmath = None
        if isinstance(t, ir.FloatType) and kind in ("add", "mul"):
            fastmath = ir.Attribute.parse("#arith.fastmath<reassoc>")
        if isinstance(t, (ir.F16Type, ir.BF16Type)):
            # LLVM's x86 backend fails on `vector.reduce.fmaximum` of <64 x bfloat> ("Unexpected
            # illegal type"): reduce the lanes in f32 (exact for min/max; one rounding for sums)
            wide = ir.F32Type.get()
            lanes = arith.extf(ir.VectorType.get(ir.VectorType(acc.type).shape, wide), acc)
            old = arith.extf(wide, old)
            total = arith.truncf(t, self._horizontal(kind, lanes, old, fastmath))
        else:
            total = self._horizontal(kind, acc, old, fastmath)
        memref.store(total, access.memref, indices)

    @staticmethod
    def _horizontal(kind: str, lanes: ir.Value, old: ir.Value, fastmath) -> ir.Value:
        if reduces_as_integers(kind, lanes.type):
            return reduce_extremum(kind, lanes, old)
        kind_attr = ir.Attribute.parse(f"#vector.kind<{kind}>")
        return vector.reduction(old.type, kind_attr, lanes, acc=old, fastmath=fastmath)

    def _uniform_values(self) -> dict:
        """Body value -> its scalar for this row, for the values that are the same in every
        lane: per-row operands, and ops on them (cloned here, once per row)."""
        p, block = self.p, self.block
        out = {}
        for i, (arg, a) in enumerate(zip(block.arguments, self.accesses)):
            if a.lanes or not list(arg.uses) or (p.reduces and i >= p.num_inputs):
                continue
            out[arg] = memref.load(a.memref, self._indices(a, None))
        for o in self.body[:-1]:
            if o.results[0] in p.varying or o.results[0] in self.combined:
                continue
            if o.name == "linalg.index":
                out[o.results[0]] = self.ivs[ir.IntegerAttr(o.attributes["dim"]).value]
                continue
            operands = [out.get(v, v) for v in o.operands]
            new = _create_like(o, operands, [r.type for r in o.results])
            out.update(zip(o.results, new.results))
        return out

    def _splat_const(self, attr: ir.Attribute) -> ir.Value:
        t = self.vector_type(attr.type)
        return arith.constant(t, ir.DenseElementsAttr.get_splat(t, attr))

    def _as_vector(self, value: ir.Value, lane_values: dict) -> ir.Value:
        if value in lane_values:
            return lane_values[value]
        key = (value, self.width)
        if key not in self.splats:
            scalar = self.scalars.get(value, value)
            self.splats[key] = vector.broadcast(self.vector_type(value.type), scalar)
        return self.splats[key]

    def _indices(self, access, lane_start) -> list[ir.Value]:
        ivs = {**self.ivs, self.p.dim: lane_start}
        return [index_value(d, ivs) for d in access.indices]

    # -- one step of `lanes` elements --------------------------------------------------------
    def _step(self, start: ir.Value, accs: list, mask) -> list:
        p = self.p
        values = {}
        for arg, a in zip(self.block.arguments, self.accesses):
            if arg in p.varying and list(arg.uses):
                values[arg] = self._load(a, start, mask)
        for o in self._lane_ops():
            values.update(zip(o.results, self._lane_op(o, start, values, mask)))
        yielded = list(self.body[-1].operands)
        if not p.reduces:
            for value, a in zip(yielded, self.accesses[p.num_inputs :]):
                self._store(self._as_vector(value, values), a, start, mask)
            return []
        out = []
        for acc, (kind, combine) in zip(accs, self._reductions()):
            arg = self.block.arguments[p.num_inputs + len(out)]
            x = [v for v in combine.operands if v != arg][0]
            x = self._as_vector(x, values)
            if mask is not None:
                x = arith.select(mask, x, self._splat_const(neutral(kind, x.type.element_type)))
            out.append(_create_like(combine, [acc, x], [acc.type]).results[0])
        return out

    def _lane_op(self, o: ir.Operation, start, values: dict, mask) -> list[ir.Value]:
        if o.name == "linalg.index":
            t = self.vector_type(ir.IndexType.get())
            return [arith.addi(vector.broadcast(t, start), vector.step(t))]
        if o.name == "memref.load":  # a row at per-row indices (the plan checked), then lanes
            base, *indices = list(o.operands)
            indices = [self.scalars.get(v, v) for v in indices[:-1]] + [start]
            return [self._load_row(base, indices, mask)]
        operands = [self._as_vector(v, values) for v in o.operands]
        if is_f32_to_bf16(o) and not rounds_natively(operands[0]):
            return [round_to_bf16(operands[0])]  # else `cpu-native-bf16-rounding`'s
        if mask is not None and o.name in INTEGER_DIVISIONS:
            one = self._splat_const(ir.IntegerAttr.get(operands[1].type.element_type, 1))
            operands[1] = arith.select(mask, operands[1], one)
        types = [self.vector_type(r.type) for r in o.results]
        if not _per_lane(o):
            return list(_create_like(o, operands, types).results)
        lanes = []
        for j in range(self.width):
            scalars = [vector.extract(v, [], [j]) for v in operands]
            lanes.append(_create_like(o, scalars, [o.results[0].type]).results[0])
        return [vector.from_elements(types[0], lanes)]

    def _load(self, a, start, mask) -> ir.Value:
        stride = lane_stride(a.indices[-1], self.p.dim)
        if stride > 1:
            return strided_load(a.memref, self._indices(a, start), stride, self.width, mask)
        return self._load_row(a.memref, self._indices(a, start), mask)

    def _load_row(self, base: ir.Value, indices: list, mask) -> ir.Value:
        t = self.vector_type(ir.MemRefType(base.type).element_type)
        if mask is None:
            return vector.load(t, base, indices)
        zeros = arith.constant(t, ir.DenseElementsAttr.get_splat(t, _zero(t.element_type)))
        return vector.maskedload(t, base, indices, mask, zeros)

    def _store(self, value, a, start, mask) -> None:
        indices = self._indices(a, start)
        if mask is None:
            vector.store(value, a.memref, indices)
        else:
            vector.maskedstore(a.memref, indices, mask, value)


def _zero(t: ir.Type) -> ir.Attribute:
    return ir.FloatAttr.get(t, 0.0) if isinstance(t, ir.FloatType) else ir.IntegerAttr.get(t, 0)

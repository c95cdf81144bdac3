"""Helpers of the view, shape and padding lowerings: index arithmetic that folds on ints, torch's
index and slice normalisation, slices, reshapes (collapse/expand) and gathers.

Sizes are ints when static and `index` values when dynamic; every helper accepts both and folds
when it can, so that static programs carry no index arithmetic at all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ..ir import reassociation, unit_groups  # noqa: F401 (views.py's, re-exported)
from .builder import PARALLEL, LoweringRewriter, has_storage_type, tensor_type, to_storage

DYN = ir.ShapedType.get_dynamic_size()

Size = int | ir.Value


def const_int(v) -> int | None:
    """`v` as a Python int when it is one or an `arith.constant` (a symbolic size list holds
    the static entries, -1 included, as constants)."""
    if v is None or isinstance(v, int):
        return v
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    owner = owner.operation
    if owner.name == "arith.constant" and isinstance(v.type, ir.IndexType | ir.IntegerType):
        return ir.IntegerAttr(owner.attributes["value"]).value
    return None


def folded(v):
    """Ints stay ints, constant values become ints, other values stay values."""
    c = const_int(v)
    return v if c is None else c


def size_arg(rw: LoweringRewriter, v):
    """A size argument as an int or an index value. A `tensor.dim` of a bool (or unsigned)
    tensor is re-read from its signless storage, so that no i1 tensor has to reach compiled code
    for its size."""
    v = folded(v)
    if isinstance(v, ir.Value) and _reads_bool_dim(v):
        return _reread(rw, v)
    return v


def _reads_bool_dim(v: ir.Value) -> bool:
    if isinstance(v.owner, ir.Block):
        return False
    owner = v.owner.operation
    if owner.name == "tensor.dim":
        return has_storage_type(owner.operands[0].type)
    return owner.name.startswith("arith.") and any(_reads_bool_dim(o) for o in owner.operands)


def _reread(rw: LoweringRewriter, v: ir.Value) -> ir.Value:
    """`v` recomputed with every `tensor.dim` of a bool tensor reading its storage instead."""
    if not _reads_bool_dim(v):
        return v
    owner = v.owner.operation
    if owner.name == "tensor.dim":
        stored, dim = to_storage(owner.operands[0], rw.at), const_int(owner.operands[1])
        if dim is not None:
            return index_value(rw, rw.size(stored, dim))
        with rw.at():
            return tensor.DimOp(stored, owner.operands[1]).result
    operands = [_reread(rw, o) for o in owner.operands]
    attrs = {name: owner.attributes[name] for name in owner.attributes}
    with rw.at():
        op = ir.Operation.create(
            owner.name,
            results=[r.type for r in owner.results],
            operands=operands,
            attributes=attrs,
        )
    return op.results[0]


def size_args(rw: LoweringRewriter, values) -> list:
    return [size_arg(rw, v) for v in values]


def index_value(rw: LoweringRewriter, v: Size) -> ir.Value:
    if isinstance(v, ir.Value):
        if not isinstance(v.type, ir.IndexType):
            with rw.at():
                return arith.index_cast(ir.IndexType.get(), v)
        return v
    return rw.const(v, ir.IndexType.get())


_FOLD = {
    "add": (arith.addi, lambda a, b: a + b),
    "sub": (arith.subi, lambda a, b: a - b),
    "mul": (arith.muli, lambda a, b: a * b),
    "min": (arith.minsi, min),
    "max": (arith.maxsi, max),
    "floordiv": (arith.floordivsi, lambda a, b: a // b),
}


def iop(rw: LoweringRewriter, kind: str, a: Size, b: Size) -> Size:
    """`a <kind> b` on sizes (add, sub, mul, min, max, floordiv), folded on ints."""
    build, fold = _FOLD[kind]
    a, b = folded(a), folded(b)
    if isinstance(a, int) and isinstance(b, int):
        return fold(a, b)
    if kind == "mul" and isinstance(a, int) and a == 1:
        return b
    if kind == "mul" and isinstance(b, int) and b == 1:
        return a
    if kind in ("add", "sub") and isinstance(b, int) and b == 0:
        return a
    a, b = index_value(rw, a), index_value(rw, b)
    with rw.at():
        return build(a, b)


def product(rw: LoweringRewriter, sizes: Sequence[Size]) -> Size:
    total: Size = 1
    for s in sizes:
        total = iop(rw, "mul", total, s)
    return total


def wrap_index(rw: LoweringRewriter, i: Size, size: Size) -> Size:
    """A possibly negative index counted from the end, as torch reads it."""
    i = folded(i)
    if isinstance(i, int):
        return iop(rw, "add", i, size) if i < 0 else i
    with rw.at():
        neg = arith.cmpi(arith.CmpIPredicate.slt, i, index_value(rw, 0))
    shifted = index_value(rw, iop(rw, "add", i, size))
    with rw.at():
        return arith.select(neg, shifted, i)


def slice_bounds(rw, start, end, step: int, size: Size) -> tuple[Size, Size]:
    """torch's slice normalisation: (offset, length) of `start:end:step` on a dim of `size`
    (negative bounds count from the end, out-of-range ones clamp)."""
    start = 0 if start is None else start
    end = size if end is None else end
    start, end = folded(start), folded(end)
    if all(isinstance(v, int) for v in (start, end, size)):
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, start), size)
        return start, (end - start + step - 1) // step
    start = iop(rw, "min", iop(rw, "max", wrap_index(rw, start, size), 0), size)
    if end == size or (isinstance(end, int) and end >= 2**62):
        end = size
    else:
        end = iop(rw, "min", wrap_index(rw, end, size), size)
    end = iop(rw, "max", end, start)
    length = iop(rw, "sub", end, start)
    if step != 1:
        length = iop(rw, "floordiv", iop(rw, "add", length, step - 1), step)
    return start, length


def dim_sizes(rw: LoweringRewriter, t: ir.RankedTensorType, sizes: Sequence[Size]) -> list[Size]:
    """`sizes` with the static dims of `t` taken from `t` (the FX types are the truth)."""
    return [s if t.is_dynamic_dim(d) else t.get_dim_size(d) for d, s in enumerate(sizes)]


def cast_to(rw: LoweringRewriter, v: ir.Value, t: ir.Type) -> ir.Value:
    """`tensor.cast` to a compatible type (static <-> dynamic dims), or `v` when it has it."""
    if v.type == t:
        return v
    with rw.at():
        return tensor.CastOp(t, v).result


def _mixed(rw, values: Sequence[Size]) -> tuple[list[ir.Value], list[int]]:
    dynamic, static = [], []
    for v in values:
        v = folded(v)
        if isinstance(v, int):
            static.append(v)
        else:
            static.append(DYN)
            dynamic.append(index_value(rw, v))
    return dynamic, static


def extract_slice(
    rw: LoweringRewriter,
    x: ir.Value,
    offsets: Sequence[Size],
    sizes: Sequence[Size],
    strides: Sequence[Size],
    result: ir.RankedTensorType,
    drop: Sequence[int] = (),
) -> ir.Value:
    """`tensor.extract_slice` typed `result` (dims in `drop` are size-1 dims left out)."""
    x_t = tensor_type(x)
    sizes = [folded(s) for s in sizes]
    keep = [d for d in range(x_t.rank) if d not in drop]
    for j, d in enumerate(keep):  # a size the FX type knows is static
        if not result.is_dynamic_dim(j):
            sizes[d] = result.get_dim_size(j)
    if any(isinstance(s, int) and s == 0 for s in sizes):
        # Nothing to read (and the verifier rejects any offset into a static empty dim).
        return rw.empty(result, dim_sizes(rw, result, [sizes[d] for d in keep]))
    dyn_off, st_off = _mixed(rw, offsets)
    dyn_size, st_size = _mixed(rw, sizes)
    dyn_str, st_str = _mixed(rw, strides)
    built = ir.RankedTensorType.get([st_size[d] for d in keep], x_t.element_type)
    with rw.at():
        out = tensor.ExtractSliceOp(
            built, x, dyn_off, dyn_size, dyn_str, st_off, st_size, st_str
        ).result
    return cast_to(rw, out, result)


def insert_slice(
    rw: LoweringRewriter,
    src: ir.Value,
    dest: ir.Value,
    offsets: Sequence[Size],
    strides: Sequence[Size] | None = None,
    drop: Sequence[int] = (),
) -> ir.Value:
    """`tensor.insert_slice` of all of `src` into `dest` at `offsets` (dims in `drop` are
    size-1 dims of the slice that `src` lacks)."""
    d_t, s_t = tensor_type(dest), tensor_type(src)
    src_sizes = iter(rw.sizes(src))
    sizes = [1 if d in drop else next(src_sizes) for d in range(d_t.rank)]
    strides = strides or [1] * d_t.rank
    if any(isinstance(folded(s), int) and folded(s) == 0 for s in sizes):
        return dest  # nothing to write
    dyn_off, st_off = _mixed(rw, offsets)
    dyn_size, st_size = _mixed(rw, sizes)
    dyn_str, st_str = _mixed(rw, strides)
    keep = [d for d in range(d_t.rank) if d not in drop]
    slice_t = ir.RankedTensorType.get([st_size[d] for d in keep], s_t.element_type)
    src = cast_to(rw, src, slice_t)
    # Copied into the window with linalg.copy: bufferization then writes in place, where a bare
    # insert_slice of a separate buffer becomes a strided memref.copy (a runtime-library call).
    with rw.at():
        window = tensor.ExtractSliceOp(
            slice_t, dest, dyn_off, dyn_size, dyn_str, st_off, st_size, st_str
        ).result
        src = linalg.copy(src, outs=[window])
        return tensor.InsertSliceOp(
            src, dest, dyn_off, dyn_size, dyn_str, st_off, st_size, st_str
        ).result


def _group_type(sizes: Sequence[Size], groups, elem) -> ir.RankedTensorType:
    shape = []
    for g in groups:
        dims = [folded(sizes[i]) for i in g]
        shape.append(DYN if any(not isinstance(s, int) for s in dims) else _prod(dims))
    return ir.RankedTensorType.get(shape, elem)


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def collapse(rw, x: ir.Value, groups: Sequence[Sequence[int]]) -> ir.Value:
    """`tensor.collapse_shape` by `groups` (its result type is implied)."""
    if all(len(g) == 1 for g in groups) and len(groups) == tensor_type(x).rank:
        return x
    t = _group_type(rw.sizes(x), groups, tensor_type(x).element_type)
    with rw.at():
        return tensor.CollapseShapeOp(t, x, reassociation(groups)).result


def expand(rw, x: ir.Value, groups, result: ir.RankedTensorType, sizes: Sequence[Size]):
    """`tensor.expand_shape` of `x` to `result`; `sizes` are the result's sizes (dynamic ones
    as values). `x` is cast first where its dims disagree with what the groups imply."""
    if result.rank == 0 and tensor_type(x).rank:  # from all-1 dims: a collapse, in fact
        return cast_to(rw, collapse(rw, x, []), result)
    if all(len(g) == 1 for g in groups) and len(groups) == result.rank:
        return cast_to(rw, x, result)
    sizes = dim_sizes(rw, result, sizes)
    x = cast_to(rw, x, _group_type(sizes, groups, result.element_type))
    dynamic, static = _mixed(rw, sizes)
    with rw.at():
        return tensor.ExpandShapeOp(result, x, reassociation(groups), dynamic, static).result


def gather(
    rw: LoweringRewriter,
    source: ir.Value,
    result: ir.RankedTensorType,
    sizes: Sequence[Size],
    source_index: Callable[[list[ir.Value]], list[ir.Value]],
) -> ir.Value:
    """A `linalg.generic` over `result` whose element at index `i` is
    `source[source_index(i)]` (`tensor.extract`; `i` from `linalg.index`)."""
    init = rw.empty(result, dim_sizes(rw, result, sizes))
    index_t = ir.IndexType.get()

    def body(_out):
        idx = [
            linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result
            for d in range(result.rank)
        ]
        src_idx = source_index(idx)
        src_idx = [arith.constant(index_t, v) if isinstance(v, int) else v for v in src_idx]
        return tensor.ExtractOp(source, src_idx).result

    maps = [ir.AffineMap.get_identity(result.rank)]
    return rw.generic([], [init], maps, [PARALLEL] * result.rank, body)[0]


def body_const(v: int) -> ir.Value:
    """An index constant inside a region body (the insertion point is the body)."""
    return arith.constant(ir.IndexType.get(), v)


def body_value(v: Size) -> ir.Value:
    return body_const(v) if isinstance(v, int) else v


def located(fn):
    """Runs a rule under the op's location (types and attributes built outside `rw.at()`
    need a context)."""

    @functools.wraps(fn)
    def rule(op, rw):
        with rw.op.location:
            return fn(op, rw)

    return rule

"""Tensor plumbing shared by the convolution, pooling and distance lowerings.

Sizes are mixed: Python ints when static, `index` values when dynamic; every helper folds the
static case so that fully static programs carry no index arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ..ir import reassociation
from .builder import PARALLEL, LoweringRewriter, tensor_type

Size = int | ir.Value
DYN = ir.ShapedType.get_dynamic_size()


def f32_if_reduced(t: ir.Type) -> ir.Type:
    """ATen's opmath type: f16/bf16 compute in f32."""
    if isinstance(t, (ir.F16Type, ir.BF16Type)):
        return ir.F32Type.get(t.context)
    return t


def ttype(shape: Sequence[Size], e: ir.Type) -> ir.RankedTensorType:
    """A tensor type whose dims are static where `shape` holds ints."""
    dims = [s if isinstance(s, int) else DYN for s in shape]
    return ir.RankedTensorType.get(dims, e, loc=ir.Location.unknown(e.context))


def result_sizes(rw: LoweringRewriter, i: int, compute) -> list[Size]:
    """The sizes of result `i`: static ones from its type, `compute(d)` for a `?` dim."""
    t = tensor_type(rw.op.results[i])
    return [compute(d) if t.is_dynamic_dim(d) else t.get_dim_size(d) for d in range(t.rank)]


# -- index arithmetic (folded when static) --------------------------------------------------------
def add(rw, a: Size, b: Size) -> Size:
    return rw.index_arith(arith.AddIOp, a, b)


def sub(rw, a: Size, b: Size) -> Size:
    return rw.index_arith(arith.SubIOp, a, b)


def mul(rw, a: Size, b: Size) -> Size:
    return rw.index_arith(arith.MulIOp, a, b)


def floordiv(rw, a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return rw.index_arith(arith.FloorDivSIOp, a, b)


def ceildiv(rw, a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    # Non-negative operands here; arith.ceildivsi has no kernel in the runtime's scalar glue.
    return floordiv(rw, add(rw, a, sub(rw, b, 1)), b)


def smax(rw, a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return rw.index_arith(arith.MaxSIOp, a, b)


def smin(rw, a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return rw.index_arith(arith.MinSIOp, a, b)


def _mixed(rw, values: Sequence[Size], dynamic_marker: int):
    static = [v if isinstance(v, int) else dynamic_marker for v in values]
    dynamic = [rw._index(v) for v in values if not isinstance(v, int)]
    return dynamic, static


# -- tensor ops -----------------------------------------------------------------------------------
def empty(rw, shape: Sequence[Size], e: ir.Type) -> ir.Value:
    return rw.empty(ttype(shape, e), shape)


def full(rw, shape: Sequence[Size], e: ir.Type, value) -> ir.Value:
    return rw.full(ttype(shape, e), shape, value)


def pad(rw, x: ir.Value, low: Sequence[Size], high: Sequence[Size], value) -> ir.Value:
    """`x` surrounded by `low`/`high` elements of the Python number `value`: one fill of the
    padded tensor, then `x` placed inside. (Filling only the border slabs saved train_cnn's
    memsets on the CPU, but `triton-fold-padding` reads a pad as one fill + one insert, and a
    Triton conv then lost its in-place padded reads: kept as one fill until that pass takes
    slabs.)"""
    if all(isinstance(v, int) and v == 0 for v in (*low, *high)):
        return x
    sizes = rw.sizes(x)
    out = [add(rw, add(rw, s, lo), hi) for s, lo, hi in zip(sizes, low, high)]
    dest = full(rw, out, tensor_type(x).element_type, value)
    return place(rw, x, dest, low)


def place(rw, x: ir.Value, dest: ir.Value, offsets, strides=None) -> ir.Value:
    """`dest` with `x` written at `offsets` (with `strides`): an identity `linalg.generic` copy
    into the slice, which bufferization writes in place and the CPU loops stage runs as vector
    loops (a `linalg.copy` became scalar loops: train_cnn's padded grad_output copies)."""
    sizes = rw.sizes(x)
    window = extract_slice(rw, dest, offsets, sizes, strides)
    same = ir.AffineMap.get_identity(tensor_type(x).rank)
    copied = rw.generic([x], [window], [same, same], [PARALLEL] * len(sizes), lambda a, _: a)[0]
    return insert_slice(rw, copied, dest, offsets, strides)


def extract_slice(rw, x, offsets, sizes, strides=None) -> ir.Value:
    strides = strides or [1] * len(sizes)
    doff, soff = _mixed(rw, offsets, ir.ShapedType.get_dynamic_stride_or_offset())
    dsz, ssz = _mixed(rw, sizes, DYN)
    dst, sst = _mixed(rw, strides, ir.ShapedType.get_dynamic_stride_or_offset())
    with rw.at():
        rt = ttype(sizes, tensor_type(x).element_type)
        return tensor.extract_slice(rt, x, doff, dsz, dst, soff, ssz, sst)


def insert_slice(rw, x, dest, offsets, strides=None) -> ir.Value:
    sizes = rw.sizes(x)
    strides = strides or [1] * len(sizes)
    doff, soff = _mixed(rw, offsets, ir.ShapedType.get_dynamic_stride_or_offset())
    dsz, ssz = _mixed(rw, sizes, DYN)
    dst, sst = _mixed(rw, strides, ir.ShapedType.get_dynamic_stride_or_offset())
    with rw.at():
        return tensor.insert_slice(x, dest, doff, dsz, dst, soff, ssz, sst)


def expand(rw, x: ir.Value, groups: Sequence[Sequence[int]], shape: Sequence[Size]) -> ir.Value:
    """`tensor.expand_shape` of `x` to `shape` (mixed sizes), dims grouped by `groups`."""
    e = tensor_type(x).element_type
    dyn, static = _mixed(rw, shape, DYN)
    with rw.at():
        return tensor.expand_shape(ttype(shape, e), x, reassociation(groups), dyn, static)


def collapse(rw, x: ir.Value, groups: Sequence[Sequence[int]]) -> ir.Value:
    t = tensor_type(x)
    shape = []
    for g in groups:
        dims = [t.get_dim_size(d) for d in g]
        shape.append(DYN if any(t.is_dynamic_dim(d) for d in g) else _prod(dims))
    with rw.at():
        rt = ir.RankedTensorType.get(shape, t.element_type)
        return tensor.collapse_shape(rt, x, reassociation(groups))


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def identity(rank: int) -> ir.AffineMap:
    return ir.AffineMap.get_identity(rank)


def dim(i: int) -> ir.AffineExpr:
    return ir.AffineDimExpr.get(i)


def amap(rank: int, exprs: Sequence) -> ir.AffineMap:
    return ir.AffineMap.get(
        rank, 0, [ir.AffineConstantExpr.get(e) if isinstance(e, int) else e for e in exprs]
    )


def index(i: int) -> ir.Value:
    """`linalg.index i` (inside a generic body)."""
    return linalg.IndexOp(i).result


def window_generic(rw, inputs, input_maps, init, n_red: int, red_sizes, body, n_out=1):
    """A generic over `init`'s dims (parallel) followed by `n_red` reduction dims of
    `red_sizes`: a `tensor.empty` of those sizes (never read) gives their extent. `body(idx,
    *ins, *accs)` gets the `linalg.index` values of all dims first."""
    inits = list(init) if isinstance(init, (list, tuple)) else [init]
    rank = tensor_type(inits[0]).rank
    total = rank + n_red
    window = empty(rw, red_sizes, ir.IndexType.get())
    maps = [
        *input_maps,
        amap(total, [dim(rank + i) for i in range(n_red)]),
        *[amap(total, [dim(i) for i in range(rank)])] * len(inits),
    ]
    iters = [PARALLEL] * rank + [linalg.IteratorType.reduction] * n_red
    n_in = len(inputs)

    def region(*args):
        idx = [index(i) for i in range(total)]
        return body(idx, *args[:n_in], *args[n_in + 1 :])

    out = rw.generic([*inputs, window], inits, maps, iters, region)
    return out if n_out > 1 else out[0]


def icst(v: int) -> ir.Value:
    """An index constant (inside a region)."""
    return arith.constant(ir.IndexType.get(), v)


def ival(v) -> ir.Value:
    """An index value: an int becomes a constant (inside a region), a Value stays."""
    return icst(v) if isinstance(v, int) else v


def to_index(rw, v: Size) -> ir.Value:
    """`v` as an `index` value (a constant before the op when static)."""
    with rw.at():
        return rw._index(v)

"""Shared builders of the reduction family: reducing generics, keepdim views, accumulator types.

A reduction is one `linalg.generic` whose loops are the input's dims, the reduced ones with
`reduction` iterators; its outputs have the kept dims only (keepdim is a `tensor.expand_shape`
view of that). Builders here insert at the current insertion point, so that they also work inside
an `scf.for` body; rules wrap them in `with rw.at():`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from .builder import PARALLEL, REDUCTION, elem, is_float, is_int, tensor_type, width
from .elementwise_core import broadcast_map

DYN = ir.ShapedType.get_dynamic_size()

# float32 sums accumulate in float64: torch's cascade summation is far more accurate than a
# sequential f32 loop, and eager comparisons use rtol 1.3e-6 (measured: an f32 loop fails from
# ~1e4 terms).
F32_SUM_IN_F64 = True


def supported(*types) -> bool:
    """Signless ints, bools and real floats; unsigned and complex are left to the fallback."""
    for t in types:
        e = elem(t)
        if is_float(e):
            continue
        if not is_int(e) or not ir.IntegerType(e).is_signless:
            return False
    return True


def acc_type(t: ir.Type, sums: bool = True) -> ir.Type:
    """The accumulator of a sum (or other float arithmetic) producing `t`: reduced floats in
    f32, as ATen's opmath; f32 sums in f64 (see F32_SUM_IN_F64)."""
    t = elem(t)
    if isinstance(t, (ir.F16Type, ir.BF16Type)):
        return ir.F32Type.get()
    if sums and F32_SUM_IN_F64 and isinstance(t, ir.F32Type):
        return ir.F64Type.get()
    return t


def compute_float(t: ir.Type) -> ir.Type:
    """The element-wise compute type of a float result: reduced floats in f32."""
    return acc_type(t, sums=False)


def norm_dims(dims, rank: int) -> list[int]:
    """Sorted, non-negative reduced dims; None or [] means every dim (a 0-d tensor has none)."""
    if rank == 0:
        return []
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({int(d) % rank for d in dims})


def shape_of(t: ir.RankedTensorType) -> list[int]:
    return [DYN if t.is_dynamic_dim(d) else t.get_dim_size(d) for d in range(t.rank)]


def ranked(shape: Sequence[int], element: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element)


def dims_map(rank: int, dims: Sequence[int]) -> ir.AffineMap:
    return ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in dims])


def empty(t: ir.RankedTensorType, sizes: Sequence) -> ir.Value:
    """`tensor.empty` at the current insertion point; `sizes` ints or index values."""
    mixed = []
    for d, s in enumerate(sizes):
        if not t.is_dynamic_dim(d):
            mixed.append(t.get_dim_size(d))
        elif isinstance(s, ir.Value):
            mixed.append(s)
        else:
            mixed.append(arith.constant(ir.IndexType.get(), s))
    return tensor.EmptyOp(mixed, t.element_type).result


def constant(value, t: ir.Type) -> ir.Value:
    if is_float(t):
        return arith.constant(t, float(value))
    if isinstance(t, ir.IndexType):
        return arith.constant(t, int(value))
    bits = width(t)
    if bits == 1:
        return arith.ConstantOp(t, ir.IntegerAttr.get(t, 1 if value else 0)).result
    v = int(value) & ((1 << bits) - 1)
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return arith.ConstantOp(t, ir.IntegerAttr.get(t, v)).result


def full(t: ir.RankedTensorType, sizes: Sequence, value) -> ir.Value:
    return linalg.fill(constant(value, t.element_type), outs=[empty(t, sizes)])


def generic(inputs, outputs, maps, iterators, body: Callable) -> list[ir.Value]:
    """A `linalg.generic` at the current insertion point; `body(*args)` returns the yields."""
    op = linalg.GenericOp_(list(inputs), list(outputs), list(maps), list(iterators))
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        out = body(*block.arguments)
        out = [out] if isinstance(out, ir.Value) else list(out)
        linalg.YieldOp(out)
    return list(op.results)


def size(v: ir.Value, d: int):
    """Size `d` of `v`: an int, else an index value traced back through the ops that made `v`
    (a `tensor.dim` only of values that are not built here: compile()'s partition hoists
    `tensor.dim` ops to the start of their segment)."""
    t = tensor_type(v)
    if not t.is_dynamic_dim(d):
        return t.get_dim_size(d)
    traced = _traced_size(v, d)
    if traced is not None:
        return traced
    return tensor.DimOp(v, arith.constant(ir.IndexType.get(), d)).result


def _dynamic_position(t: ir.RankedTensorType, d: int) -> int:
    return sum(1 for k in range(d) if t.is_dynamic_dim(k))


def _traced_size(v: ir.Value, d: int):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation
    t = tensor_type(v)
    if op.name == "tensor.empty":
        return op.operands[_dynamic_position(t, d)]
    if op.name == "tensor.expand_shape":
        return op.operands[1 + _dynamic_position(t, d)]
    if op.name == "tensor.collapse_shape":
        groups = [
            [ir.IntegerAttr(i).value for i in g]
            for g in ir.ArrayAttr(op.attributes["reassociation"])
        ]
        src = op.operands[0]
        total = None
        for k in groups[d]:
            s = size(src, k)
            s = arith.constant(ir.IndexType.get(), s) if isinstance(s, int) else s
            total = s if total is None else arith.muli(total, s)
        return total
    if op.name in ("linalg.generic", "linalg.fill", "linalg.transpose", "linalg.broadcast"):
        n_out = len(op.results)
        outs = list(op.operands)[len(op.operands) - n_out :]
        index = next(i for i, r in enumerate(op.results) if r == v)
        return size(outs[index], d)
    return None


def sizes(v: ir.Value) -> list:
    return [size(v, d) for d in range(tensor_type(v).rank)]


def reduce(
    x: ir.Value,
    dims: Sequence[int],
    accs: Sequence[tuple[ir.Type, object]],
    body: Callable,
    per_output: Sequence[ir.Value] = (),
    per_input: Sequence[ir.Value] = (),
    input_maps: Sequence[ir.AffineMap] | None = None,
) -> list[ir.Value]:
    """Reduces `x` over `dims` into one output per `(element type, initial value)` of `accs`.

    `per_input` tensors broadcast against `x` (numpy style, from the right); `per_output` ones
    have the kept dims (like the outputs, e.g. a mean read back). `body(x, *per_input,
    *per_output, *accs)` returns the new accumulators. `input_maps` replace the broadcast maps
    of `per_input`."""
    xt = tensor_type(x)
    rank = xt.rank
    kept = [d for d in range(rank) if d not in dims]
    out_shape = [shape_of(xt)[d] for d in kept]
    out_sizes = [size(x, d) for d in kept]
    outs = [full(ranked(out_shape, t), out_sizes, init) for t, init in accs]
    out_map = dims_map(rank, kept)
    maps = [ir.AffineMap.get_identity(rank)]
    if input_maps is None:
        input_maps = [broadcast_map(tensor_type(t), xt) for t in per_input]
    maps += list(input_maps)
    maps += [out_map] * (len(per_output) + len(outs))
    iters = [REDUCTION if d in dims else PARALLEL for d in range(rank)]
    return generic([x, *per_input, *per_output], outs, maps, iters, body)


def elementwise(inputs: Sequence[ir.Value], result: ir.RankedTensorType, body, like=None):
    """A parallel generic over `result`'s shape; inputs broadcast against it. `like` gives the
    dynamic sizes (default: the first input of the full rank)."""
    like = (
        like if like is not None else next(v for v in inputs if tensor_type(v).rank == result.rank)
    )
    init = empty(result, sizes(like))
    maps = [broadcast_map(tensor_type(v), result) for v in inputs]
    maps.append(ir.AffineMap.get_identity(result.rank))
    return generic(inputs, [init], maps, [PARALLEL] * result.rank, body)[0]


def expand_to(v: ir.Value, result: ir.RankedTensorType, dims: Sequence[int]) -> ir.Value:
    """The keepdim view of a reduction result `v`: size-1 dims inserted at `dims`."""
    vt = tensor_type(v)
    if vt.rank == result.rank:
        return v
    kept = [d for d in range(result.rank) if d not in dims]
    groups: list[list[int]] = [[] for _ in kept]
    current = 0
    for d in range(result.rank):
        if d in kept:
            current = kept.index(d)
        if groups:
            groups[current].append(d)
    dyn = [size(v, kept.index(d)) for d in range(result.rank) if result.is_dynamic_dim(d)]
    return tensor.ExpandShapeOp(result, v, groups, dyn, shape_of(result)).result


def collapse(v: ir.Value, groups: Sequence[Sequence[int]]) -> ir.Value:
    """`tensor.collapse_shape` of `v` by `groups` (static sizes multiply, any `?` gives `?`)."""
    t = tensor_type(v)
    shape = []
    for g in groups:
        n = 1
        for d in g:
            if t.is_dynamic_dim(d):
                n = DYN
                break
            n *= t.get_dim_size(d)
        shape.append(n)
    return tensor.CollapseShapeOp(
        ranked(shape, t.element_type), v, [list(g) for g in groups]
    ).result


def expand(v: ir.Value, groups, shape: Sequence[int], dyn_sizes: Sequence[ir.Value]):
    """`tensor.expand_shape` of `v` into `shape`; `dyn_sizes` are the `?` sizes in order."""
    t = ranked(shape, tensor_type(v).element_type)
    return tensor.ExpandShapeOp(
        t, v, [list(g) for g in groups], list(dyn_sizes), list(shape)
    ).result


def count(x: ir.Value, dims: Sequence[int], t: ir.Type) -> ir.Value:
    """The number of elements reduced (product of the sizes of `dims`) as a float of type t."""
    n, dyn = 1, None
    for d in dims:
        s = size(x, d)
        if isinstance(s, int):
            n *= s
        else:
            dyn = s if dyn is None else arith.muli(dyn, s)
    if dyn is None:
        return constant(n, t)
    if n != 1:
        dyn = arith.muli(dyn, arith.constant(ir.IndexType.get(), n))
    as_int = arith.index_cast(ir.IntegerType.get_signless(64), dyn)
    return arith.sitofp(t, as_int)


def add(a: ir.Value, b: ir.Value) -> ir.Value:
    if is_float(a.type):
        return arith.addf(a, b)
    return arith.ori(a, b) if width(a.type) == 1 else arith.addi(a, b)


def mul(a: ir.Value, b: ir.Value) -> ir.Value:
    if is_float(a.type):
        return arith.mulf(a, b)
    return arith.andi(a, b) if width(a.type) == 1 else arith.muli(a, b)


def lowest(t: ir.Type):
    """The identity of max: -inf, or the smallest signed integer."""
    return float("-inf") if is_float(t) else -(1 << (width(t) - 1))


def highest(t: ir.Type):
    return float("inf") if is_float(t) else (1 << (width(t) - 1)) - 1

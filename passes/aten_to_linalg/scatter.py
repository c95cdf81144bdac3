"""Scatters: `scatter`, `scatter_add`, `scatter_reduce`, `index_put`, `masked_scatter`.

Writes into `self` are sequential (duplicate indices accumulate, or the last write wins), which
`linalg.generic` cannot express: each is an `scf.for` nest over the index elements carrying the
output tensor, updated with `tensor.extract` / `tensor.insert` (bufferization makes that one
in-place buffer, copied from `self` once). Reduced floats combine in f32 and round every step,
as ATen's CPU scatter kernels do.
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, tensor

from . import indexing_mask
from .builder import PARALLEL, convert, elem, is_float, tensor_type
from .indexing_core import Advanced, as_index, const_index, loop_nest, signless, supported
from .registry import register_lowering

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def result_is_bool(op) -> bool:
    e = elem(op.results[0])
    return isinstance(e, ir.IntegerType) and ir.IntegerType(e).width == 1


def combine(kind: str, a: ir.Value, b: ir.Value, boolean: bool = False) -> ir.Value:
    """`a (kind) b` on scalars of one type; reduced floats through f32; bools (0/1 bytes) as
    logical or / and."""
    t = a.type
    if boolean:
        if kind in ("sum", "amax", "mean"):
            return arith.ori(a, b)
        return arith.andi(a, b)
    if is_float(t):
        f32 = ir.F32Type.get() if isinstance(t, (ir.F16Type, ir.BF16Type)) else t
        x, y = convert(a, f32), convert(b, f32)
        fn = {
            "sum": arith.addf,
            "mean": arith.addf,
            "prod": arith.mulf,
            "amax": arith.maximumf,
            "amin": arith.minimumf,
        }[kind]
        return convert(fn(x, y), t)
    fn = {
        "sum": arith.addi,
        "mean": arith.addi,
        "prod": arith.muli,
        "amax": arith.maxsi,
        "amin": arith.minsi,
    }[kind]
    return fn(a, b)


def identity(kind: str, t: ir.Type, boolean: bool = False):
    """The Python value reduction `kind` starts from in element type `t`."""
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    if boolean:
        return 0 if kind == "amax" else 1
    if is_float(t):
        return -math.inf if kind == "amax" else math.inf
    bits = ir.IntegerType(t).width
    return -(1 << (bits - 1)) if kind == "amax" else (1 << (bits - 1)) - 1


def _along(ivs, dim, index_value, unsigned):
    """`ivs` with the coordinate along `dim` read from the index tensor (a 0-d self: none)."""
    return [
        as_index(index_value, unsigned=unsigned) if d == dim else iv for d, iv in enumerate(ivs)
    ]


def scatter_into(rw, out, dim, index, value, kind=None, boolean=False):
    """`out` with `value` (a tensor read at the index element's coordinates, or a scalar)
    written at index[...] along `dim`; `kind` combines with what is there."""

    index, uns = signless(rw, index)  # callers checked that it is not unsigned

    def body(ivs, carried):
        (acc,) = carried
        i = tensor.ExtractOp(index, list(ivs)).result
        where = _along(list(ivs), dim, i, uns) if tensor_type(out).rank else []
        if tensor_type(out).rank == 1 and not ivs:  # a 0-d index into a 1-d tensor
            where = _along([None], 0, i, uns)
        v = (
            tensor.ExtractOp(value, list(ivs)).result
            if isinstance(value, ir.Value) and (isinstance(value.type, ir.RankedTensorType))
            else value
        )
        if kind is not None:
            v = combine(kind, tensor.ExtractOp(acc, where).result, v, boolean)
        return [tensor.InsertOp(v, acc, where).result]

    if not isinstance(value, ir.Value):
        value = rw.const(value, tensor_type(out).element_type)
    return loop_nest(rw, rw.sizes(index), [out], body)[0]


def _scatter_args(rw):
    """(self, index, dim), or None for unsigned (uint8) indices (left to eager)."""
    self_, index, dim = rw.args["self"], rw.args["index"], rw.args["dim"]
    if signless(rw, index)[0] is None:
        return None
    return self_, index, dim % max(tensor_type(self_).rank, 1)


@register_lowering("aten.scatter.src")
def lower_scatter_src(op, rw):
    """aten.scatter.src -> scf.for, tensor.extract, tensor.insert"""
    if (args := _scatter_args(rw)) is None:
        return None
    self_, index, dim = args
    if not supported(self_, rw.args["src"]):
        return None
    return scatter_into(rw, self_, dim, index, rw.args["src"])


@register_lowering("aten.scatter.value")
def lower_scatter_value(op, rw):
    """aten.scatter.value -> scf.for, tensor.insert"""
    if (args := _scatter_args(rw)) is None:
        return None
    self_, index, dim = args
    value = rw.args["value"]
    if not supported(self_) or isinstance(value, complex):
        return None
    return scatter_into(rw, self_, dim, index, value)


@register_lowering("aten.scatter_add")
def lower_scatter_add(op, rw):
    """aten.scatter_add -> scf.for, tensor.extract, tensor.insert"""
    if (args := _scatter_args(rw)) is None:
        return None
    self_, index, dim = args
    if not supported(self_, rw.args["src"]):
        return None
    return scatter_into(rw, self_, dim, index, rw.args["src"], "sum", result_is_bool(op))


@register_lowering("aten.scatter_reduce.two")
def lower_scatter_reduce(op, rw):
    """aten.scatter_reduce.two -> scf.for, tensor.extract, tensor.insert, linalg.generic (mean)"""
    if (args := _scatter_args(rw)) is None:
        return None
    self_, index, dim = args
    src, kind = rw.args["src"], rw.args["reduce"]
    include_self = rw.args.get("include_self", True)
    boolean = result_is_bool(op)
    if not supported(self_, src) or kind not in REDUCTIONS or (boolean and kind == "mean"):
        return None
    t = tensor_type(self_).element_type
    out = self_
    if not include_self:
        out = scatter_into(rw, out, dim, index, identity(kind, t, boolean))
    out = scatter_into(rw, out, dim, index, src, kind, boolean)
    if kind != "mean":
        return out
    i64 = ir.IntegerType.get_signless(64, context=t.context)
    with rw.at():
        counts_type = ir.RankedTensorType.get(tensor_type(self_).shape, i64)
    counts = rw.full(counts_type, rw.sizes(self_), 1 if include_self else 0)
    counts = scatter_into(rw, counts, dim, index, 1, "sum")
    rank = tensor_type(self_).rank
    identity_map = ir.AffineMap.get_identity(rank)

    def divide(x, n, _out):
        n = arith.maxsi(n, arith.constant(i64, 1))  # untouched elements keep their value
        if is_float(t):
            f32 = ir.F32Type.get() if isinstance(t, (ir.F16Type, ir.BF16Type)) else t
            return convert(arith.divf(convert(x, f32), convert(n, f32)), t)
        return floor_div(x, convert(n, x.type))

    init = rw.empty(rw.result_type(), rw.sizes(self_))
    return rw.generic([out, counts], [init], [identity_map] * 3, [PARALLEL] * rank, divide)[0]


def floor_div(a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.floordivsi(a, b)


@register_lowering("aten.index_put")
def lower_index_put(op, rw):
    """aten.index_put -> scf.for, tensor.extract, tensor.insert"""
    self_, values = rw.args["self"], rw.args["values"]
    indices, accumulate = rw.args["indices"], rw.args.get("accumulate", False)
    if not supported(self_, values) or all(i is None for i in indices):
        return None
    converted = indexing_mask.masks_as_indices(op, rw, indices)
    if converted is None:
        return None
    adv = Advanced(rw, self_, *converted)
    sizes = adv.sizes()
    vt = tensor_type(values)
    boolean = result_is_bool(op)
    t = tensor_type(self_).element_type
    # values broadcast to the indexed shape from the right; a static 1 reads element 0
    offset = len(sizes) - vt.rank
    broadcast = [
        not vt.is_dynamic_dim(i) and vt.get_dim_size(i) == 1 and sizes[i + offset] != 1
        for i in range(vt.rank)
    ]

    def body(ivs, carried):
        (acc,) = carried
        where = adv.self_coords(ivs, adv.extract_indices(ivs))
        pos = [const_index(0) if broadcast[i] else ivs[i + offset] for i in range(vt.rank)]
        v = convert(tensor.ExtractOp(values, pos).result, t)
        if accumulate:
            v = combine("sum", tensor.ExtractOp(acc, where).result, v, boolean)
        return [tensor.InsertOp(v, acc, where).result]

    return loop_nest(rw, sizes, [self_], body)[0]

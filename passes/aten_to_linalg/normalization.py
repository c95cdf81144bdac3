"""Layer, group and batch norm -> statistics reductions, then one normalising `linalg.generic`.

Statistics (`normalization_stats`) are two-pass: the mean, then the mean of squared deviations
(biased, as torch normalises); the normalisation itself computes in the result's compute type.
Group norm works on an (N, G, C/G, HxW) view of the input (collapse/expand_shape, no copies).
"""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, math

from .builder import PARALLEL, convert, is_float, tensor_type
from .normalization_stats import f32_rows, stats, stats_f32
from .reductions_common import (
    acc_type,
    collapse,
    compute_float,
    dims_map,
    elementwise,
    empty,
    expand,
    expand_to,
    generic,
    ranked,
    shape_of,
    size,
    sizes,
    supported,
)
from .registry import register_lowering

_CONTRACT = "#arith.fastmath<contract>"


def normalize(x, mean, rstd, stat_map, weight, bias, affine_map, result, ct, scale_shift=False):
    """(x - mean) * rstd * weight + bias over x's shape, in `ct`, as `result`'s element type.
    `stat_map` reads mean/rstd, `affine_map` weight/bias (both optional). `scale_shift`: as
    fma(x, a, bias - mean * a) with a = rstd * weight, as ATen's CPU batch norm rounds."""
    rank = tensor_type(x).rank
    ident = ir.AffineMap.get_identity(rank)
    ins = [x, mean, rstd]
    maps = [ident, stat_map, stat_map]
    for v in (weight, bias):
        if v is not None:
            ins.append(v)
            maps.append(affine_map)

    def body(*args):
        v, m, r = (convert(a, ct) for a in args[:3])
        rest = list(args[3:-1])
        if scale_shift:
            w = convert(rest.pop(0), ct) if weight is not None else None
            b = convert(rest.pop(0), ct) if bias is not None else None
            alpha = arith.mulf(r, w) if w is not None else r
            beta = arith.negf(arith.mulf(m, alpha))
            beta = arith.subf(b, arith.mulf(m, alpha)) if b is not None else beta
            return convert(math.fma(v, alpha, beta), result.element_type)
        # `contract`: the weight's multiply and the bias add fuse into one FMA
        contract = ir.Attribute.parse(_CONTRACT)
        y = arith.mulf(arith.subf(v, m), r)
        if weight is not None:
            y = arith.mulf(y, convert(rest.pop(0), ct), fastmath=contract)
        if bias is not None:
            y = arith.addf(y, convert(rest.pop(0), ct), fastmath=contract)
        return convert(y, result.element_type)

    init = empty(ranked(shape_of(tensor_type(x)), result.element_type), sizes(x))
    return generic(ins, [init], maps + [ident], [PARALLEL] * rank, body)[0]


def as_result(v: ir.Value, t: ir.RankedTensorType, dims) -> ir.Value:
    """Kept-dims statistic `v` converted to result type `t` (keepdim view over `dims`)."""
    vt = tensor_type(v)
    if vt.element_type != t.element_type:
        kept = ranked(shape_of(vt), t.element_type)
        v = elementwise([v], kept, lambda a, _o: convert(a, t.element_type), like=v)
    return expand_to(v, t, dims)


@register_lowering("aten.native_layer_norm")
def lower_layer_norm(op, rw):
    """aten.native_layer_norm -> linalg.generic(reductions: mean, squared deviations),
    linalg.generic(normalise), tensor.expand_shape"""
    a = rw.args
    x = a["input"]
    out_t = rw.result_type(0)
    if not supported(x.type) or not is_float(out_t.element_type):
        return None
    rank = tensor_type(x).rank
    axis = rank - len(a["normalized_shape"])
    dims = list(range(axis, rank))
    acc = acc_type(out_t.element_type)
    with rw.at():
        if f32_rows(x, dims, acc, _into_gelu(op)) and a["eps"] is not None:
            mean, rstd = stats_f32(x, dims, a["eps"])
        else:
            mean, rstd = stats(x, dims, acc, a["eps"])
        out = normalize(
            x,
            mean,
            rstd,
            dims_map(rank, range(axis)),
            a.get("weight"),
            a.get("bias"),
            dims_map(rank, dims),
            out_t,
            compute_float(out_t.element_type),
        )
        return (
            out,
            as_result(mean, rw.result_type(1), dims),
            as_result(rstd, rw.result_type(2), dims),
        )


def _into_gelu(op) -> bool:
    """The normalized result (result 0) is read by a GELU: an aten.gelu, or the generic it
    became (consumers are often lowered first), whose body computes an erf or tanh."""
    if os.environ.get("ATEN_MLIR_LN_GELU_F32", "1") == "0":  # A/B against the size rule
        return False
    for use in op.results[0].uses:
        user = use.owner
        if user.name == "aten.gelu":
            return True
        if user.name == "linalg.generic" and any(
            inner.name in ("math.erf", "math.tanh")
            for inner in user.regions[0].blocks[0].operations
        ):
            return True
    return False


def _channel_dims(rank: int) -> list[int]:
    return [0] + list(range(2, rank))


def _batch_norm_training(rw, x, weight, bias, eps):
    out_t = rw.result_type(0)
    rank = tensor_type(x).rank
    dims = _channel_dims(rank)
    e = out_t.element_type
    mean, rstd = stats(x, dims, acc_type(e), eps)
    half = isinstance(e, (ir.F16Type, ir.BF16Type))
    if half and (weight is None or tensor_type(weight).element_type == e):
        # ATen's CPU batch norm keeps the statistics in the parameter type (half or bfloat16
        # when the weight is): mean and 1/std are rounded to it before they normalise
        mean, rstd = (_rounded(v, e) for v in (mean, rstd))
    chan = dims_map(rank, [1])
    out = normalize(
        x, mean, rstd, chan, weight, bias, chan, out_t, compute_float(e), scale_shift=half
    )
    return out, as_result(mean, rw.result_type(1), []), as_result(rstd, rw.result_type(2), [])


def _rounded(v: ir.Value, e: ir.Type) -> ir.Value:
    """`v` (float accumulator values) rounded to `e` and back."""
    t = tensor_type(v)
    acc = t.element_type
    return elementwise(
        [v], ranked(shape_of(t), acc), lambda a, _o: convert(convert(a, e), acc), like=v
    )


def _batch_norm_eval(rw, x, weight, bias, running_mean, running_var, eps):
    """Normalises with the running statistics; the saved mean/rstd results are those (CUDA's and
    meta's shapes, which the result types give) or empty when the types say (0,) (CPU's)."""
    out_t = rw.result_type(0)
    rank = tensor_type(x).rank
    ct = compute_float(out_t.element_type)
    var_t = tensor_type(running_var)
    chan_t = ranked(shape_of(var_t), ct)

    def rstd_of(v, _o):
        one = arith.constant(ct, 1.0)
        return arith.divf(one, math.sqrt(arith.addf(convert(v, ct), arith.constant(ct, eps))))

    rstd = elementwise([running_var], chan_t, rstd_of)
    chan = dims_map(rank, [1])
    out = normalize(x, running_mean, rstd, chan, weight, bias, chan, out_t, ct)
    saved = []
    for i, v in ((1, running_mean), (2, rstd)):
        t = rw.result_type(i)
        if not t.is_dynamic_dim(0) and t.get_dim_size(0) == 0:
            saved.append(empty(t, [0]))
        else:
            saved.append(as_result(v, t, []))
    return out, *saved


def _batch_norm(op, rw):
    """Training (batch statistics) or eval (running statistics) batch norm, by the op's flag."""
    a = rw.args
    x = a["input"]
    if not supported(x.type) or not is_float(rw.result_type(0).element_type):
        return None
    training = a.get("training", False) or op.name.endswith(".no_stats")
    with rw.at():
        if training:
            # _native_batch_norm_legit(training=True) also updates running_mean/var in place;
            # that is not a value of this functional IR (export makes it a separate update)
            return _batch_norm_training(rw, x, a.get("weight"), a.get("bias"), a["eps"])
        return _batch_norm_eval(
            rw, x, a.get("weight"), a.get("bias"), a["running_mean"], a["running_var"], a["eps"]
        )


for _name in (
    "aten._native_batch_norm_legit",
    "aten._native_batch_norm_legit.no_stats",
    "aten._native_batch_norm_legit_no_training",
):
    register_lowering(
        _name,
        _batch_norm,
        summary=f"{_name} -> linalg.generic(reductions over N and spatial dims, normalise)",
    )


def group_view(rw, x: ir.Value, groups: int) -> ir.Value:
    """x (N, C, *) viewed as (N, G, C/G, HxW)."""
    rank = tensor_type(x).rank
    if rank == 2:
        x3 = expand(
            x,
            [[0], [1, 2]],
            shape_of(tensor_type(x)) + [1],
            [s for s in sizes(x) if isinstance(s, ir.Value)],
        )
    elif rank == 3:
        x3 = x
    else:
        x3 = collapse(x, [[0], [1], list(range(2, rank))])
    return split_channels(x3, groups, [[0], [1, 2], [3]])


def split_channels(v: ir.Value, groups: int, reassoc) -> ir.Value:
    """Expands dim 1 (C) of `v` into (G, C/G) by the reassociation `reassoc`."""
    vt = tensor_type(v)
    shape, dyn = [], []
    for d in range(vt.rank):
        s = size(v, d)
        if d == 1:
            if isinstance(s, int):
                shape += [groups, s // groups]
            else:
                shape += [groups, ir.ShapedType.get_dynamic_size()]
                dyn.append(arith.divsi(s, arith.constant(ir.IndexType.get(), groups)))
            continue
        shape.append(s if isinstance(s, int) else ir.ShapedType.get_dynamic_size())
        if isinstance(s, ir.Value):
            dyn.append(s)
    return expand(v, reassoc, shape, dyn)


def ungroup(out4: ir.Value, like: ir.Value) -> ir.Value:
    """The (N, G, C/G, HxW) `out4` back in the shape of `like` (N, C, *)."""
    rank = tensor_type(like).rank
    out3 = collapse(out4, [[0], [1, 2], [3]])
    if rank == 3:
        return out3
    if rank == 2:
        return collapse(out3, [[0], [1, 2]])
    dyn = [s for s in sizes(like) if isinstance(s, ir.Value)]
    shape = shape_of(tensor_type(like))
    return expand(out3, [[0], [1], list(range(2, rank))], shape, dyn)


@register_lowering("aten.native_group_norm")
def lower_group_norm(op, rw):
    """aten.native_group_norm -> tensor.collapse_shape/expand_shape (N, G, C/G, HxW),
    linalg.generic(reductions, normalise)"""
    a = rw.args
    x = a["input"]
    out_t = rw.result_type(0)
    if not supported(x.type) or not is_float(out_t.element_type):
        return None
    g = a["group"]
    if not isinstance(g, int):
        return None
    with rw.at():
        x4 = group_view(rw, x, g)
        mean, rstd = stats(x4, [2, 3], acc_type(out_t.element_type), a["eps"])
        w, b = (None if v is None else split_vector(v, g) for v in (a.get("weight"), a.get("bias")))
        out4_t = ranked(shape_of(tensor_type(x4)), out_t.element_type)
        out4 = normalize(
            x4,
            mean,
            rstd,
            dims_map(4, [0, 1]),
            w,
            b,
            dims_map(4, [1, 2]),
            out4_t,
            compute_float(out_t.element_type),
        )
        return (
            ungroup(out4, x),
            as_result(mean, rw.result_type(1), []),
            as_result(rstd, rw.result_type(2), []),
        )


def split_vector(v: ir.Value, groups: int) -> ir.Value:
    """A per-channel (C,) vector viewed as (G, C/G)."""
    s = size(v, 0)
    if isinstance(s, int):
        return expand(v, [[0, 1]], [groups, s // groups], [])
    per = arith.divsi(s, arith.constant(ir.IndexType.get(), groups))
    return expand(v, [[0, 1]], [groups, ir.ShapedType.get_dynamic_size()], [per])

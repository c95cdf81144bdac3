"""Random numbers: rand, randn, randperm and native_dropout from counter-based bits.

Each element's bits are splitmix64 of (seed, op stream, linear index) (see random_bits.py), so
results are reproducible under `torch.manual_seed` but are not torch's bit streams: tests check
statistics, never values.
"""

from __future__ import annotations

import math as pymath

from mlir import ir
from mlir.dialects import arith, linalg, math, scf, tensor

from .builder import PARALLEL, convert, elem, is_float
from .random_bits import bits, index_const, linear_index, seed_and_stream, stream_key, unit_float
from .registry import register_lowering


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _compute_type(t: ir.Type) -> ir.Type:
    """Reduced floats draw in f32 (rounded once on the store), as ATen's opmath does."""
    return t if isinstance(t, (ir.F32Type, ir.F64Type)) else ir.F32Type.get()


def _random_tensor(rw, draw):
    """One `linalg.generic` over the op's result whose element is `draw(key, lin, t, result)`."""
    result = rw.result_type()
    rt = result.element_type
    if not is_float(rt):
        return None
    sizes = list(rw.args["size"])
    if len(sizes) != result.rank:
        return None
    seed, stream = seed_and_stream(rw.op)
    init = rw.empty(result, sizes)

    def body(_out):
        key = stream_key(seed, stream)
        value = draw(key, linear_index(sizes), _compute_type(rt), rt)
        return convert(value, rt)

    ident = ir.AffineMap.get_identity(result.rank)
    return rw.generic([], [init], [ident], [PARALLEL] * result.rank, body)[0]


def _uniform(key, lin, t, result):
    return unit_float(bits(key, lin), t, result)


def _normal(key, lin, t, result):
    """Box-Muller: sqrt(-2 ln u1) * cos(2 pi u2) with u1 in (0, 1], u2 in [0, 1)."""
    if isinstance(t, ir.F64Type):
        two = arith.constant(_i64(), 2)
        z1 = bits(key, arith.muli(lin, two))
        z2 = bits(key, arith.addi(arith.muli(lin, two), arith.constant(_i64(), 1)))
        u1, u2 = unit_float(z1, t, t, plus_one=True), unit_float(z2, t, t)
    else:
        z = bits(key, lin)
        f32 = ir.F32Type.get()
        # 24 bits each from the high and middle of one 64-bit draw.
        u1 = unit_float(z, t, f32, plus_one=True)
        u2 = unit_float(arith.shli(z, arith.constant(_i64(), 24)), t, f32)
    radius = math.sqrt(arith.mulf(arith.constant(t, -2.0), math.log(u1)))
    return arith.mulf(radius, math.cos(arith.mulf(arith.constant(t, 2 * pymath.pi), u2)))


@register_lowering("aten.rand")
def lower_rand(op, rw):
    """aten.rand -> linalg.generic(linalg.index, splitmix64 bits, arith.sitofp)"""
    return _random_tensor(rw, _uniform)


@register_lowering("aten.randn")
def lower_randn(op, rw):
    """aten.randn -> linalg.generic(linalg.index, splitmix64 bits, math.log/sqrt/cos)"""
    return _random_tensor(rw, _normal)


@register_lowering("aten.randperm")
def lower_randperm(op, rw):
    """aten.randperm -> linalg.generic(iota), scf.for(Fisher-Yates: tensor.extract/insert)"""
    result = rw.result_type()
    rt = result.element_type
    if result.rank != 1 or not (is_float(rt) or isinstance(rt, ir.IntegerType)):
        return None
    if isinstance(rt, ir.IntegerType) and not ir.IntegerType(rt).is_signless:
        return None
    n = rw.args["n"]
    seed, stream = seed_and_stream(rw.op)
    init = rw.empty(result, [n])

    def iota(_out):
        return convert(arith.index_cast(_i64(), _linalg_index0()), rt)

    ident = ir.AffineMap.get_identity(1)
    perm = rw.generic([], [init], [ident], [PARALLEL], iota)[0]
    idx = ir.IndexType.get()
    with rw.at():
        n_value = rw._index(n)
        loop = scf.ForOp(index_const(0), n_value, index_const(1), [perm])
        with ir.InsertionPoint(loop.body):
            # Forward Fisher-Yates: position i takes a uniform pick among positions [i, n).
            i = loop.induction_variable
            (p,) = loop.inner_iter_args
            key = stream_key(seed, stream)
            z = arith.shrui(bits(key, arith.index_cast(_i64(), i)), arith.constant(_i64(), 1))
            left = arith.index_cast(_i64(), arith.subi(n_value, i))
            j = arith.addi(i, arith.index_cast(idx, arith.remui(z, left)))
            vi, vj = tensor.extract(p, [i]), tensor.extract(p, [j])
            p = tensor.insert(vj, p, [i])
            p = tensor.insert(vi, p, [j])
            scf.YieldOp([p])
    return loop.results[0]


def _linalg_index0():
    return linalg.IndexOp(0).result


@register_lowering("aten.native_dropout")
def lower_native_dropout(op, rw):
    """aten.native_dropout -> linalg.generic(splitmix64 bits, arith.cmpf, arith.mulf)"""
    x = rw.args["input"]
    p = float(rw.args["p"])
    train = rw.args.get("train")
    out_t, mask_t = rw.result_type(0), rw.result_type(1)
    xt = elem(x)
    if not is_float(xt):
        return None  # eager rejects it too (a float scale multiplied into an int tensor)
    sizes = rw.sizes(x)
    out_init = rw.empty(out_t, sizes)
    mask_init = rw.empty(mask_t, sizes)
    ident = ir.AffineMap.get_identity(out_t.rank)
    i8 = mask_t.element_type
    if train is not None and not train:

        def copy(v, _o, _m):
            return v, arith.constant(i8, 1)

        return rw.generic([x], [out_init, mask_init], [ident] * 3, [PARALLEL] * out_t.rank, copy)

    seed, stream = seed_and_stream(rw.op)
    ct = _compute_type(xt)
    keep_p = 1.0 - p
    scale = 0.0 if keep_p == 0 else 1.0 / keep_p

    def body(v, _o, _m):
        key = stream_key(seed, stream)
        u = unit_float(bits(key, linear_index(sizes)), ct, ct)
        # bernoulli(1 - p): u in [0, 1) keeps everything at p = 0 and nothing at p = 1.
        keep = arith.cmpf(arith.CmpFPredicate.OLT, u, arith.constant(ct, keep_p))
        m = arith.select(keep, arith.constant(ct, 1.0), arith.constant(ct, 0.0))
        # input.mul(mask).mul_(scale), literally: NaN * 0 stays NaN as in eager.
        y = arith.mulf(arith.mulf(convert(v, ct), m), arith.constant(ct, scale))
        return convert(y, out_t.element_type), convert(keep, i8)

    maps = [ident] * 3
    return rw.generic([x], [out_init, mask_init], maps, [PARALLEL] * out_t.rank, body)

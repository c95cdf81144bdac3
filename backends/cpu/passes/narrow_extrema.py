"""`cpu-narrow-extrema`: the lane loop of a `maximumf`/`minimumf` reduction of bf16 or f16
elements -> a loop over their bits as 16-bit integer keys (no conversion to f32 per element).

`cpu-vectorize-generics` widens each bf16 element to f32 and keeps a NaN-propagating f32
maximum: per 16 elements a widening (vpmovzxwd, vpslld), an ordered compare, an unordered
compare, a mask or and a blend. A bf16 softmax row's max loop (attention's scores) spent a
fifth of the row's time there. A 16-bit float's bits map to a signed key ordered as the floats
(-0 < +0, as `maximumf` orders them): a negative value's magnitude bits flipped,
`bits ^ ((bits >>s 15) >>u 1)`. Per 32 elements: three integer ops for the keys, `maxsi` and
`minsi` (vpmaxsw, vpminsw). NaNs: a positive NaN's key is above +inf's, so the maximum of the
keys is a NaN when one is there; a negative NaN's key is below -inf's, so the minimum of the
keys tells it (and the reverse for `minimumf`). The horizontal step `float_extrema` built
after the loop (f32 lanes as i32 keys, a NaN test) then reduces the 16-bit keys instead: the
row's extremum widened once, NaN when either key reduction passed an infinity's key. (If that
step is not recognized, the lanes are widened to f32 and it runs as it was.) The same value as
before for every input.

Matched: an `scf.for` with one `vector<N x f32>` iter_arg initialized to -inf (max) or +inf
(min) whose body is `vector.load` (16-bit floats), `arith.extf`, the extremum with the
iter_arg, `scf.yield`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf, vector

from aten_mlir.passes.ir import defined_functions, nested_ops
from aten_mlir.passes.registry import ModulePass, register_pass

# +inf's bits per 16-bit float type (NaNs are the magnitudes above it).
_INF_BITS = {"bf16": 0x7F80, "f16": 0x7C00}
_KINDS = {"arith.maximumf": float("-inf"), "arith.minimumf": float("inf")}


def _splat_float(v: ir.Value):
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None
    value = attr.get_splat_value()
    return ir.FloatAttr(value).value if isinstance(value, ir.FloatAttr) else None


def _match(loop: ir.Operation):
    """(load, extremum op, inf bits) of a 16-bit float extremum lane loop; else None."""
    if loop.name != "scf.for" or len(loop.results) != 1:
        return None
    body = loop.regions[0].blocks[0]
    ops = [o.operation for o in body.operations]
    if len(ops) != 4 or [o.name for o in ops[:2]] != ["vector.load", "arith.extf"]:
        return None
    load, widen, combine, yield_ = ops
    if combine.name not in _KINDS or _splat_float(loop.operands[3]) != _KINDS[combine.name]:
        return None
    acc = body.arguments[1]
    if sorted(map(str, combine.operands)) != sorted(map(str, [acc, widen.results[0]])):
        return None
    if list(widen.operands) != [load.results[0]] or list(yield_.operands) != [combine.result]:
        return None
    if len(list(load.results[0].uses)) != 1 or len(list(widen.results[0].uses)) != 1:
        return None
    narrow = str(ir.VectorType(load.results[0].type).element_type)
    if narrow not in _INF_BITS:
        return None
    return load, combine, _INF_BITS[narrow]


def _splat(t: ir.Type, value: int) -> ir.Value:
    if not isinstance(t, ir.VectorType):
        return arith.constant(t, value)
    attr = ir.IntegerAttr.get(t.element_type, value)
    return arith.constant(t, ir.DenseElementsAttr.get_splat(t, attr))


def _key(bits: ir.Value, t: ir.VectorType) -> ir.Value:
    """bits -> key and back (an involution): a negative float's low 15 bits flipped."""
    sign_fill = arith.shrsi(bits, _splat(t, 15))
    return arith.xori(bits, arith.shrui(sign_fill, _splat(t, 1)))


def _signed(value: int) -> int:
    return value - 0x10000 if value >= 0x8000 else value


def rewrite(loop: ir.Operation, load: ir.Operation, combine: ir.Operation, inf: int) -> None:
    with loop.location:
        _rewrite(loop, load, combine, inf)


def _rewrite(loop: ir.Operation, load: ir.Operation, combine: ir.Operation, inf: int) -> None:
    narrow_t = ir.VectorType(load.results[0].type)
    n = narrow_t.shape[0]
    keys_t = ir.VectorType.get([n], ir.IntegerType.get_signless(16))
    wide_t = ir.VectorType(loop.results[0].type)
    is_max = combine.name == "arith.maximumf"
    low, high = _signed((inf | 0x8000) ^ 0x7FFF), inf  # keys of -inf and +inf
    with ir.InsertionPoint(loop):
        # the extremum's key from the neutral, and the other side's from the other infinity
        best = _splat(keys_t, low if is_max else high)
        other = _splat(keys_t, high if is_max else low)
        new = scf.ForOp(*list(loop.operands)[:3], [best, other])
        with ir.InsertionPoint(new.body):
            row = load.clone()
            iv = loop.regions[0].blocks[0].arguments[0]
            for i, v in enumerate(row.operands):
                if v == iv:
                    row.operands[i] = new.induction_variable
            bits = vector.bitcast(keys_t, row.results[0])
            key = _key(bits, keys_t)
            acc, seen = new.inner_iter_args
            best_op, other_op = (arith.maxsi, arith.minsi) if is_max else (arith.minsi, arith.maxsi)
            scf.YieldOp([best_op(acc, key), other_op(seen, key)])
    if _finish_in_keys(loop.results[0], new, is_max, low, high):
        loop.erase()
        return
    with ir.InsertionPoint(loop):
        lanes = arith.extf(wide_t, vector.bitcast(narrow_t, _key(new.results[0], keys_t)))
        # a NaN of the other sign lies beyond the neutral infinity's key (the init)
        pred = arith.CmpIPredicate.slt if is_max else arith.CmpIPredicate.sgt
        beyond = arith.cmpi(pred, new.results[1], best)
        nan = ir.FloatAttr.get(wide_t.element_type, float("nan"))
        nans = arith.constant(wide_t, ir.DenseElementsAttr.get_splat(wide_t, nan))
        result = arith.select(beyond, nans, lanes)
    loop.results[0].replace_all_uses_with(result)
    loop.erase()


def _only_user(value: ir.Value, name: str):
    users = {u.owner for u in value.uses}
    if len(users) != 1:
        return None
    (user,) = users
    user = user.operation if hasattr(user, "operation") else user
    return user if user.name == name else None


def _horizontal(result: ir.Value):
    """The ops `float_extrema.reduce_extremum` built on the loop's lanes: (the integer
    reduction, the NaN or-reduction, the per-lane ops to erase, users first); else None."""
    users = {}
    for use in result.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        users[owner.name] = owner
    if sorted(users) != ["arith.bitcast", "arith.cmpf"] or len(list(result.uses)) != 3:
        return None
    bitcast = users["arith.bitcast"]
    of_bits = {}
    for use in bitcast.results[0].uses:  # the shift and the xor read the bits
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        of_bits[owner.name] = owner
    if sorted(of_bits) != ["arith.shrsi", "arith.xori"]:
        return None
    shrui = _only_user(of_bits["arith.shrsi"].results[0], "arith.shrui")
    xori = shrui and _only_user(shrui.results[0], "arith.xori")
    if xori is None or xori != of_bits["arith.xori"]:
        return None
    chain = [bitcast, of_bits["arith.shrsi"], shrui, xori]
    reduction = _only_user(xori.results[0], "vector.reduction")
    any_nan = _only_user(users["arith.cmpf"].results[0], "vector.reduction")
    if reduction is None or any_nan is None:
        return None
    return reduction, any_nan, [*reversed(chain), users["arith.cmpf"]]


def _finish_in_keys(result: ir.Value, new, is_max: bool, low: int, high: int) -> bool:
    """The horizontal step on the 16-bit keys (before: the lanes widened to f32 and reduced
    as i32 keys): the extremum's f32 i32-key and "some NaN" computed from the two key
    reductions; False (nothing built) if the horizontal ops are not `reduce_extremum`'s."""
    found = _horizontal(result)
    if found is None or os.environ.get("ATEN_MLIR_NARROW_FINISH", "1") == "0":  # (A/B knob)
        return False
    reduction, any_nan, dead = found
    i16 = ir.IntegerType.get_signless(16)
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(reduction):
        kinds = ("maxsi", "minsi") if is_max else ("minsi", "maxsi")
        best, other = (
            vector.reduction(i16, ir.Attribute.parse(f"#vector.kind<{k}>"), v)
            for k, v in zip(kinds, new.results)
        )
        narrow = ir.VectorType(new.body.operations[0].results[0].type).element_type
        value = arith.extf(ir.F32Type.get(), arith.bitcast(narrow, _key(best, i16)))
        # the i32 key `reduce_extremum` maps back (the same involution on 32 bits)
        bits = arith.bitcast(i32, value)
        sign_fill = arith.shrsi(bits, arith.constant(i32, 31))
        key32 = arith.xori(bits, arith.shrui(sign_fill, arith.constant(i32, 1)))
        lt, gt = arith.CmpIPredicate.slt, arith.CmpIPredicate.sgt
        beyond_low = arith.cmpi(lt, best if not is_max else other, arith.constant(i16, low))
        beyond_high = arith.cmpi(gt, best if is_max else other, arith.constant(i16, high))
        nan = arith.ori(beyond_low, beyond_high)
    reduction.results[0].replace_all_uses_with(key32)
    any_nan.results[0].replace_all_uses_with(nan)
    any_nan.erase()
    reduction.erase()
    for op in dead:
        op.erase()
    return True


@register_pass
@dataclass(frozen=True)
class NarrowExtrema(ModulePass):
    """scf.for {extf(load bf16/f16), maximumf/minimumf} -> scf.for over 16-bit integer keys
    (maxsi/minsi), the lanes widened once after the loop; NaN as before."""

    name: ClassVar[str] = "cpu-narrow-extrema"

    def run(self, module_op: ir.Operation) -> None:
        if os.environ.get("ATEN_MLIR_NARROW_EXTREMA", "1") == "0":  # A/B knob
            return
        with module_op.context:
            found = [
                (op, m)
                for func in defined_functions(module_op)
                for op in nested_ops(func)
                if (m := _match(op)) is not None
            ]
            for op, m in found:
                rewrite(op, *m)

"""Reductions over dims: sum, mean, prod, amax/amin, any, var -> reducing `linalg.generic`s.

The result dtype of the FX graph is the truth: inputs are converted to the accumulator of the
result type element by element (as torch converts to `dtype` before summing), and the kept-dims
accumulator is converted to the result and viewed with keepdim's size-1 dims.
"""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith, math

from .builder import convert, elem, is_float, is_unsigned_type, tensor_type
from .reductions_common import (
    acc_type,
    add,
    count,
    elementwise,
    expand_to,
    highest,
    lowest,
    mul,
    norm_dims,
    ranked,
    reduce,
    shape_of,
    supported,
)
from .registry import register_lowering


def result_elems(rw, i: int = 0) -> tuple[ir.Type, ir.Type]:
    """(the element type of result `i`, the element type it is stored as: i8 for bool). An
    unsigned result computes on its storage type (the same bits)."""
    stored = rw.result_type(i).element_type
    real = elem(rw.op.results[i].type)
    return (stored if is_unsigned_type(real) else real), stored


def to_result(v: ir.Value, real: ir.Type, stored: ir.Type) -> ir.Value:
    """Scalar `v` converted to the result dtype, then to its storage (bool -> 0/1 in i8)."""
    return convert(convert(v, real), stored)


def finish(x: ir.Value, dims, value, rw, i: int = 0, post=None) -> ir.Value:
    """Converts the kept-dims accumulator `value` to result `i` (after `post(scalar)`, if
    given) and views it with the result's keepdim shape. `value` may be a tuple of
    accumulators, combined by `post(*scalars)` in the same loop."""
    real, stored = result_elems(rw, i)
    rt = rw.result_type(i)
    values = value if isinstance(value, tuple) else (value,)
    vt = tensor_type(values[0])
    if len(values) > 1 or vt.element_type != stored or post is not None:

        def body(*scalars):
            # scalar math stays in the body: the runtime does not evaluate all arith ops
            a = post(*scalars[:-1]) if post else scalars[0]
            return to_result(a, real, stored)

        value = elementwise(list(values), ranked(shape_of(vt), stored), body, like=values[0])
    return expand_to(value, rt, dims)


def _accumulate(combine, x_conv, acc_t):
    return lambda a, s: combine(s, x_conv(a, acc_t))


def lower_fold(kind, dims_arg, op, rw):
    """sum / mean / prod: convert each element to the accumulator, fold, convert back."""
    a = rw.args
    x = a["self"]
    if not supported(x.type, rw.result_type()):
        return None
    dims = norm_dims(a.get(dims_arg) if dims_arg else None, tensor_type(x).rank)
    real, _ = result_elems(rw)
    acc = acc_type(real) if is_float(real) else real
    combine, init = (mul, 1) if kind == "prod" else (add, 0)
    unsigned = rw.is_unsigned(x)  # uint8 sums widen zero-extended

    def conv(v, t):
        return convert(v, t, unsigned)

    with rw.at():
        (r,) = reduce(x, dims, [(acc, init)], _accumulate(combine, conv, acc))
        if kind != "mean":
            return finish(x, dims, r, rw)
        n = count(x, dims, acc)
        return finish(x, dims, r, rw, post=lambda v: arith.divf(v, n))


for _name, _kind, _dims in [
    ("aten.sum.dim_IntList", "sum", "dim"),
    ("aten.mean", "mean", None),
    ("aten.mean.dim", "mean", "dim"),
    ("aten.prod", "prod", None),
    ("aten.prod.dim_int", "prod", "dim"),
]:
    _op = "arith.mulf/muli" if _kind == "prod" else "arith.addf/addi"
    register_lowering(
        _name,
        partial(lower_fold, _kind, _dims),
        summary=f"{_name} -> linalg.generic(reduction, {_op}), tensor.expand_shape",
        unsigned=_kind != "mean",
    )


def _max(a, b):
    return arith.maximumf(a, b) if is_float(a.type) else arith.maxsi(a, b)


def _min(a, b):
    return arith.minimumf(a, b) if is_float(a.type) else arith.minsi(a, b)


def lower_extreme(is_max, op, rw):
    """amax / amin in the input type; arith.maximumf/minimumf propagate NaN as torch does."""
    x = rw.args["self"]
    if not supported(x.type):
        return None
    t = tensor_type(x).element_type
    dims = norm_dims(rw.args.get("dim"), tensor_type(x).rank)
    init = lowest(t) if is_max else highest(t)
    fn = _max if is_max else _min
    if rw.is_unsigned(x):  # unsigned order on the stored bits: 0 and all ones are the ends
        init = 0 if is_max else -1
        fn = arith.maxui if is_max else arith.minui
    with rw.at():
        (r,) = reduce(x, dims, [(t, init)], lambda v, s: fn(s, v))
        return finish(x, dims, r, rw)


register_lowering(
    "aten.amax",
    partial(lower_extreme, True),
    summary="aten.amax -> linalg.generic(reduction, arith.maximumf/maxsi), tensor.expand_shape",
    unsigned=True,
)
register_lowering(
    "aten.amin",
    partial(lower_extreme, False),
    summary="aten.amin -> linalg.generic(reduction, arith.minimumf/minsi), tensor.expand_shape",
    unsigned=True,
)


def lower_any(op, rw):
    """Ors `x != 0` (NaN counts as true) into an i8 0/1 accumulator."""
    x = rw.args["self"]
    real, stored = result_elems(rw)
    if not supported(x.type) or not (isinstance(real, ir.IntegerType) and real.width == 1):
        return None  # any() of uint8 returns uint8
    dim = rw.args.get("dim")
    # any.dims with dim=[] reduces nothing (sum/amax/var read [] as every dim)
    dims = [] if dim == [] and op.name == "aten.any.dims" else norm_dims(dim, tensor_type(x).rank)
    i1 = ir.IntegerType.get_signless(1)

    def body(v, s):
        return arith.ori(s, convert(convert(v, i1), stored))

    with rw.at():
        (r,) = reduce(x, dims, [(stored, 0)], body)
        return finish(x, dims, r, rw)


for _name in ("aten.any", "aten.any.dim", "aten.any.dims"):
    register_lowering(
        _name,
        lower_any,
        summary=f"{_name} -> linalg.generic(reduction, arith.ori), tensor.expand_shape",
    )


def _var(rw, x, dims, correction):
    """(kept-dims f64 accumulators, `divide(*accumulators)` giving the variance, the mean).

    ATen's CPU kernel runs Welford in double for every float dtype, so an f32 std of values
    near 1e30 is finite (its variance is not) and a row of equal values has variance exactly 0.
    Two passes in f64 give both: the mean, then the squared deviations from it. The f64 sum of
    up to 2^29 equal f32 (or narrower) values is exact, so their mean is too; for f64 inputs
    the second pass also sums the deviations `d`, and `(sum d)^2 / n` is taken off (the
    corrected two-pass form), which cancels the rounding of the mean exactly."""
    acc = ir.F64Type.get()
    corrected = isinstance(tensor_type(x).element_type, ir.F64Type)
    (s,) = reduce(x, dims, [(acc, 0)], _accumulate(add, convert, acc))
    n = count(x, dims, acc)
    kept = ranked(shape_of(tensor_type(s)), acc)
    mean = elementwise([s], kept, lambda v, _o: arith.divf(v, n), like=s)

    def deviations(v, m, *sums):
        d = arith.subf(convert(v, acc), m)
        squares = arith.addf(sums[-1], arith.mulf(d, d))
        return (arith.addf(sums[0], d), squares) if corrected else squares

    inits = [(acc, 0)] * (2 if corrected else 1)
    sums = tuple(reduce(x, dims, inits, deviations, per_output=[mean]))

    def divide(*sums):
        ss = sums[-1]
        if corrected:
            # (sum d)^2 / n <= sum d^2: the max only stops a rounding below 0 (NaN stays NaN)
            ss = arith.maximumf(
                arith.subf(ss, arith.divf(arith.mulf(sums[0], sums[0]), n)),
                arith.constant(acc, 0.0),
            )
        # torch divides by max(N - correction, 0): inf/NaN when no degree of freedom is left
        dof = arith.subf(n, arith.constant(acc, float(correction)))
        return arith.divf(ss, arith.maximumf(dof, arith.constant(acc, 0.0)))

    return sums, divide, mean


def lower_var(take_sqrt, op, rw):
    """var / std (and their `_mean` forms): mean, then squared deviations, in f64; std takes
    the square root before rounding to the result type, as ATen does."""
    a = rw.args
    x = a["self"]
    if not supported(x.type) or not is_float(result_elems(rw)[0]):
        return None
    dims = norm_dims(a.get("dim"), tensor_type(x).rank)
    if "unbiased" in a:
        correction = 1 if a["unbiased"] else 0
    else:
        correction = 1 if a.get("correction") is None else a["correction"]
    with rw.at():
        sums, divide, mean = _var(rw, x, dims, correction)
        post = (lambda *v: math.sqrt(divide(*v))) if take_sqrt else divide
        var = finish(x, dims, sums, rw, 0, post=post)
        if len(op.results) == 1:
            return var
        return var, finish(x, dims, mean, rw, 1)


for _name, _sqrt in (
    ("aten.var.correction", False),
    ("aten.var.dim", False),
    ("aten.var_mean.correction", False),
    ("aten.std.correction", True),
    ("aten.std_mean.correction", True),
):
    _what = "square root of " if _sqrt else ""
    register_lowering(
        _name,
        partial(lower_var, _sqrt),
        summary=f"{_name} -> linalg.generic(reduction: sum, then squared deviations), "
        f"the {_what}their mean in f64",
    )

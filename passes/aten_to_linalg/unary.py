"""Unary math ops -> one `linalg.generic` each (math/arith in the body).

Float-valued ops (exp, sin, ...) on integer or bool inputs compute in float32, as torch promotes
them; reduced floats compute in f32 and round on the output. log1p and expm1 stay math.log1p and
math.expm1: the LLVM stage calls libm for them (`cpu-accurate-math`), as eager does.
"""

from __future__ import annotations

from functools import partial

import torch
from mlir import ir
from mlir.dialects import arith, math
from mlir.dialects import complex as cx

from aten_mlir.dialects import dtype_of, get_op_def, op_arguments

from .builder import elem, is_float
from .complex_core import is_complex
from .elementwise_core import elementwise, opmath
from .registry import register_lowering

F = arith.CmpFPredicate
I = arith.CmpIPredicate  # noqa: E741


def _fconst(like: ir.Value, value: float) -> ir.Value:
    return arith.constant(like.type, value)


def arg(rw, name: str):
    """Schema argument `name`, its schema default where the op omits it (`rw.args` has None)."""
    value = rw.args.get(name)
    if value is None:
        spec = next(a for a in get_op_def(rw.op.name).args if a.name == name)
        value = spec.default if spec.has_default else None
    return value


def source_dtype(rw, name: str = "self") -> torch.dtype:
    """The torch dtype of operand `name` as the op sees it (bool, not its i8 storage)."""
    return dtype_of(elem(op_arguments(rw.op)[name]))


# -- float-valued ops: result float, computed in opmath of the result ---------------------------
def _reciprocal(x):
    return arith.divf(_fconst(x, 1.0), x)


def _rsqrt(x):
    # torch computes 1 / sqrt(x) (no hardware estimate)
    return arith.divf(_fconst(x, 1.0), math.sqrt(x))


def _sigmoid(x):
    one = _fconst(x, 1.0)
    return arith.divf(one, arith.addf(one, math.exp(arith.negf(x))))


_FLOAT_UNARY = {
    "aten.exp": (math.exp, "math.exp"),
    "aten.log": (math.log, "math.log"),
    "aten.log2": (math.log2, "math.log2"),
    "aten.log10": (math.log10, "math.log10"),
    "aten.log1p": (math.log1p, "math.log1p"),
    "aten.expm1": (math.expm1, "math.expm1"),
    "aten.sqrt": (math.sqrt, "math.sqrt"),
    "aten.rsqrt": (_rsqrt, "math.sqrt, arith.divf"),
    "aten.reciprocal": (_reciprocal, "arith.divf"),
    "aten.sin": (math.sin, "math.sin"),
    "aten.cos": (math.cos, "math.cos"),
    "aten.tan": (math.tan, "math.tan"),
    "aten.asin": (math.asin, "math.asin"),
    "aten.acos": (math.acos, "math.acos"),
    "aten.atan": (math.atan, "math.atan"),
    "aten.sinh": (math.sinh, "math.sinh"),
    "aten.cosh": (math.cosh, "math.cosh"),
    "aten.asinh": (math.asinh, "math.asinh"),
    "aten.acosh": (math.acosh, "math.acosh"),
    "aten.atanh": (math.atanh, "math.atanh"),
    "aten.tanh": (math.tanh, "math.tanh"),
    "aten.erf": (math.erf, "math.erf"),
    "aten.sigmoid": (_sigmoid, "math.exp, arith.divf"),
}


# complex.* ops (lowered by convert-complex-to-standard) for complex operands
_COMPLEX_UNARY = {
    "aten.exp": cx.ExpOp,
    "aten.log": cx.LogOp,
    "aten.sqrt": cx.SqrtOp,
}


def lower_float_unary(fn, op, rw):
    if is_complex(rw.result_type().element_type):
        op_class = _COMPLEX_UNARY[op.name]
        return elementwise(rw, [rw.args["self"]], lambda z: op_class(z).result)
    return elementwise(rw, [rw.args["self"]], fn)


for _name, (_fn, _targets) in _FLOAT_UNARY.items():
    register_lowering(
        _name,
        partial(lower_float_unary, _fn),
        summary=f"{_name} -> linalg.generic({_targets})",
        unsigned=True,
        complex=_name in _COMPLEX_UNARY,
    )


# -- dtype-preserving ops -------------------------------------------------------------------------
def _abs(x):
    return math.absf(x) if is_float(x.type) else math.absi(x)


def _neg(x):
    return arith.negf(x) if is_float(x.type) else arith.subi(arith.constant(x.type, 0), x)


def _sign(x):
    """(x > 0) - (x < 0): 0 for NaN and both zeros, as torch's sign."""
    if is_float(x.type):
        pos = arith.uitofp(x.type, arith.cmpf(F.OGT, x, _fconst(x, 0.0)))
        neg = arith.uitofp(x.type, arith.cmpf(F.OLT, x, _fconst(x, 0.0)))
        return arith.subf(pos, neg)
    zero = arith.constant(x.type, 0)
    pos = arith.extui(x.type, arith.cmpi(I.sgt, x, zero))
    neg = arith.extui(x.type, arith.cmpi(I.slt, x, zero))
    return arith.subi(pos, neg)


def _rounding(fn, x):
    """Integers are already whole: the value is copied."""
    return fn(x) if is_float(x.type) else x


_SAME_DTYPE = {
    "aten.abs": (_abs, "math.absf/absi"),
    "aten.neg": (_neg, "arith.negf/subi"),
    "aten.sign": (_sign, "arith.cmpf/cmpi, arith"),
    "aten.ceil": (partial(_rounding, math.ceil), "math.ceil"),
    "aten.floor": (partial(_rounding, math.floor), "math.floor"),
    "aten.trunc": (partial(_rounding, math.trunc), "math.trunc"),
    "aten.round": (partial(_rounding, math.roundeven), "math.roundeven"),
}


def lower_same_dtype(fn, op, rw):
    src = source_dtype(rw)
    if src.is_complex:
        if op.name == "aten.abs":  # |z|, a real result
            return elementwise(rw, [rw.args["self"]], lambda z: cx.AbsOp(z).result, compute=src)
        if op.name == "aten.neg":
            return elementwise(rw, [rw.args["self"]], lambda z: cx.NegOp(z).result)
        return None
    if source_dtype(rw) == torch.bool and fn is not _sign:
        return None  # torch has no bool kernel for these (sign of a bool is itself)
    if source_dtype(rw) == torch.bool:
        return elementwise(rw, [rw.args["self"]], lambda x: x, compute=torch.bool)
    return elementwise(rw, [rw.args["self"]], fn)


for _name, (_fn, _targets) in _SAME_DTYPE.items():
    register_lowering(
        _name,
        partial(lower_same_dtype, _fn),
        summary=f"{_name} -> linalg.generic({_targets})",
        unsigned=True,
        complex=_name in ("aten.abs", "aten.neg"),
    )


# -- float classification: result bool ------------------------------------------------------------
def _isnan(x):
    if not is_float(x.type):
        return arith.constant(ir.IntegerType.get_signless(1), 0)
    return arith.cmpf(F.UNO, x, x)


def _isinf(x):
    if not is_float(x.type):
        return arith.constant(ir.IntegerType.get_signless(1), 0)
    return arith.cmpf(F.OEQ, math.absf(x), _fconst(x, float("inf")))


def lower_classify(fn, op, rw):
    compute = opmath(source_dtype(rw))
    return elementwise(rw, [rw.args["self"]], fn, compute=compute)


register_lowering(
    "aten.isnan",
    partial(lower_classify, _isnan),
    summary="aten.isnan -> linalg.generic(arith.cmpf uno)",
    unsigned=True,
)
register_lowering(
    "aten.isinf",
    partial(lower_classify, _isinf),
    summary="aten.isinf -> linalg.generic(math.absf, arith.cmpf oeq)",
    unsigned=True,
)

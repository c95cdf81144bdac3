"""Binary arithmetic, comparisons, logical and bitwise ops -> one `linalg.generic` each."""

from __future__ import annotations

from functools import partial

import torch
from mlir import ir
from mlir.dialects import arith, math
from mlir.dialects import complex as cx

from .builder import is_float
from .complex_core import constant as complex_constant
from .complex_core import is_complex
from .elementwise_core import elementwise, promote
from .registry import register_lowering


def _is_bool(x: ir.Value) -> bool:
    return isinstance(x.type, ir.IntegerType) and ir.IntegerType(x.type).width == 1


def _add(a, b):
    if is_complex(a.type):
        return cx.AddOp(a, b).result
    if is_float(a.type):
        return arith.addf(a, b)
    return arith.ori(a, b) if _is_bool(a) else arith.addi(a, b)


def _sub(a, b):
    if is_complex(a.type):
        return cx.SubOp(a, b).result
    return arith.subf(a, b) if is_float(a.type) else arith.subi(a, b)


def _mul(a, b):
    if is_complex(a.type):
        return cx.MulOp(a, b).result
    if is_float(a.type):
        return arith.mulf(a, b)
    return arith.andi(a, b) if _is_bool(a) else arith.muli(a, b)


def _scaled(other, alpha):
    """`alpha * other`, skipped for alpha 1 (torch multiplies only when alpha != 1)."""
    if alpha is None or alpha == 1:
        return other
    if is_complex(other.type):
        return _mul(other, complex_constant(alpha, other.type))
    if _is_bool(other):  # torch casts alpha to bool (2 is true): an i1 constant 2 would be 0
        alpha = int(alpha != 0)
    one = arith.constant(other.type, float(alpha) if is_float(other.type) else int(alpha))
    return _mul(other, one)


def lower_add_sub(combine, op, rw):
    a = rw.args
    return elementwise(
        rw, [a["self"], a["other"]], lambda x, y: combine(x, _scaled(y, a.get("alpha")))
    )


for _name, _fn in (
    ("aten.add.Tensor", _add),
    ("aten.add.Scalar", _add),
    ("aten.sub.Tensor", _sub),
    ("aten.sub.Scalar", _sub),
):
    register_lowering(
        _name,
        partial(lower_add_sub, _fn),
        summary=f"{_name} -> linalg.generic(arith/complex)",
        unsigned=True,
        complex=True,
    )


def lower_binary(combine, op, rw):
    return elementwise(rw, [rw.args["self"], rw.args["other"]], combine)


def _div_true(a, b):
    return cx.DivOp(a, b).result if is_complex(a.type) else arith.divf(a, b)


def _maximum(a, b):
    if is_float(a.type):
        return arith.maximumf(a, b)  # propagates NaN, as torch.maximum does
    return arith.maxui(a, b) if _is_bool(a) else arith.maxsi(a, b)


def _minimum(a, b):
    if is_float(a.type):
        return arith.minimumf(a, b)
    return arith.minui(a, b) if _is_bool(a) else arith.minsi(a, b)


def _float_pair(op, rw):
    """Compute dtype of true division: the promoted float type (ints divide as float32)."""
    d = promote(rw.args["self"], rw.args["other"])
    return d if d.is_floating_point else torch.get_default_dtype()


_BINARY = {
    "aten.mul.Tensor": (_mul, "arith.mulf/muli, complex.mul", True),
    "aten.mul.Scalar": (_mul, "arith.mulf/muli, complex.mul", True),
    "aten.maximum": (_maximum, "arith.maximumf/maxsi", False),
    "aten.minimum": (_minimum, "arith.minimumf/minsi", False),
}
for _name, (_fn, _targets, _complex) in _BINARY.items():
    register_lowering(
        _name,
        partial(lower_binary, _fn),
        summary=f"{_name} -> linalg.generic({_targets})",
        unsigned=True,
        complex=_complex,
    )


def lower_div(op, rw):
    a = rw.args
    mode = a.get("rounding_mode")
    result_float = is_float(rw.result_type().element_type)
    if mode is None:
        return elementwise(rw, [a["self"], a["other"]], _div_true)
    if result_float:
        fn = _div_trunc_float if mode == "trunc" else _div_floor_float
        return elementwise(rw, [a["self"], a["other"]], fn)
    fn = arith.divsi if mode == "trunc" else arith.floordivsi
    return elementwise(rw, [a["self"], a["other"]], fn)


def _div_trunc_float(a, b):
    return math.trunc(arith.divf(a, b))


def _div_floor_float(a, b):
    """ATen's `div_floor_floating`: floor of the exact quotient, via fmod, so that results such
    as 1 // 0.1 == 9 match eager (a plain floor(a / b) gives 10)."""
    ft = a.type
    zero = arith.constant(ft, 0.0)
    mod = arith.remf(a, b)
    div = arith.divf(arith.subf(a, mod), b)
    mod_nz = arith.cmpf(arith.CmpFPredicate.ONE, mod, zero)
    signs_differ = arith.xori(
        arith.cmpf(arith.CmpFPredicate.OLT, b, zero), arith.cmpf(arith.CmpFPredicate.OLT, mod, zero)
    )
    div = arith.select(
        arith.andi(mod_nz, signs_differ), arith.subf(div, arith.constant(ft, 1.0)), div
    )
    floordiv = math.floor(div)
    half = arith.constant(ft, 0.5)
    up = arith.cmpf(arith.CmpFPredicate.OGT, arith.subf(div, floordiv), half)
    floordiv = arith.select(up, arith.addf(floordiv, arith.constant(ft, 1.0)), floordiv)
    div_zero = arith.cmpf(arith.CmpFPredicate.OEQ, div, zero)
    signed_zero = math.copysign(zero, arith.divf(a, b))
    floordiv = arith.select(div_zero, signed_zero, floordiv)
    b_zero = arith.cmpf(arith.CmpFPredicate.OEQ, b, zero)
    return arith.select(b_zero, arith.divf(a, b), floordiv)


for _name in ("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode"):
    register_lowering(
        _name,
        lower_div,
        summary=f"{_name} -> linalg.generic(arith.divf/divsi/floordivsi, complex.div)",
        unsigned=True,
        complex=_name.endswith(("Tensor", "Scalar")),
    )


def _remainder(a, b):
    """Python's modulo: the sign follows the divisor."""
    if is_float(a.type):
        zero = arith.constant(a.type, 0.0)
        mod = arith.remf(a, b)
        fix = arith.andi(
            arith.cmpf(arith.CmpFPredicate.UNE, mod, zero),
            arith.xori(
                arith.cmpf(arith.CmpFPredicate.OLT, b, zero),
                arith.cmpf(arith.CmpFPredicate.OLT, mod, zero),
            ),
        )
        return arith.select(fix, arith.addf(mod, b), mod)
    zero = arith.constant(a.type, 0)
    mod = arith.remsi(a, b)
    fix = arith.andi(
        arith.cmpi(arith.CmpIPredicate.ne, mod, zero),
        arith.xori(
            arith.cmpi(arith.CmpIPredicate.slt, b, zero),
            arith.cmpi(arith.CmpIPredicate.slt, mod, zero),
        ),
    )
    return arith.select(fix, arith.addi(mod, b), mod)


def _fmod(a, b):
    """C fmod: the sign follows the dividend."""
    return arith.remf(a, b) if is_float(a.type) else arith.remsi(a, b)


for _name, _fn in {
    "aten.remainder.Tensor": _remainder,
    "aten.remainder.Scalar": _remainder,
    "aten.fmod.Tensor": _fmod,
    "aten.fmod.Scalar": _fmod,
}.items():
    register_lowering(
        _name,
        partial(lower_binary, _fn),
        summary=f"{_name} -> linalg.generic(arith.remf/remsi)",
        unsigned=True,
    )


# -- comparisons: compute in the promoted dtype of the operands, result bool -----------------------
_FPRED = {"eq": "OEQ", "ne": "UNE", "lt": "OLT", "le": "OLE", "gt": "OGT", "ge": "OGE"}
_IPRED = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_BOOL_IPRED = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def _compare(kind, a, b):
    if is_complex(a.type):  # only eq/ne reach here (lower_compare)
        return (cx.EqualOp if kind == "eq" else cx.NotEqualOp)(a, b).result
    if is_float(a.type):
        return arith.cmpf(getattr(arith.CmpFPredicate, _FPRED[kind]), a, b)
    table = _BOOL_IPRED if _is_bool(a) else _IPRED
    return arith.cmpi(getattr(arith.CmpIPredicate, table[kind]), a, b)


def lower_compare(kind, op, rw):
    a = rw.args
    compute = promote(a["self"], a["other"])
    if compute.is_complex and kind not in ("eq", "ne"):
        return None  # complex numbers have no order (torch raises too)
    return elementwise(rw, [a["self"], a["other"]], partial(_compare, kind), compute=compute)


for _name, _kind in (
    ("aten.eq.Tensor", "eq"),
    ("aten.eq.Scalar", "eq"),
    ("aten.ne.Tensor", "ne"),
    ("aten.ne.Scalar", "ne"),
    ("aten.lt.Tensor", "lt"),
    ("aten.lt.Scalar", "lt"),
    ("aten.le.Tensor", "le"),
    ("aten.le.Scalar", "le"),
    ("aten.gt.Tensor", "gt"),
    ("aten.gt.Scalar", "gt"),
    ("aten.ge.Tensor", "ge"),
    ("aten.ge.Scalar", "ge"),
):
    register_lowering(
        _name,
        partial(lower_compare, _kind),
        summary=f"{_name} -> linalg.generic(arith.cmpf/cmpi, complex.eq)",
        unsigned=True,
        complex=_kind in ("eq", "ne"),
    )


# -- logical and bitwise -------------------------------------------------------------------------
def lower_logical(combine, op, rw):
    a = rw.args
    return elementwise(rw, [a["self"], a["other"]], combine, compute=torch.bool)


for _logical, _bitwise, _fn, _arith in (
    (
        "aten.logical_and",
        ("aten.bitwise_and.Tensor", "aten.bitwise_and.Scalar"),
        arith.andi,
        "andi",
    ),
    ("aten.logical_or", ("aten.bitwise_or.Tensor", "aten.bitwise_or.Scalar"), arith.ori, "ori"),
    (
        "aten.logical_xor",
        ("aten.bitwise_xor.Tensor", "aten.bitwise_xor.Scalar"),
        arith.xori,
        "xori",
    ),
):
    register_lowering(
        _logical,
        partial(lower_logical, _fn),
        summary=f"{_logical} -> linalg.generic(arith.{_arith} on i1)",
        unsigned=True,
    )
    for _name in _bitwise:
        register_lowering(
            _name,
            partial(lower_binary, _fn),
            summary=f"{_name} -> linalg.generic(arith.{_arith})",
            unsigned=True,
        )


@register_lowering("aten.logical_not", unsigned=True)
def lower_logical_not(op, rw):
    """aten.logical_not -> linalg.generic(arith.xori on i1)"""
    return elementwise(
        rw,
        [rw.args["self"]],
        lambda x: arith.xori(x, arith.constant(x.type, 1)),
        compute=torch.bool,
    )


@register_lowering("aten.bitwise_not", unsigned=True)
def lower_bitwise_not(op, rw):
    """aten.bitwise_not -> linalg.generic(arith.xori with all ones)"""
    return elementwise(rw, [rw.args["self"]], lambda x: arith.xori(x, arith.constant(x.type, -1)))


@register_lowering("aten.where.self", unsigned=True, complex=True)
def lower_where(op, rw):
    """aten.where.self -> linalg.generic(arith.select)"""
    a = rw.args
    out = torch.bool, *([promote(a["self"], a["other"])] * 2)
    return elementwise(rw, [a["condition"], a["self"], a["other"]], arith.select, compute=out)

"""Scalar ops (arith, math) -> Triton expressions, one rule per op name.

A rule `fn(k, op) -> str` returns the expression of the op's single result; `k` is the kernel
writer (`k.v(value)` names an operand, `k.t(value)` the same as a tl tensor even when it is a
Python int, `k.tl_type(type)` spells a type). The same expression
serves a scalar and a block of lanes: Triton broadcasts. Float math the Triton interpreter and
both GPU targets agree on comes from `tl`/`tl.math`; the rest (tanh, expm1, log1p, erf-based and
inverse trig functions, rounding) from our own `@triton.jit` helpers (`helpers.py`), never
libdevice.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mlir import ir

from aten_mlir.registry import Registry

OPS: Registry[Callable] = Registry("Triton kernel op")


def _binary(symbol: str):
    return lambda k, op: f"({k.v(op.operands[0])} {symbol} {k.v(op.operands[1])})"


def _argument(k, v: ir.Value) -> bool:
    """`v` reaches the kernel as a scalar argument (not computed in it, not a constant, not
    widened to f32 by `expression`)."""
    owner = v.owner
    constant = not isinstance(owner, ir.Block) and owner.operation.name == "arith.constant"
    widened = v in k.widened
    return (
        v not in k.inside and not constant and not widened and not isinstance(v.type, ir.IndexType)
    )


# Float math that reads its operands' values (not select, casts or bitcasts, which move bits).
_FLOAT_MATH = {
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "arith.negf",
    "arith.cmpf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
}


def expression(k, op: ir.Operation) -> str:
    """The expression of `op` by its rule. Float math on bf16 reads its operands as f32 and
    rounds a bf16 result back (as torch computes bf16): Triton's interpreter has no bf16 type
    and holds bf16 as its 16 bits in an integer array, so `a > b`, `-a` or `abs(a)` on them
    compare or flip integers (negative values sort backwards)."""
    rule = OPS[op.name]
    bf16 = [o for o in op.operands if isinstance(o.type, ir.BF16Type)]
    if not bf16 or not (op.name in _FLOAT_MATH or op.name.startswith("math.")):
        return rule(k, op)
    saved = {o: k.names.get(o) for o in bf16}
    for o in saved:
        k.names[o] = (
            f"tl.full([], {k.v(o)}, tl.float32)" if _argument(k, o) else f"H.from_bf16({k.t(o)})"
        )
        k.widened.add(o)
    try:
        expr = rule(k, op)
    finally:
        for o, name in saved.items():
            k.widened.discard(o)
            if name is None:
                del k.names[o]
            else:
                k.names[o] = name
    return f"H.to_bf16({expr})" if isinstance(op.results[0].type, ir.BF16Type) else expr


def _call(fn: str):
    def rule(k, op):
        args = [k.v(o) for o in op.operands]
        blocks = [a for a, o in zip(args, op.operands) if k.is_block(o)]
        if fn.startswith("H.") and blocks and len(blocks) < len(args):
            # a helper's scalar arguments as blocks: its comparisons of a scalar against a
            # block then combine blocks (Triton's interpreter broadcasts an i1 scalar as float)
            args = [
                a if k.is_block(o) else f"tl.broadcast_to({k.t(o)}, {blocks[0]}.shape)"
                for a, o in zip(args, op.operands)
            ]
        elif fn.startswith("H."):
            # a scalar kernel argument is a plain number in the interpreter, where the
            # helper's `x != x` makes a numpy bool that tl.where rejects: make it a tensor
            args = [
                f"tl.full([], {a}, {k.tl_type(o.type)})" if _argument(k, o) else a
                for a, o in zip(args, op.operands)
            ]
        return f"{fn}({', '.join(args)})"

    return rule


for _names, _symbol in {
    ("arith.addi", "arith.addf"): "+",
    ("arith.subi", "arith.subf"): "-",
    ("arith.muli", "arith.mulf"): "*",
    ("arith.shli",): "<<",
    ("arith.shrsi",): ">>",
    # Triton's // and % on ints truncate toward zero (C semantics, interpreter included)
    ("arith.divsi",): "//",
    ("arith.remsi",): "%",
}.items():
    OPS.register_each(*_names)(_binary(_symbol))

for _name, _fn in {
    "arith.remf": "H.fmod",
    "arith.maxsi": "tl.maximum",
    "arith.minsi": "tl.minimum",
    "arith.maxnumf": "tl.maximum",
    "arith.minnumf": "tl.minimum",
    "arith.maximumf": "H.maximum_nan",
    "arith.minimumf": "H.minimum_nan",
    "arith.floordivsi": "H.floordiv",
    "arith.ceildivsi": "H.ceildiv",
    "math.exp": "tl.exp",
    "math.exp2": "tl.exp2",
    "math.log": "tl.log",
    "math.log2": "tl.log2",
    "math.log10": "H.log10",
    "math.log1p": "H.log1p",
    "math.expm1": "H.expm1",
    "math.rsqrt": "H.rsqrt",
    "math.sin": "tl.sin",
    "math.cos": "tl.cos",
    "math.tan": "H.tan",
    "math.tanh": "H.tanh",
    "math.sinh": "H.sinh",
    "math.cosh": "H.cosh",
    "math.asin": "H.asin",
    "math.acos": "H.acos",
    "math.atan": "H.atan",
    "math.atan2": "H.atan2",
    "math.asinh": "H.asinh",
    "math.acosh": "H.acosh",
    "math.atanh": "H.atanh",
    "math.erf": "tl.math.erf",
    "math.erfc": "H.erfc",
    "math.absf": "tl.abs",
    "math.absi": "tl.abs",
    "math.floor": "tl.math.floor",
    "math.ceil": "tl.math.ceil",
    "math.trunc": "H.trunc",
    "math.round": "H.round_half_away",
    "math.roundeven": "H.round_even",
    "math.copysign": "H.copysign",
    "math.powf": "H.powf",
    "math.fma": "tl.math.fma",
    "math.isnan": "H.isnan",
    "math.isinf": "H.isinf",
    "math.isfinite": "H.isfinite",
    "arith.select": "tl.where",
}.items():
    OPS.register(_name, _call(_fn))


@OPS.register_each("arith.andi", "arith.ori", "arith.xori")
def _bitwise(k, op):
    symbol = {"arith.andi": "&", "arith.ori": "|", "arith.xori": "^"}[op.name]
    a, b = op.operands
    if str(op.results[0].type) != "i1":
        return f"({k.v(a)} {symbol} {k.v(b)})"
    # on i8: Triton's interpreter broadcasts an i1 scalar against a block of i1 as float32
    return f"(({k.t(a)}.to(tl.int8) {symbol} {k.t(b)}.to(tl.int8)) != 0)"


@OPS.register("arith.divf")
def _divf(k, op):
    a, b = (k.v(o) for o in op.operands)
    if str(op.results[0].type) in ("f32", "bf16"):  # `/` is approximate on NVIDIA
        return f"tl.math.div_rn({a}, {b})"
    return f"({a} / {b})"


@OPS.register("math.sqrt")
def _sqrt(k, op):
    fn = "tl.math.sqrt_rn" if str(op.results[0].type) in ("f32", "bf16") else "tl.sqrt"
    return f"{fn}({k.v(op.operands[0])})"


@OPS.register("arith.negf")
def _negf(k, op):
    return f"(-{k.v(op.operands[0])})"


@OPS.register("arith.constant")
def _constant(k, op):
    attr = op.attributes["value"]
    t = op.results[0].type
    if isinstance(t, ir.IndexType):
        return str(ir.IntegerAttr(attr).value)
    if isinstance(attr, ir.BoolAttr) or (
        isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1
    ):
        boolean = isinstance(attr, ir.BoolAttr)
        value = ir.BoolAttr(attr).value if boolean else ir.IntegerAttr(attr).value
        return f"tl.full([], {int(bool(value))}, tl.int1)"
    if isinstance(t, ir.IntegerType):
        return f"tl.full([], {ir.IntegerAttr(attr).value}, {k.tl_type(t)})"
    value = ir.FloatAttr(attr).value
    text = repr(value) if math.isfinite(value) else f'float("{value}")'
    return f"tl.full([], {text}, {k.tl_type(t)})"


_CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}


@OPS.register("arith.cmpi")
def _cmpi(k, op):
    pred = ir.IntegerAttr(op.attributes["predicate"]).value
    a, b = (k.v(o) for o in op.operands)
    if pred >= 6:  # ult ule ugt uge: compare the bits as unsigned
        a, b = (k.unsigned(k.t(o), o.type) for o in op.operands)
    return f"({a} {_CMPI[pred]} {b})"


# arith.cmpf predicates: false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true
_CMPF = {
    1: "({a} == {b})",
    2: "({a} > {b})",
    3: "({a} >= {b})",
    4: "({a} < {b})",
    5: "({a} <= {b})",
    6: "(({a} < {b}) | ({a} > {b}))",
    7: "(({a} == {a}) & ({b} == {b}))",
    8: "(({a} == {b}) | ({a} != {a}) | ({b} != {b}))",
    9: "(({a} > {b}) | ({a} != {a}) | ({b} != {b}))",
    10: "(({a} >= {b}) | ({a} != {a}) | ({b} != {b}))",
    11: "(({a} < {b}) | ({a} != {a}) | ({b} != {b}))",
    12: "(({a} <= {b}) | ({a} != {a}) | ({b} != {b}))",
    13: "({a} != {b})",
    14: "(({a} != {a}) | ({b} != {b}))",
}


@OPS.register("arith.cmpf")
def _cmpf(k, op):
    pred = ir.IntegerAttr(op.attributes["predicate"]).value
    a, b = (k.v(o) for o in op.operands)
    if pred in (0, 15):
        return f"tl.full([], {int(pred == 15)}, tl.int1)"
    return _CMPF[pred].format(a=a, b=b)


@OPS.register_each(
    "arith.extf",
    "arith.truncf",
    "arith.sitofp",
    "arith.fptosi",
    "arith.extsi",
    "arith.trunci",
    "arith.index_cast",
)
def _convert(k, op):
    to = op.results[0].type
    src = op.operands[0]
    x = k.t(src)
    if isinstance(src.type, ir.BF16Type):
        # a scalar argument arrives as a float32 holding a bfloat16 value (launch.bf16)
        x = f"tl.full([], {k.v(src)}, tl.float32)" if _argument(k, src) else f"H.from_bf16({x})"
    if isinstance(to, ir.BF16Type):  # through float32, as torch converts
        return f"H.to_bf16({x}.to(tl.float32))"
    return f"{x}.to({k.tl_type(to)})"


@OPS.register_each("arith.extui", "arith.uitofp", "arith.index_castui")
def _from_unsigned(k, op):
    src = op.operands[0].type
    to = op.results[0].type
    x = k.t(op.operands[0])
    if not (isinstance(src, ir.IntegerType) and ir.IntegerType(src).width == 1):
        x = k.unsigned(x, src)
    if isinstance(to, ir.BF16Type):
        return f"H.to_bf16({x}.to(tl.float32))"
    return f"{x}.to({k.tl_type(to)})"


@OPS.register("arith.fptoui")
def _fptoui(k, op):
    to = op.results[0].type
    return f"{k.t(op.operands[0])}.to(tl.int64).to({k.tl_type(to)})"


@OPS.register("arith.bitcast")
def _bitcast(k, op):
    return f"{k.t(op.operands[0])}.to({k.tl_type(op.results[0].type)}, bitcast=True)"


@OPS.register("arith.shrui")
def _shrui(k, op):
    t = op.operands[0].type
    a = k.unsigned(k.t(op.operands[0]), t)
    b = k.unsigned(k.t(op.operands[1]), op.operands[1].type)
    return f"({a} >> {b}).to({k.tl_type(t)}, bitcast=True)"


@OPS.register("math.ctlz")
def _ctlz(k, op):
    t = op.operands[0].type
    bits = 64 if isinstance(t, ir.IndexType) else ir.IntegerType(t).width
    x = k.unsigned(k.t(op.operands[0]), t)
    return f"H.ctlz({x}, {bits}).to({k.tl_type(op.results[0].type)})"


@OPS.register_each("arith.divui", "arith.remui", "arith.maxui", "arith.minui")
def _unsigned_binary(k, op):
    t = op.operands[0].type
    a, b = (k.unsigned(k.t(o), t) for o in op.operands)
    expr = {
        "arith.divui": f"({a} // {b})",
        "arith.remui": f"({a} % {b})",
        "arith.maxui": f"tl.maximum({a}, {b})",
        "arith.minui": f"tl.minimum({a}, {b})",
    }[op.name]
    return f"{expr}.to({k.tl_type(t)}, bitcast=True)"


@OPS.register_each("math.fpowi", "math.ipowi")
def _powi(k, op):
    return f"H.powi({k.v(op.operands[0])}, {k.v(op.operands[1])})"

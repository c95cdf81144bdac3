"""Unary, binary (broadcasting, type promotion) and cast ops."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from ..program import DTYPES, FLOATS
from . import Op, no_params

_UNARY = {
    "neg": torch.neg,
    "abs": torch.abs,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sin": torch.sin,
    "cos": torch.cos,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "gelu": F.gelu,
    "gelu_tanh": functools.partial(F.gelu, approximate="tanh"),
    "silu": F.silu,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "round": torch.round,
    "trunc": torch.trunc,
    "sign": torch.sign,
    "reciprocal": torch.reciprocal,
    "erf": torch.erf,
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "square": torch.square,
    "atan": torch.atan,
    "logical_not": torch.logical_not,
    "bitwise_not": torch.bitwise_not,
    "isnan": torch.isnan,
    "isinf": torch.isinf,
    "nan_to_num": torch.nan_to_num,
    "hardswish": F.hardswish,
    "softplus": F.softplus,
    "elu": F.elu,
    "mish": F.mish,
}


def _clamp(x, lo, hi):
    return torch.clamp(x, lo, hi)


def _propose_clamp(rng, x):
    lo = rng.choice([-2, -1, 0, None])
    hi = rng.choice([1, 3, None]) if lo is not None else rng.choice([1, 3])
    return {"lo": lo, "hi": hi}, []


def _leaky(x, slope):
    return F.leaky_relu(x, slope)


def _pow_scalar(x, e):
    return torch.pow(x, e)


_BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
    "gt": torch.gt,
    "ge": torch.ge,
    "logical_and": torch.logical_and,
    "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor,
    "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor,
    "atan2": torch.atan2,
}
# float-only: their integer forms raise on a zero divisor
_FLOAT_BINARY = {
    "pow": torch.pow,
    "fmod": torch.fmod,
    "remainder": torch.remainder,
    "floor_divide": torch.floor_divide,
}


def _float_binary(fn):
    def apply(x, y):
        if not (x.dtype.is_floating_point or y.dtype.is_floating_point):
            raise TypeError("integer operands would divide by zero")
        return fn(x, y)

    return apply


def _where_gt(x, y, threshold):
    return torch.where(x > threshold, x, y)


def _add_alpha(x, y, alpha):
    return torch.add(x, y, alpha=alpha)


def _scalar_op(x, op, s):
    return {"add": torch.add, "mul": torch.mul, "sub": torch.sub, "rsub": torch.rsub}[op](x, s)


def _propose_scalar(rng, x):
    s = rng.choice([2, -1, 0.5, 3.0, True]) if x.dtype.is_floating_point else rng.choice([2, -3])
    return {"op": rng.choice(["add", "mul", "sub", "rsub"]), "s": s}, []


def _cast(x, dtype):
    """A float -> integer cast of inf, nan or an out-of-range value is undefined (C and torch
    disagree across platforms), so values are made finite and in range first."""
    target = DTYPES[dtype]
    if x.dtype.is_floating_point and not target.is_floating_point and target != torch.bool:
        lo = 0 if target == torch.uint8 else -100
        x = torch.clamp(torch.nan_to_num(x, 0.0, 100.0, -100.0), lo, 100)
    return x.to(target)


def _propose_cast(rng, x):
    return {"dtype": rng.choice(list(DTYPES))}, []


def _propose_float_cast(rng, x):
    return {"dtype": rng.choice(FLOATS)}, []


OPS = [Op(f"u_{n}", "elementwise", fn, no_params) for n, fn in _UNARY.items()]
OPS += [Op(f"b_{n}", "elementwise", fn, no_params, arity=2) for n, fn in _BINARY.items()]
OPS += [
    Op(f"b_{n}", "elementwise", _float_binary(fn), no_params, arity=2)
    for n, fn in _FLOAT_BINARY.items()
]
OPS += [
    Op("clamp", "elementwise", _clamp, _propose_clamp),
    Op("leaky_relu", "elementwise", _leaky, lambda r, x: ({"slope": r.choice([0.01, 0.2])}, [])),
    Op(
        "pow_scalar",
        "elementwise",
        _pow_scalar,
        lambda r, x: ({"e": r.choice([2, 3, 0.5, -1])}, []),
    ),
    Op(
        "where_gt",
        "elementwise",
        _where_gt,
        lambda r, x: ({"threshold": r.choice([0, 0.5])}, []),
        2,
    ),
    Op("add_alpha", "elementwise", _add_alpha, lambda r, x: ({"alpha": r.choice([2, -1])}, []), 2),
    Op("scalar", "elementwise", _scalar_op, _propose_scalar),
    Op("cast", "cast", _cast, _propose_cast),
    Op("cast_float", "cast", _cast, _propose_float_cast),
]

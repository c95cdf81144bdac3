"""Symbolic sizes: `sym_size` and Python integer arithmetic on SymInts become `index` values
computed with `tensor.dim` and `arith`, as the dialect carries dynamic sizes."""

from __future__ import annotations

import operator

import torch
from mlir import ir
from mlir.dialects import arith, tensor

from aten_mlir.registry import Registry

SYMBOLIC_IMPORTERS: Registry = Registry("symbolic importer")  # keyed by FX target


def register_symbolic(*targets):
    """Registers an importer for FX targets computing on SymInts."""
    return SYMBOLIC_IMPORTERS.register_each(*targets)


def as_index(v) -> ir.Value:
    """An `index` value for a SymInt value or a Python int."""
    if isinstance(v, ir.Value):
        if isinstance(v.type, ir.IndexType):
            return v
        return arith.IndexCastOp(ir.IndexType.get(), v).result
    return arith.ConstantOp(ir.IndexType.get(), int(v)).result


@register_symbolic(torch.ops.aten.sym_size.int)
def import_sym_size(tensor_value, dim):
    rank = ir.RankedTensorType(tensor_value.type).rank
    return tensor.DimOp(tensor_value, as_index(dim % rank if rank else dim)).result


@register_symbolic(torch.ops.aten.sym_numel.default)
def import_sym_numel(tensor_value):
    shape = ir.RankedTensorType(tensor_value.type)
    total = as_index(1)
    for d in range(shape.rank):
        total = arith.MulIOp(total, import_sym_size(tensor_value, d)).result
    return total


def _is_float(v) -> bool:
    return isinstance(v, float) or (isinstance(v, ir.Value) and isinstance(v.type, ir.F64Type))


def as_f64(v) -> ir.Value:
    """An `f64` value for a SymFloat, a SymInt (`index`) or a Python number."""
    f64 = ir.F64Type.get()
    if not isinstance(v, ir.Value):
        return arith.ConstantOp(f64, float(v)).result
    if isinstance(v.type, ir.F64Type):
        return v
    i64 = arith.IndexCastOp(ir.IntegerType.get_signless(64), as_index(v)).result
    return arith.SIToFPOp(f64, i64).result


def _binary(int_op, float_op=None):
    """SymInt arithmetic on `index`; with a SymFloat operand (`1.0 / numel` in a batch norm
    backward) on `f64`, as Python promotes."""

    def build(a, b):
        if float_op is not None and (_is_float(a) or _is_float(b)):
            return float_op(as_f64(a), as_f64(b)).result
        return int_op(as_index(a), as_index(b)).result

    return build


for _target, _int_op, _float_op in [
    (operator.add, arith.AddIOp, arith.AddFOp),
    (operator.sub, arith.SubIOp, arith.SubFOp),
    (operator.mul, arith.MulIOp, arith.MulFOp),
    (operator.floordiv, arith.FloorDivSIOp, None),
    (torch.sym_max, arith.MaxSIOp, arith.MaximumFOp),
    (torch.sym_min, arith.MinSIOp, arith.MinimumFOp),
]:
    register_symbolic(_target)(_binary(_int_op, _float_op))


@register_symbolic(operator.truediv)
def import_truediv(a, b):
    """Python's `/` on sizes: always a float."""
    return arith.DivFOp(as_f64(a), as_f64(b)).result


@register_symbolic(torch.sym_float)
def import_sym_float(a):
    return as_f64(a)


@register_symbolic(operator.mod)
def import_mod(a, b):
    """Python's `%` rounds toward -inf: remsi plus a correction when the signs differ."""
    a, b = as_index(a), as_index(b)
    rem = arith.RemSIOp(a, b).result
    zero = as_index(0)
    rem_neg = arith.CmpIOp(arith.CmpIPredicate.slt, rem, zero).result
    b_neg = arith.CmpIOp(arith.CmpIPredicate.slt, b, zero).result
    nonzero = arith.CmpIOp(arith.CmpIPredicate.ne, rem, zero).result
    fix = arith.AndIOp(nonzero, arith.XOrIOp(rem_neg, b_neg).result).result
    return arith.SelectOp(fix, arith.AddIOp(rem, b).result, rem).result


@register_symbolic(operator.neg)
def import_neg(a):
    return arith.SubIOp(as_index(0), as_index(a)).result


_CMP = {
    operator.eq: arith.CmpIPredicate.eq,
    operator.ne: arith.CmpIPredicate.ne,
    operator.lt: arith.CmpIPredicate.slt,
    operator.le: arith.CmpIPredicate.sle,
    operator.gt: arith.CmpIPredicate.sgt,
    operator.ge: arith.CmpIPredicate.sge,
}
for _target, _pred in _CMP.items():
    register_symbolic(_target)(
        lambda a, b, _p=_pred: arith.CmpIOp(_p, as_index(a), as_index(b)).result
    )

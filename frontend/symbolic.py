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


def _binary(op_class):
    return lambda a, b: op_class(as_index(a), as_index(b)).result


for _target, _op in [
    (operator.add, arith.AddIOp),
    (operator.sub, arith.SubIOp),
    (operator.mul, arith.MulIOp),
    (operator.floordiv, arith.FloorDivSIOp),
    (torch.sym_max, arith.MaxSIOp),
    (torch.sym_min, arith.MinSIOp),
]:
    register_symbolic(_target)(_binary(_op))


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

"""Value-and-index reductions: argmax/argmin, max.dim/min.dim -> one two-output generic each.

The reduced dim runs in ascending order (it becomes an `scf.for` after bufferization) and a later
element replaces the best one only when strictly better, so ties keep the first index, as torch.
NaN is bigger (and smaller) than everything: the first NaN wins and stays.
"""

from __future__ import annotations

from functools import partial

from mlir import ir
from mlir.dialects import arith, linalg

from .builder import is_float, tensor_type
from .reductions_common import collapse, expand_to, highest, lowest, reduce, supported
from .registry import register_lowering


def _better(is_max: bool, v: ir.Value, best: ir.Value) -> ir.Value:
    if not is_float(v.type):
        pred = arith.CmpIPredicate.sgt if is_max else arith.CmpIPredicate.slt
        return arith.cmpi(pred, v, best)
    pred = arith.CmpFPredicate.OGT if is_max else arith.CmpFPredicate.OLT
    nan_v = arith.cmpf(arith.CmpFPredicate.UNO, v, v)
    num_best = arith.cmpf(arith.CmpFPredicate.ORD, best, best)
    return arith.ori(arith.cmpf(pred, v, best), arith.andi(nan_v, num_best))


def _arg_reduce(x: ir.Value, dims: list[int], is_max: bool) -> tuple[ir.Value, ir.Value]:
    """(best values, their i64 indices along the single dim in `dims`, 0 when none)."""
    t = tensor_type(x).element_type
    i64 = ir.IntegerType.get_signless(64)

    def body(v, best, idx):
        if dims:
            i = arith.index_cast(i64, linalg.IndexOp(dims[0]).result)
        else:
            i = arith.constant(i64, 0)
        take = _better(is_max, v, best)
        return arith.select(take, v, best), arith.select(take, i, idx)

    init = lowest(t) if is_max else highest(t)
    values, indices = reduce(x, dims, [(t, init), (i64, 0)], body)
    return values, indices


def lower_arg(is_max: bool, op, rw):
    """argmax / argmin; dim None reduces the flattened (collapsed) input."""
    x = rw.args["self"]
    if not supported(x.type):
        return None
    rank = tensor_type(x).rank
    dim = rw.args.get("dim")
    rt = rw.result_type()
    with rw.at():
        if dim is None and rank > 1:
            x = collapse(x, [list(range(rank))])
        dims = [] if rank == 0 else [0 if dim is None else dim % rank]
        _, idx = _arg_reduce(x, dims, is_max)
        keep = list(range(rt.rank)) if dim is None else dims
        return expand_to(idx, rt, keep)


def lower_max_dim(is_max: bool, op, rw):
    """max.dim / min.dim: values and indices of the first extreme element along `dim`."""
    x = rw.args["self"]
    if not supported(x.type):
        return None
    rank = tensor_type(x).rank
    dims = [] if rank == 0 else [rw.args["dim"] % rank]
    with rw.at():
        values, idx = _arg_reduce(x, dims, is_max)
        return expand_to(values, rw.result_type(0), dims), expand_to(idx, rw.result_type(1), dims)


for _name, _fn, _is_max in [
    ("aten.argmax", lower_arg, True),
    ("aten.argmin", lower_arg, False),
    ("aten.max.dim", lower_max_dim, True),
    ("aten.min.dim", lower_max_dim, False),
]:
    register_lowering(
        _name,
        partial(_fn, _is_max),
        summary=f"{_name} -> linalg.generic(reduction: value and linalg.index, arith.select)",
    )

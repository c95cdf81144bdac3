"""`_embedding_bag`: per-bag sum / mean / max of weight rows, and torch's three side outputs.

Bag b covers indices[offsets[b] : offsets[b + 1]], the last bag running to the end of
`indices` (also under `include_last_offset`, as ATen's CPU kernel does); both ends are clamped
into [0, len(indices)] so that no offset, however wrong, moves a read out of `indices`. The
output is one `linalg.generic` over (bag, column) whose body loops (`scf.for`) over the bag's
indices, skipping `padding_idx`. Side outputs as ATen gives them: offset2bag (each index's
bag; empty in plain sum mode), bag_size (non-padding count; zeros in sum mode), max_indices
(the arg-max row in max mode, bag_size in mean mode, zeros in sum mode).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .builder import PARALLEL, LoweringRewriter, convert, is_float, tensor_type
from .indexing_core import as_index, const_index, linalg_indices, loop_nest, supported
from .registry import register_lowering

SUM, MEAN, MAX = 0, 1, 2


class _Bags:
    def __init__(self, rw: LoweringRewriter):
        a = rw.args
        self.rw = rw
        self.weight, self.indices, self.offsets = a["weight"], a["indices"], a["offsets"]
        self.mode, self.padding_idx = a.get("mode", SUM), a.get("padding_idx", -1)
        self.psw = a.get("per_sample_weights")
        last = bool(a.get("include_last_offset", False))
        self.n_offsets = rw.size(self.offsets, 0)
        self.n = rw.size(self.indices, 0)
        self.bags = rw.index_arith(arith.SubIOp, self.n_offsets, int(last))
        fast_types = (ir.F32Type, ir.F16Type, ir.BF16Type)
        self.fast = (
            last
            and self.mode in (SUM, MEAN)
            and self.padding_idx < 0
            and isinstance(tensor_type(self.weight).element_type, fast_types)
        )

    def bounds(self, b: ir.Value, summing: bool = False):
        """[start, end) of bag `b` in `indices` (needs an insertion point). ATen's CPU fast
        path (sum/mean of f32/f16/bf16 rows without padding_idx) ends the last bag at the
        last offset under include_last_offset; everything else (counts, offset2bag, max mode)
        runs the last bag to the end of `indices`."""
        start = as_index(tensor.ExtractOp(self.offsets, [b]).result)
        nxt = arith.addi(b, const_index(1))
        last = arith.subi(const_index(self.n_offsets), const_index(1))
        after = as_index(tensor.ExtractOp(self.offsets, [arith.minsi(nxt, last)]).result)
        is_last = arith.cmpi(arith.CmpIPredicate.sge, nxt, const_index(self.bags))
        if not (summing and self.fast):
            after = arith.select(is_last, const_index(self.n), after)
        return self._inside(start), self._inside(after)

    def _inside(self, offset: ir.Value) -> ir.Value:
        """`offset` clamped into [0, len(indices)]: the loop over a bag reads `indices` at its
        induction variable, which the data-index clamp cannot see; an offset out of range (eager
        raises; the program's index check flags it) must not make that loop run off the
        buffer."""
        low = arith.maxsi(offset, const_index(0))
        return arith.minsi(low, const_index(self.n))

    def kept(self, i: ir.Value):
        """(row index, is it not the padding row) of `indices[i]`."""
        raw = tensor.ExtractOp(self.indices, [i]).result
        keep = arith.cmpi(arith.CmpIPredicate.ne, raw, arith.constant(raw.type, self.padding_idx))
        return raw, keep

    def over_bag(self, b: ir.Value, inits, step, summing: bool = False):
        """An `scf.for` over bag `b`'s non-padding indices: `step(i, raw, carried)`."""
        start, end = self.bounds(b, summing)
        loop = scf.ForOp(start, end, const_index(1), list(inits))
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            carried = list(loop.inner_iter_args)
            raw, keep = self.kept(i)
            branch = scf.IfOp(keep, [c.type for c in carried], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                scf.YieldOp(step(i, raw, carried))
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp(carried)
            scf.YieldOp(list(branch.results))
        return list(loop.results)


@register_lowering("aten._embedding_bag")
def lower_embedding_bag(op, rw):
    """aten._embedding_bag -> linalg.generic(scf.for), scf.for, tensor.extract, tensor.insert"""
    bags = _Bags(rw)
    out_t = rw.result_type(0)
    t = out_t.element_type
    if not supported(bags.weight) or not is_float(t) or bags.mode not in (SUM, MEAN, MAX):
        return None
    if tensor_type(bags.weight).rank != 2 or tensor_type(bags.indices).rank != 1:
        return None
    acc_t = ir.F32Type.get(t.context) if isinstance(t, (ir.F16Type, ir.BF16Type)) else t
    row = rw.size(bags.weight, 1)
    outputs = [rw.empty(out_t, [bags.bags, row])]
    if bags.mode == MAX and not _is_empty(rw, 3):
        outputs.append(rw.empty(rw.result_type(3), [bags.bags, row]))
    idx_t = rw.result_type(3).element_type
    with rw.at():
        zero_i = arith.constant(idx_t, 0)
        zero_n, zero_acc = const_index(0), arith.constant(acc_t, 0.0)

    def body(*args):
        b, d = linalg_indices(2)

        def step(i, raw, carried):
            acc, n, arg = carried
            v = convert(tensor.ExtractOp(bags.weight, [as_index(raw), d]).result, acc_t)
            if bags.psw is not None and bags.mode == SUM:
                w = tensor.ExtractOp(bags.psw, [i]).result
                v = arith.mulf(v, convert(w, acc_t))
            n1 = arith.addi(n, const_index(1))
            if bags.mode != MAX:
                return [arith.addf(acc, v), n1, arg]
            first = arith.cmpi(arith.CmpIPredicate.eq, n, const_index(0))
            take = arith.ori(first, arith.cmpf(arith.CmpFPredicate.OGT, v, acc))
            return [arith.select(take, v, acc), n1, arith.select(take, convert(raw, idx_t), arg)]

        acc, n, arg = bags.over_bag(b, [zero_acc, zero_n, zero_i], step, summing=True)
        if bags.mode == MEAN and bags.fast:  # ATen divides by the full bag's size
            (n,) = bags.over_bag(b, [zero_n], lambda i, raw, c: [arith.addi(c[0], const_index(1))])
        if bags.mode == MEAN:
            count = convert(
                arith.index_cast(ir.IntegerType.get_signless(64), arith.maxsi(n, const_index(1))),
                acc_t,
            )
            acc = arith.divf(acc, count)
        return [convert(acc, t), arg][: len(outputs)]

    identity = ir.AffineMap.get_identity(2)
    results = rw.generic([], outputs, [identity] * len(outputs), [PARALLEL] * 2, body)
    bag_size = _bag_size(rw, bags, 2)
    return [results[0], _offset2bag(rw, bags), bag_size, _max_indices(rw, bags, results)]


def _max_indices(rw, bags: _Bags, results) -> ir.Value:
    t = rw.result_type(3)
    if _is_empty(rw, 3):
        return rw.empty(t, [0] * t.rank)
    if bags.mode == MAX:
        return results[1]
    if bags.mode == MEAN:
        return _bag_size(rw, bags, 3)
    return rw.full(t, [bags.bags], 0)


def _is_empty(rw, i: int) -> bool:
    """The side outputs' shapes come from the graph (torch's meta kernel), which in places
    differs from what eager returns (e.g. an empty max_indices in sum mode): the IR wins."""
    t = rw.result_type(i)
    return any(not t.is_dynamic_dim(d) and t.get_dim_size(d) == 0 for d in range(t.rank))


def _bag_size(rw, bags: _Bags, i: int) -> ir.Value:
    """Result `i` as bag sizes (non-padding counts; zeros in sum mode)."""
    result = rw.result_type(i)
    if bags.mode == SUM:
        return rw.full(result, [bags.bags], 0)
    e = result.element_type
    init = rw.empty(result, [bags.bags])

    def body(_out):
        (b,) = linalg_indices(1)
        (n,) = bags.over_bag(
            b, [const_index(0)], lambda i, raw, c: [arith.addi(c[0], const_index(1))]
        )
        return arith.index_cast(e, n)

    return rw.generic([], [init], [ir.AffineMap.get_identity(1)], [PARALLEL], body)[0]


def _offset2bag(rw, bags: _Bags) -> ir.Value:
    result = rw.result_type(1)
    if _is_empty(rw, 1):
        return rw.empty(result, [0])
    e = result.element_type
    init = rw.full(result, [bags.n], 0)

    def body(ivs, carried):
        (b,) = ivs
        start, end = bags.bounds(b)
        loop = scf.ForOp(start, end, const_index(1), list(carried))
        with ir.InsertionPoint(loop.body):
            (acc,) = loop.inner_iter_args
            v = arith.index_cast(e, b)
            scf.YieldOp([tensor.InsertOp(v, acc, [loop.induction_variable]).result])
        return list(loop.results)

    return loop_nest(rw, [bags.bags], [init], body)[0]

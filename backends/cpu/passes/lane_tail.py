"""The end of a dynamic-length row in `cpu-vectorize-generics`: what is left after the last
whole step of `lanes` elements, decided once per nest rather than once per row.

A row whose length `n` is only known at run time used to run its main loop, then one masked
step of `lanes` elements built per row (`vector.create_mask` of `n % lanes`). With 64-lane
reductions and attention rows of 33-77 elements, that is a main loop of 0 or 1 trips and a
64-lane mask (four AVX-512 mask registers) per pass of the row: the softmax's four masks did
not fit the eight mask registers, so LLVM spilled them and reloaded them per row, and the
dynamic softmax ran 1.3-1.7x the static compile's time. Here the rest of the row is split in
halves instead, as a binary number: one unmasked step of lanes/2 when `n & lanes/2`, one of
lanes/4 when `n & lanes/4`, ..., down to `narrowest` (one register), then one masked step of
`narrowest` elements for `n % narrowest`. Every bound, branch condition and the one mask are
computed here, at the nest's insertion point outside its row loops (the row-nest fusion
moves them above the fused nest); the branches are the same for every row, so they predict.
A reduction combines each narrower step into its own slice of the full-width accumulator, so
the row ends in the horizontal reduction a static row has.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf, vector


@dataclass(frozen=True)
class Tail:
    """Per-nest values of a dynamic row's end, all defined outside the row loops."""

    nonempty: ir.Value  # n > 0: the row's hoisted reads run only then
    main_bound: ir.Value  # the end of the whole `lanes` steps
    steps: tuple  # (width, start, condition): unmasked steps of narrower widths
    masked: tuple  # (width, start, condition, mask): the last partial step


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _power_of_two(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def plan_tail(extent: ir.Value, lanes: int, narrowest: int) -> Tail:
    """The tail of rows of `extent` elements in steps of `lanes`, at the insertion point."""
    ugt, ne = arith.CmpIPredicate.ugt, arith.CmpIPredicate.ne
    zero = _index(0)
    nonempty = arith.cmpi(ugt, extent, zero)
    main_bound = arith.subi(extent, arith.remui(extent, _index(lanes)))
    steps = []
    start, width = main_bound, lanes
    if _power_of_two(lanes) and _power_of_two(narrowest) and narrowest < lanes:
        while width > narrowest:
            width //= 2
            bit = arith.andi(extent, _index(width))
            steps.append((width, start, arith.cmpi(ne, bit, zero)))
            start = arith.addi(start, bit)
    count = arith.subi(extent, start)
    mask = vector.create_mask(ir.VectorType.get([width], ir.IntegerType.get_signless(1)), [count])
    masked = (width, start, arith.cmpi(ugt, count, zero), mask)
    return Tail(nonempty, main_bound, tuple(steps), masked)


def emit_tail(emitter, tail: Tail, accs: list) -> list:
    """The steps after the main loop of one row (`emitter` a vectorize `_Emitter`); returns the
    reduction accumulators. Each narrower step combines into its own slice of the `lanes`-wide
    accumulators (lanes/2 steps into the first half, lanes/4 into the next quarter, ..., the
    masked step into the last `narrowest` lanes): no step waits for another, and the row ends
    in the same horizontal reduction as a static row of `lanes` steps."""
    offset = 0
    for width, start, condition in tail.steps:
        accs = _guarded(emitter, condition, accs, width, offset, start, None)
        offset += width
    width, start, condition, mask = tail.masked
    return _guarded(emitter, condition, accs, width, offset, start, mask)


def _guarded(emitter, condition, accs: list, width: int, offset: int, start, mask) -> list:
    """One step of `width` lanes at `start` when `condition` holds, its reductions combined
    into lanes [offset, offset + width) of `accs` (which pass through otherwise)."""
    guard = scf.IfOp(condition, [a.type for a in accs], has_else=bool(accs))
    with ir.InsertionPoint(guard.then_block):
        parts = [_slice(acc, offset, width) for acc in accs]
        parts = emitter.step_at(width, start, parts, mask)
        scf.YieldOp([_insert(part, acc, offset) for part, acc in zip(parts, accs)])
    if accs:
        with ir.InsertionPoint(guard.else_block):
            scf.YieldOp(accs)
    return list(guard.results)


def _slice(acc: ir.Value, offset: int, width: int) -> ir.Value:
    t = ir.VectorType(acc.type)
    if t.shape[0] == width:
        return acc
    part = ir.VectorType.get([width], t.element_type)
    return vector.extract_strided_slice(part, acc, [offset], [width], [1])


def _insert(part: ir.Value, acc: ir.Value, offset: int) -> ir.Value:
    if part.type == acc.type:
        return part
    return vector.insert_strided_slice(part, acc, [offset], [1])

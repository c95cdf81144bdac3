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
The masked step's stores go on halving (`split_stores`): unmasked pieces of narrowest/2, ...,
2 lanes and one element, each when its bit of `n % narrowest` is set. On Zen 5 a load that
overlaps the 64 bytes of a runtime-masked store waits about 20 cycles (~5 ns) even when only
masked-off lanes overlap, and the next row's first load does exactly that; a static row's
constant mask already becomes plain narrower stores in LLVM. Its loads halve the same way
(`split_loads`): a 16-lane load over the piece stores of the nest before it in the same row
(softmax: the max reads what the mask add just stored, the sum what the exp stored) cannot be
served from the store queue and waits for those stores to reach the cache; piece loads over the
same pieces can (fused softmax rows of 33, 3x12x33 rows, dyn/static 2.07 -> 1.35).
A reduction combines each narrower step into its own slice of the full-width accumulator, so
the row ends in the horizontal reduction a static row has.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from .vectorize_plan import neutral


@dataclass(frozen=True)
class Tail:
    """Per-nest values of a dynamic row's end, all defined outside the row loops."""

    nonempty: ir.Value  # n > 0: the row's hoisted reads run only then
    main_bound: ir.Value  # the end of the whole `lanes` steps
    main_runs: ir.Value  # main_bound > 0: some whole step ran
    steps: tuple  # (width, start, condition): unmasked steps of narrower widths
    masked: tuple  # (width, start, condition, mask): the last partial step
    pieces: tuple  # (width, offset, condition): the masked step's stores as unmasked pieces


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
    main_runs = arith.cmpi(ugt, main_bound, zero)
    return Tail(nonempty, main_bound, main_runs, tuple(steps), masked, _pieces(count, width))


def _pieces(count: ir.Value, width: int) -> tuple:
    """(w, offset, condition) for w = width/2, ..., 1: the `count` (< width) elements as the
    binary number they are; the piece of w starts after the larger pieces, at the bits of
    `count` above w. Nothing for a width that is not a power of two (one masked store)."""
    if not _power_of_two(width) or width < 2:
        return ()
    out, w, offset = [], width // 2, _index(0)
    while w:
        bit = arith.andi(count, _index(w))
        out.append((w, offset, arith.cmpi(arith.CmpIPredicate.ne, bit, _index(0))))
        offset = arith.addi(offset, bit)
        w //= 2
    return tuple(out)


def emit_tail(emitter, tail: Tail, accs: list) -> list:
    """The steps after the main loop of one row (`emitter` a vectorize `_Emitter`); returns the
    reduction accumulators. Each narrower step has its own slice of the `lanes` lanes (lanes/2
    steps the first half, lanes/4 the next quarter, ..., the masked step the last `narrowest`
    lanes), so no step waits for another. When the main loop ran, each step combines into its
    slice of the main loop's lanes; when it did not (a row shorter than one step), each starts
    from the reduction's neutral value, so the combine folds away (a 33-element row's max then
    costs what a static row's does, not a NaN-propagating max with 64 lanes of -inf)."""
    kinds = [kind for kind, _ in emitter._reductions()]
    if not accs:
        return _into(emitter, tail, [])
    merged = scf.IfOp(tail.main_runs, [a.type for a in accs], has_else=True)
    with ir.InsertionPoint(merged.then_block):
        scf.YieldOp(_into(emitter, tail, accs))
    with ir.InsertionPoint(merged.else_block):
        scf.YieldOp(_from_neutral(emitter, tail, kinds, [ir.VectorType(a.type) for a in accs]))
    return list(merged.results)


def _steps(tail: Tail):
    """(width, start, condition, mask, offset) of each step after the main loop."""
    offset = 0
    for width, start, condition in tail.steps:
        yield width, start, condition, None, offset
        offset += width
    width, start, condition, mask = tail.masked
    yield width, start, condition, mask, offset


def _into(emitter, tail: Tail, accs: list) -> list:
    """The steps, each combined into its slice of `accs`."""
    for width, start, condition, mask, offset in _steps(tail):
        guard = scf.IfOp(condition, [a.type for a in accs], has_else=bool(accs))
        with ir.InsertionPoint(guard.then_block):
            parts = [_slice(acc, offset, width) for acc in accs]
            parts = emitter.step_at(width, start, parts, mask)
            if mask is not None:
                split_stores(guard.then_block, tail)
                split_loads(guard.then_block, tail)
            scf.YieldOp([_insert(part, acc, offset) for part, acc in zip(parts, accs)])
        if accs:
            with ir.InsertionPoint(guard.else_block):
                scf.YieldOp(accs)
        accs = list(guard.results)
    return accs


def _from_neutral(emitter, tail: Tail, kinds: list, types: list) -> list:
    """The steps' partial results from the neutral value, in their slices of `types`."""
    out = [_neutral(k, t) for k, t in zip(kinds, types)]
    for width, start, condition, mask, offset in _steps(tail):
        slices = [ir.VectorType.get([width], t.element_type) for t in types]
        guard = scf.IfOp(condition, slices, has_else=True)
        with ir.InsertionPoint(guard.then_block):
            start_values = [_neutral(k, t) for k, t in zip(kinds, slices)]
            parts = emitter.step_at(width, start, start_values, mask)
            if mask is not None:
                split_stores(guard.then_block, tail)
                split_loads(guard.then_block, tail)
            scf.YieldOp(parts)
        with ir.InsertionPoint(guard.else_block):
            scf.YieldOp([_neutral(k, t) for k, t in zip(kinds, slices)])
        out = [_insert(part, acc, offset) for part, acc in zip(guard.results, out)]
    return out


def split_stores(block: ir.Block, tail: Tail) -> None:
    """Each `vector.maskedstore` in `block` under the tail's mask -> `tail.pieces`: unmasked
    stores of the value's first live lanes, each under its condition. Each piece is the low
    half of what is left: the rest moves to the high half when the piece was stored (a select
    on the same condition), so no piece needs a dynamic lane index. i1 elements (bit-packed in
    LLVM's vectors, a byte each in memory) keep the masked store."""
    mask = tail.masked[3]
    for op in [o.operation for o in block.operations]:
        if op.name != "vector.maskedstore" or op.operands[-2] != mask or not tail.pieces:
            continue
        element = ir.VectorType(op.operands[-1].type).element_type
        if not isinstance(element, (ir.FloatType, ir.IntegerType)) or element.width % 8:
            continue
        base, *indices = list(op.operands)[:-2]
        rest = op.operands[-1]
        with ir.InsertionPoint(op), op.location:
            for w, offset, condition in tail.pieces:
                low, high = _slice(rest, 0, w), _slice(rest, w, w)
                piece = scf.IfOp(condition)
                with ir.InsertionPoint(piece.then_block):
                    at = [*indices[:-1], arith.addi(indices[-1], offset)]
                    if w == 1:
                        memref.store(vector.extract(low, [], [0]), base, at)
                    else:
                        vector.store(low, base, at)
                    scf.YieldOp([])
                if w > 1:
                    rest = arith.select(condition, high, low)
        op.erase()


def split_loads(block: ir.Block, tail: Tail) -> None:
    """Each `vector.maskedload` in `block` under the tail's mask -> `tail.pieces`: unmasked
    loads of narrowest/2, ..., 1 lanes, each under its condition, put together from the
    smallest up (each step's vector is the piece then what is below it, or what is below it
    then zeros), so no lane index is dynamic. The row was often just written by the previous
    nest's piece stores: a wide load over several narrower stores cannot take their data from
    the store queue and waits for them to reach the cache (~20 cycles a row on Zen 5); a piece
    load over the same piece store can. i1 elements keep the masked load."""
    mask = tail.masked[3]
    for op in [o.operation for o in block.operations]:
        if op.name != "vector.maskedload" or op.operands[-2] != mask or not tail.pieces:
            continue
        element = ir.VectorType(op.results[0].type).element_type
        if not isinstance(element, (ir.FloatType, ir.IntegerType)) or element.width % 8:
            continue
        base, *indices = list(op.operands)[:-2]
        with ir.InsertionPoint(op), op.location:
            acc = None
            for w, offset, condition in reversed(tail.pieces):
                zeros = _zeros(ir.VectorType.get([w], element))
                acc = zeros if acc is None else acc
                wide = ir.VectorType.get([2 * w], element)
                piece = scf.IfOp(condition, [wide], has_else=True)
                with ir.InsertionPoint(piece.then_block):
                    at = [*indices[:-1], arith.addi(indices[-1], offset)]
                    low = vector.load(ir.VectorType.get([w], element), base, at)
                    scf.YieldOp([vector.shuffle(low, acc, list(range(2 * w)))])
                with ir.InsertionPoint(piece.else_block):
                    scf.YieldOp([vector.shuffle(acc, zeros, list(range(2 * w)))])
                acc = piece.results[0]
            if not _is_zeros(op.operands[-1]):
                acc = arith.select(mask, acc, op.operands[-1])
        op.results[0].replace_all_uses_with(acc)
        op.erase()


def _zeros(t: ir.VectorType) -> ir.Value:
    return arith.constant(t, _zeros_attr(t))


def _is_zeros(value: ir.Value) -> bool:
    """`value` is a constant vector of +0 (the pass-through the vector loops give)."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    return owner.attributes["value"] == _zeros_attr(ir.VectorType(value.type))


def _zeros_attr(t: ir.VectorType) -> ir.Attribute:
    e = t.element_type
    zero = ir.FloatAttr.get(e, 0.0) if isinstance(e, ir.FloatType) else ir.IntegerAttr.get(e, 0)
    return ir.DenseElementsAttr.get_splat(t, zero)


def _slice(acc: ir.Value, offset: int, width: int) -> ir.Value:
    t = ir.VectorType(acc.type)
    if t.shape[0] == width:
        return acc
    part = ir.VectorType.get([width], t.element_type)
    return vector.extract_strided_slice(part, acc, [offset], [width], [1])


def _neutral(kind: str, t: ir.VectorType) -> ir.Value:
    attr = neutral(kind, t.element_type)
    return arith.constant(t, ir.DenseElementsAttr.get_splat(t, attr))


def _insert(part: ir.Value, acc: ir.Value, offset: int) -> ir.Value:
    if part.type == acc.type:
        return part
    return vector.insert_strided_slice(part, acc, [offset], [1])

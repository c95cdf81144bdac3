"""The rows of C a product kernel (outer or dot) cuts into register tiles, when the rows are `?`.

Whole register blocks of R rows first; then what is left (rest = M mod R, 0 < rest < R) as ONE
tile of the next size of R, R/2, R/4 ... 1 at or above `rest`, so B is read once for the rest
as for a static compile's one smaller tile. The tile's rows past M are clamped: they read A's
(and C's) row M - 1, every address inside the operands, and their results are not stored (each
such row's store under `scf.if (row < M)`). Its first `sure` rows (one more than the next
smaller size) are always inside M and take no clamp and no guard.

The tail ran as a tile each of R/2, R/4 ... 1 rows before (`?` M = 7: 4 + 2 + 1, three passes
over B, the 1- and 2-row tiles bound by the latency of their 2-4 FMA chains; GPT-2 b1 s7's
dynamic products 4.5 us over the static compile's one 7-row tile). A clamped tile does a few
FMAs more but is latency-bound anyway; it costs a few `min`s and guards per tile.

Each tile starts at the end of the whole blocks (a multiple of R), so it lies in one A strip
(a_pack) and, when the cache block of rows is a multiple of R, in one m block.
"""

from __future__ import annotations

from contextlib import contextmanager

from mlir import ir
from mlir.dialects import arith, scf

from .kernels import MASKED, ONE_ROW

# The `?` rows left after the whole blocks run as one clamped tile (A/B switch; False: a tile
# each of R/2, R/4 ... 1 rows in the outer kernel, one row at a time in the dot kernel)
CLAMPED_TAIL = True
# Vectors of columns an in-place one-row tile of `?` rows holds (column_parts)
ONE_ROW_VECTORS = 8


def row_parts(e, block: int, cache_rows: int | None = None, halving: bool = True) -> list[tuple]:
    """(lo, hi, rows, sure) ranges of m for kernel `e` with register blocks of `block` rows:
    a loop from lo to hi in steps of `rows`, whose first `sure` rows of each tile are inside
    M (the rest clamped and guarded). `cache_rows`: the m cache block the tiles' loops are cut
    by (a multiple of `block` keeps a tail tile inside one), None when there is none.
    `halving`: the rest with CLAMPED_TAIL off (the outer kernel's), else one row at a time."""
    c = e.c
    whole = cache_rows is None or cache_rows % block == 0
    if c.extents[c.m] is not None or not whole:
        return [(lo, hi, rows, rows) for lo, hi, rows in e._parts(c.m, block, ONE_ROW)]
    if not CLAMPED_TAIL:
        old = _halving_parts(e, block) if halving else e._parts(c.m, block, ONE_ROW)
        return [(lo, hi, rows, rows) for lo, hi, rows in old]
    extent = e.extent(c.m)
    top = e._top
    main = arith.muli(arith.divui(extent, e.index(block), ip=top), e.index(block), ip=top)
    rest = arith.subi(extent, main, ip=top)
    parts = [(e.index(0), main, block, block)]
    sizes = [block] + [1 << j for j in reversed(range(block.bit_length())) if 1 << j < block]
    for size, smaller in zip(sizes, sizes[1:] + [0]):
        # rest in (smaller, size]: one tile of `size` rows at `main`
        runs = arith.cmpi(arith.CmpIPredicate.ugt, rest, e.index(smaller), ip=top)
        if size < block:  # rest <= block - 1 always
            fits = arith.cmpi(arith.CmpIPredicate.ule, rest, e.index(size), ip=top)
            runs = arith.andi(runs, fits, ip=top)
        trips = arith.select(runs, e.index(1), e.index(0), ip=top)
        parts.append((main, arith.addi(main, trips, ip=top), size, smaller + 1))
    return parts


def column_parts(e, m_part: tuple, n_parts: list[tuple]) -> list[tuple]:
    """The column parts of an in-place tile of `m_part`: `n_parts`, but for the one-row tile
    of `?` rows blocks of ONE_ROW_VECTORS vectors (whole blocks, then the rest as before).
    The register block's 2 vectors are 2 FMA chains a k step, bound by the FMA latency, and
    each k step reads B 128 B of a row; 8 vectors hide the latency and read 512 B contiguous."""
    c = e.c
    wide = ONE_ROW_VECTORS * e.lanes
    if not CLAMPED_TAIL or m_part[2] != 1 or c.extents[c.m] is not None:
        return n_parts
    if ONE_ROW_VECTORS <= e.blocks.outer_vectors or e.blocks.block_n % wide:
        return n_parts
    return e._parts(c.n, wide, MASKED)


def _halving_parts(e, block: int) -> list[tuple]:
    """The rest as at most one tile each of R/2, R/4 ... 1 rows (CLAMPED_TAIL off; R a power of
    two, else one row at a time)."""
    c = e.c
    if block & (block - 1):
        return e._parts(c.m, block, ONE_ROW)
    extent = e.extent(c.m)
    parts, lo, rows = [], e.index(0), block
    while rows >= 1:
        left = arith.subi(extent, lo, ip=e._top)
        count = arith.divui(left, e.index(rows), ip=e._top)
        hi = arith.addi(lo, arith.muli(count, e.index(rows), ip=e._top), ip=e._top)
        parts.append((lo, hi, rows))
        lo, rows = hi, rows // 2
    return parts


def rows_at(e, m: ir.Value, rows: int, sure: int) -> list[ir.Value]:
    """The row of A (and of C to load) for each row of a tile at `m`: m + i, from `sure` on
    clamped to M - 1 (inside every operand; such a row is not stored)."""
    out = [m] + [arith.addi(m, e.index(i)) for i in range(1, rows)]
    if sure >= rows:
        return out
    last = arith.subi(e.extent(e.c.m), e.index(1))
    return [r if i < sure else arith.minui(r, last) for i, r in enumerate(out)]


@contextmanager
def store_guard(e, m: ir.Value, i: int, sure: int):
    """Builds what follows under `scf.if (m + i < M)` for a tile row that may be past M."""
    if i < sure:
        yield
        return
    row = arith.addi(m, e.index(i))
    inside = arith.cmpi(arith.CmpIPredicate.ult, row, e.extent(e.c.m))
    branch = scf.IfOp(inside)
    with ir.InsertionPoint(branch.then_block):
        yield
        scf.YieldOp([])

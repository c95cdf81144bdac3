"""Im2col products whose pixel count is a few columns past a multiple of 3 vectors (ResNet's
7x7 stage: 49 = 48 + 1 columns per image), as register tiles 3 vectors wide over the whole
vectors plus, for each column left, dot products along k fused into the same cache block.

The 8 x 2-vector tiles ran 49 columns as 32 + 17: a second tile of 16 + 1 lanes, 32 fmas per k
step for 49 columns (77% of the lanes). Tiles of 8 x 3 vectors (24 accumulators) take 48 of
them in 24 fmas a step; the last column of rows m..m+8 is 8 dot products of the filter rows
(contiguous along k, just read by the tiles, in L1) with that column of the copy, itself copied
contiguous once per image (`tail`): one fma per 16 k steps of a row instead of one per k step.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from . import m_tiles

# Vectors of columns in the wide register tile (rows x vectors accumulators: 8 x 3 = 24 zmm,
# + 3 of B + 1 broadcast)
TILE_VECTORS = 3
# At most this many columns past the wide tiles run as dot products (each costs a pass over
# the tile's filter rows per k block); 0 turns the path off
MAX_LEFT = 4


def left_columns(e, columns: int) -> int:
    """Columns past the whole 3-vector tiles that run as dot products; 0 when this path does not
    apply (f32 only, one n cache block, a few columns left)."""
    lanes = e.lanes
    if not isinstance(e.element, ir.F32Type) or lanes != 16:
        return 0
    wide = TILE_VECTORS * lanes
    left = columns % wide
    if columns < wide or not 0 < left <= MAX_LEFT or columns > e.blocks.block_n:
        return 0
    return left


def alloc_tail(e) -> ir.Value:
    """[left, K]: the copy's last columns, each contiguous along k."""
    k = e.c.extents[e.c.k]
    return memref.alloc(ir.MemRefType.get([e.left, k], e.element), [], [])


def copy_tail(e, packed: ir.Value, columns: int) -> None:
    """tail[j, k] = packed[k, columns - left + j]."""
    c = e.c
    k_loop = scf.ForOp(e.index(0), e.index(c.extents[c.k]), e.index(1))
    with ir.InsertionPoint(k_loop.body):
        k = k_loop.induction_variable
        for j in range(e.left):
            value = memref.load(packed, [k, e.index(columns - e.left + j)])
            memref.store(value, e.tail, [e.index(j), k])
        scf.YieldOp([])


def in_place(e, ivs, columns: int) -> None:
    """The tiles of one image's block: m blocks -> k blocks -> 8 x 48 tiles over the whole
    vectors, then the dot products of the columns left for the same rows and k block."""
    c, blocks = e.c, e.blocks
    wide = columns - e.left
    m_parts = e._m_parts(blocks.block_m)
    m0 = scf.ForOp(e.index(0), e.extent(c.m), e.index(blocks.block_m))
    with ir.InsertionPoint(m0.body):
        k0 = scf.ForOp(e.index(0), e.extent(c.k), e.index(blocks.block_k))
        with ir.InsertionPoint(k0.body):
            bm, bk = m0.induction_variable, k0.induction_variable
            at = (bm, e.index(0), bk)
            for m_part in m_parts:
                e._tile(ivs, at, m_part, (0, wide, TILE_VECTORS * e.lanes))
            for m_part in m_parts:
                _left_dots(e, ivs, bm, bk, m_part, wide)
            scf.YieldOp([])
        scf.YieldOp([])


def _left_dots(e, ivs, bm, bk, m_part, wide: int) -> None:
    """C[m + i, wide + j] += sum over the k block of A[m + i, k] * tail[j, k], lanes along k."""
    c = e.c
    lo, hi, rows, sure = m_part
    m_loop = e._range_loop(lo, hi, rows, bm, e.blocks.block_m)
    with ir.InsertionPoint(m_loop.body):
        m = m_loop.induction_variable
        row_at = m_tiles.rows_at(e, m, rows, sure)
        k_stop = arith.minsi(arith.addi(bk, e.index(e.blocks.block_k)), e.extent(c.k))
        first = arith.cmpi(arith.CmpIPredicate.eq, bk, e.index(0))
        for j in range(e.left):
            k_loop = scf.ForOp(bk, k_stop, e.index(e.lanes), [e.zeros] * rows)
            with ir.InsertionPoint(k_loop.body):
                k = k_loop.induction_variable
                width = arith.minsi(e.index(e.lanes), arith.subi(k_stop, k))
                b = e._load_lanes(e.tail, [e.index(j), k], width)
                out = []
                for i in range(rows):
                    a = e._load_lanes(c.a, e._at(0, {**ivs, c.m: row_at[i], c.k: k}, {}), width)
                    out.append(vector.fma(a, b, k_loop.inner_iter_args[i]))
                scf.YieldOp(out)
            for i in range(rows):
                with m_tiles.store_guard(e, m, i, sure):
                    at = {**ivs, c.m: row_at[i], c.n: e.index(wide + j)}
                    indices = e._at(2, at, {})
                    start = e._load_scalar(c.c, indices)
                    if e.c_starts_zero:  # C's fill was dropped: its first k block adds to 0
                        zero = arith.constant(e.element, 0.0)
                        start = arith.select(first, zero, start)
                    total = vector.reduction(
                        e.element, _add(), k_loop.results[i], acc=start, fastmath=_reassoc()
                    )
                    e._store_scalar(total, c.c, indices)
        scf.YieldOp([])


def _add() -> ir.Attribute:
    return ir.Attribute.parse("#vector.kind<add>")


def _reassoc() -> ir.Attribute:
    # a tree of adds across the lanes, not a chain of 16 dependent ones
    return ir.Attribute.parse("#arith.fastmath<reassoc>")

"""A few rows of a bf16 product on AMX tiles (decode on an AMX-BF16 target): the columns of
the pair-dot kernel (`narrow_dot`) in whole blocks of 16 of the weight's rows.

vdpbf16ps and the f32 fmas do 16-32 bf16 products a cycle, so with 5-8 rows of x the pair-dot
kernel is bound by its multiply-adds, not by the weight's stream. `tdpbf16ps` multiplies a
16 x 32 bf16 tile by a 32 x N one (k pairs interleaved) in ~16 cycles for any N <= 16, so here:
- the weight `W [n, k]` (k contiguous, a static multiple of 32) is the 16-row tile operand,
  loaded in place, 16 rows x 32 k a tile, never copied;
- x (M <= 8 rows, static or `?`) is copied once to an 8-column VNNI buffer `[k/2][8][2]` (each
  row's k pairs scattered as 32-bit words; columns past M zero), one 16 x 16 bf16 tile per
  32 k;
- each block of BLOCKS x 16 weight rows accumulates BLOCKS 16 x 8 f32 tiles (C transposed)
  across k, stored to a small buffer and added into C a row of 16 at a time (gathered down the
  buffer's columns), for the first M rows only.
The columns past the last whole block are the pair-dot kernel's, as are products whose k is
not a multiple of 32 (a tile would read past a row of W) or whose C is not contiguous along n.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

# rows of W a tile holds, k a tile holds, columns of x (padded rows) in the VNNI tile
ROWS, DEPTH, COLUMNS = 16, 32, 8
# 16-row weight blocks per pass (BLOCKS row tiles + BLOCKS result tiles + 1 x tile <= 8): one
# streams 16 rows of W at once; 3 (48 rows) measured 5-20% slower at every M (x[8,4096] @
# W[4096,4096].T: 1.41 ms with 1, 1.59 with 3), more rows than the prefetchers follow
BLOCKS = 1


def _segments(*sizes: int) -> ir.Attribute:
    # the ops' optional stride operand (and, for the store, a mask) left out
    return ir.DenseI32ArrayAttr.get(list(sizes))


def _tile(rows: int, cols: int, element: ir.Type) -> ir.Type:
    return ir.Type.parse(f"!amx.tile<{rows}x{cols}x{element}>")


def fits(e) -> bool:
    """Whether the tile columns apply to the pair-dot emitter `e`'s product: k a static multiple
    of 32, W `[.., n, k]` and C `[.., m, n]` contiguous, at least one whole block of columns."""
    c = e.c
    k, n = c.extents[c.k], c.extents[c.n]
    # two blocks at least: a loop of one trip folds away, and `opt`'s loop-extract would give
    # the k loop (carrying tiles) a function of its own taking tiles, which LLVM refuses
    if k is None or k % DEPTH or (n is not None and n < 2 * ROWS * BLOCKS):
        return False
    w_index, c_index = c.index[1], c.index[2]
    w_rows = len(w_index) >= 2 and w_index[-2] == ((c.n, 1),) and w_index[-1] == ((c.k, 1),)
    c_rows = len(c_index) >= 2 and c_index[-1] == ((c.n, 1),) and c_index[-2] == ((c.m, 1),)
    return w_rows and c_rows and _strides_static(c.b) and _strides_static(c.c)


def _strides_static(v: ir.Value) -> bool:
    strides, _ = ir.MemRefType(v.type).get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return strides[-1] == 1 and dynamic not in strides


class TileColumns:
    """Builds the tile nest for the emitter `e` (a `narrow_dot.NarrowDot`): its constants,
    extents, indices and gathers."""

    def __init__(self, e):
        self.e = e
        self.blocks = BLOCKS
        self.bf16, self.f32 = ir.BF16Type.get(), ir.F32Type.get()
        self.i32 = ir.IntegerType.get_signless(32)

    def emit(self, ivs) -> ir.Value:
        """The nest at the current point for the loop dims `ivs`; returns where the columns it
        did not compute start."""
        e, c = self.e, self.e.c
        step = ROWS * self.blocks
        n = e.extent(c.n)
        n_main = arith.muli(arith.divui(n, e.index(step)), e.index(step))
        raw, (words, vnni) = self._vnni_buffers()
        self._pack_x(ivs, words)
        # one result buffer for every trip: cpu-parallelize-loops proves trips disjoint before
        # sharing them out, which this shared buffer (and the tile ops) rule out; an alloca per
        # trip would grow the stack by 512 bytes a trip (no stack restore in an scf.for)
        out = memref.alloc(ir.MemRefType.get([step, COLUMNS], self.f32), [], [])
        n_loop = scf.ForOp(e.index(0), n_main, e.index(step))
        with ir.InsertionPoint(n_loop.body):
            n0 = n_loop.induction_variable
            self._products(ivs, n0, vnni, out)
            self._add_into_c(ivs, n0, out)
            scf.YieldOp([])
        memref.dealloc(out)
        memref.dealloc(raw)
        return n_main

    def _vnni_buffers(self):
        """x's VNNI copy `[k/2][8][2]` bf16, and the same bytes as `[k/2][8]` i32 words (a pair
        of k is one word: the scatter moves pairs)."""
        e, c = self.e, self.e.c
        pairs = c.extents[c.k] // 2
        i8 = ir.IntegerType.get_signless(8)
        raw = memref.alloc(ir.MemRefType.get([pairs * COLUMNS * 4], i8), [], [])
        zero = e.index(0)
        words = memref.view(ir.MemRefType.get([pairs, COLUMNS], self.i32), raw, zero, [])
        vnni = memref.view(ir.MemRefType.get([pairs, 2 * COLUMNS], self.bf16), raw, zero, [])
        return raw, (words, vnni)

    def _pack_x(self, ivs, words) -> None:
        """Row m of x (m < 8; rows past M zero) into column m of the VNNI words: 16 pairs of k
        a step, loaded as 16 words and scattered 8 words apart."""
        e, c = self.e, self.e.c
        lanes = e.lanes
        word_vector = ir.VectorType.get([lanes], self.i32)
        zeros = arith.constant(
            word_vector,
            ir.DenseElementsAttr.get_splat(word_vector, ir.IntegerAttr.get(self.i32, 0)),
        )
        offsets = self._every_column()
        everywhere = vector.constant_mask(e.mask_type, [lanes])
        last = arith.subi(e.extent(c.m), e.index(1))
        m_loop = scf.ForOp(e.index(0), e.index(COLUMNS), e.index(1))
        with ir.InsertionPoint(m_loop.body):
            m = m_loop.induction_variable
            row = arith.minui(m, last)
            inside = arith.cmpi(arith.CmpIPredicate.ult, m, e.extent(c.m))
            k_loop = scf.ForOp(e.index(0), e.index(c.extents[c.k]), e.index(2 * lanes))
            with ir.InsertionPoint(k_loop.body):
                k = k_loop.induction_variable
                pairs = vector.load(e.pairs, c.a, e._at(0, {**ivs, c.m: row, c.k: k}, {}))
                value = arith.select(inside, vector.bitcast(word_vector, pairs), zeros)
                at = arith.divui(k, e.index(2))
                vector.scatter(None, words, [at, m], offsets, everywhere, value)
                scf.YieldOp([])
            scf.YieldOp([])

    def _products(self, ivs, n0, vnni, out) -> None:
        """BLOCKS 16 x 8 result tiles of rows n0.. of W across k, stored into `out`."""
        e, c = self.e, self.e.c
        acc_type = _tile(ROWS, COLUMNS, self.f32)
        accs = [ir.Operation.create("amx.tile_zero", results=[acc_type]).result] * self.blocks
        k_loop = scf.ForOp(e.index(0), e.index(c.extents[c.k]), e.index(DEPTH), accs)
        with ir.InsertionPoint(k_loop.body):
            k = k_loop.induction_variable
            pair = arith.divui(k, e.index(2))
            x = self._load(vnni, [pair, e.index(0)], _tile(ROWS, 2 * COLUMNS, self.bf16))
            new = []
            for t, acc in enumerate(k_loop.inner_iter_args):
                w_at = e._at(1, {**ivs, c.n: n0, c.k: k}, {c.n: t * ROWS})
                w = self._load(c.b, w_at, _tile(ROWS, DEPTH, self.bf16))
                mul = ir.Operation.create("amx.tile_mulf", results=[acc_type], operands=[w, x, acc])
                new.append(mul.result)
            scf.YieldOp(new)
        for t, tile in enumerate(k_loop.results):
            ir.Operation.create(
                "amx.tile_store",
                operands=[out, e.index(t * ROWS), e.index(0), tile],
                attributes={"operandSegmentSizes": _segments(1, 2, 1, 0)},
            )

    def _every_column(self) -> ir.Value:
        """[0, 8, 16, ...]: a lane per row of a COLUMNS-wide buffer (a scatter's or a gather's
        offsets from its base)."""
        t = ir.VectorType.get([self.e.lanes], self.i32)
        values = [ir.IntegerAttr.get(self.i32, i * COLUMNS) for i in range(self.e.lanes)]
        return arith.constant(t, ir.DenseElementsAttr.get(values, type=t))

    def _load(self, base, indices, tile_type) -> ir.Value:
        return ir.Operation.create(
            "amx.tile_load",
            results=[tile_type],
            operands=[base, *indices],
            attributes={"operandSegmentSizes": _segments(1, len(indices), 0)},
        ).result

    def _add_into_c(self, ivs, n0, out) -> None:
        """C[m, n0 + j] += out[j, m] for m < M: 16 columns a step, gathered 8 apart."""
        e, c = self.e, self.e.c
        offsets = self._every_column()
        everywhere = vector.constant_mask(e.mask_type, [e.lanes])
        m_loop = scf.ForOp(e.index(0), e.extent(c.m), e.index(1))
        with ir.InsertionPoint(m_loop.body):
            m = m_loop.induction_variable
            for t in range(self.blocks * ROWS // e.lanes):
                value = vector.gather(
                    e.vector, out, [e.index(t * e.lanes), m], offsets, everywhere, e.zeros
                )
                at = e._at(2, {**ivs, c.m: m, c.n: n0}, {c.n: t * e.lanes})
                total = arith.addf(vector.load(e.vector, c.c, at), value)
                vector.store(total, c.c, at)
            scf.YieldOp([])

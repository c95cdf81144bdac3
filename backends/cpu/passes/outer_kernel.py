"""The outer-product kernel of `cpu-vectorize-contractions`, for B and C contiguous along n (`a @
b`, a convolution's image and output along the columns, a B^T packed as [k, n]): a rows x NR
block of C lives in vector registers across the k loop; each k step broadcasts `rows` scalars of
A and loads NR lanes of B (a strided conv: gathers them).

The loops are blocked for the caches. With at least PANEL_MIN_ROWS rows (or `?` rows), each
[block_k, block_n] block of B is first copied as panels [block_n / NR, block_k, NR] (lanes past
n zero), GotoBLAS's packing: a tile's k loop then streams one contiguous panel (block_k x NR,
L1-sized) instead of rows of B a whole row apart, which alias the same L1 sets when that row is
a multiple of 4 KiB (1024 f32 columns) and spread every k step over another page. The order is
GotoBLAS's, n block -> k block -> copy -> m blocks -> n tiles -> m tiles: each block of B is
copied once for the whole product (in L2 while every m block uses it), however the rows are
cut; an m-outer order copied all of B again per m block (8 times for BERT's 1024 x 3072 x 768:
1 thread 43.4 -> 34.9 ms). The copy is allocated per n block, so the n blocks are independent
and cpu-parallelize-loops shares them out whole (one call, each thread copying its own part of
B); a single n block leaves it the m blocks of each k block. Fewer rows than PANEL_MIN_ROWS do
not pay for the copy: their tiles read B in place. On the panel path A is also copied once per
product, as k-major strips of the register block's rows (a_pack: a tile's broadcasts read one
contiguous run instead of R rows of A a whole row apart).
"""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from . import a_pack, m_tiles
from .b_panels import pack_panels, reads_b_in_place
from .kernels import MASKED, KernelEmitter, lane_stride
from .transposed_panels import pack_panels_from_rows

# Rows of C from which copying B into panels pays (the copy is one load and store per element,
# the kernel then does `rows` fmas per element)
PANEL_MIN_ROWS = 64
# m blocks a product with known rows is cut into at least (see OuterKernel._panel_rows)
MIN_M_BLOCKS = 8
# ... but of no fewer rows than this (the tiles of a block share its A block in L2)
MIN_BLOCK_ROWS = 128
# Prefetch the next tile's C rows (see OuterKernel._prefetch_next_c)
PREFETCH_C = True
# Byte alignment of the panel copy (0: malloc's, 16 past a page for a large block, so every
# zmm load of a panel straddles two cache lines); 64: x[1024,3072] @ W[768,3072].T 2-3% faster
# in each of three same-process runs, up/mm1024 0-3%
PANEL_ALIGN = 64
# Copy A as strips of register-block rows, k-major, once per product on the panel path (a_pack)
PACK_A = True
# Reduction dims among the loops around the kernel run inside each tile (OuterKernel.emit)
REGISTER_WINDOW = True


class OuterKernel(KernelEmitter):
    """C[m, n] += sum over k of A[m, k] * B[k, n], lanes along n."""

    # A `packed` kernel (B's lanes along k) copies its panels straight from B's rows
    PANELS_FROM_ROWS = True
    # reduction dims run inside each tile (see emit); none for a kernel built without emit
    window_dims: tuple[int, ...] = ()

    def _on_panels_path(self) -> bool:
        rows = self.c.extents[self.c.m]
        if self.c.kernel == "packed" and self.PANELS_FROM_ROWS:
            return True  # in place would first copy B^T element by element: one copy, not two
        if reads_b_in_place(self.c, self.blocks):
            return False
        return rows is None or rows >= PANEL_MIN_ROWS

    def _copies_b_t(self) -> bool:
        # panels transposed from B's rows need no B^T copy first (one copy, not two)
        return not (self.PANELS_FROM_ROWS and self._on_panels_path())

    def emit(self) -> None:
        # the reduction dims among the loops around the kernel (a direct conv's channels and
        # other window dim) run inside each tile, around its k loop: its accumulators stay in
        # registers across the whole window, not loaded and stored again every KW taps
        c_dims = {d for form in self.c.index[2] for d, _ in form}
        self.window_dims = ()
        if REGISTER_WINDOW and self.c.kernel == "outer":
            self.window_dims = tuple(d for d in self.c.outer if d not in c_dims)
            outer = tuple(d for d in self.c.outer if d in c_dims)
            self.c = dataclasses.replace(self.c, outer=outer)
        super().emit()

    def _kernel(self, ivs):
        if self.window_dims:
            self._in_place(ivs)  # each tile reads its whole window: no copy per outer trip
        elif self._on_panels_path():
            self._on_panels(ivs)
        else:
            self._in_place(ivs)

    def _in_place(self, ivs):
        c, blocks = self.c, self.blocks
        m_parts = self._m_parts(blocks.block_m)
        n_parts = self._parts(c.n, blocks.outer_vectors * self.lanes, MASKED)
        m0 = scf.ForOp(self.index(0), self.extent(c.m), self.index(blocks.block_m))
        with ir.InsertionPoint(m0.body):
            n0 = scf.ForOp(self.index(0), self.extent(c.n), self.index(blocks.block_n))
            with ir.InsertionPoint(n0.body):
                k0 = scf.ForOp(self.index(0), self.extent(c.k), self.index(blocks.block_k))
                with ir.InsertionPoint(k0.body):
                    at = (m0.induction_variable, n0.induction_variable, k0.induction_variable)
                    for m_part in m_parts:
                        for n_part in m_tiles.column_parts(self, m_part, n_parts):
                            self._tile(ivs, at, m_part, n_part)
                    scf.YieldOp([])
                scf.YieldOp([])
            scf.YieldOp([])

    def _on_panels(self, ivs):
        columns = a_pack.strip_columns(self, PACK_A)
        if columns is None:
            self._panels_nest(ivs, PACK_A and a_pack.packs_a(self))
            return
        # `?` columns: A copied as strips only from as many columns as a static compile copies
        # it (dynamic `q @ k.T`, n the sequence, copied A at s33: 1.17x the static compile)
        wide = arith.cmpi(arith.CmpIPredicate.sge, self.extent(self.c.n), self.index(columns))
        branch = scf.IfOp(wide, has_else=True)
        for block, strips in ((branch.then_block, True), (branch.else_block, False)):
            with ir.InsertionPoint(block):
                self._panels_nest(ivs, strips)
                scf.YieldOp([])

    def _panels_nest(self, ivs, pack_a: bool):
        """GotoBLAS's order: n block -> k block -> copy B's block as panels -> m blocks -> n
        tiles -> m tiles. Each [block_k, block_n] block of B is copied once for the whole
        product, however the rows are cut into m blocks; the copy (in L2) is reused by every
        m block, each A block (panel rows x block_k, in L2) by every panel of the copy."""
        c, blocks = self.c, self.blocks
        nr = self._nr()
        m_parts = self._m_parts(self._panel_rows())
        n_parts = self._parts(c.n, nr, MASKED)
        # a static k or n shorter than the block: the copy no bigger than B
        k, n = self.c.extents[c.k], self.c.extents[c.n]
        # k rounded up to whole vectors: a transposed pack stores L rows of k at a time
        k_rows = blocks.block_k if k is None else min(blocks.block_k, k)
        block_n = self._n_block()
        shape = [
            block_n // nr if n is None else min(block_n // nr, -(-n // nr)),
            -(-k_rows // self.lanes) * self.lanes,
            nr,
        ]
        panel_type = ir.MemRefType.get(shape, self.element)
        strips = None
        if pack_a:
            strips = a_pack.alloc_strips(self)
            a_pack.pack_strips(self, ivs, strips)
        # private to the n block: the n blocks are independent (shared out whole, no wait
        # between a thread's copy and its tiles); the n blocks of 2 threads measured 1.2-1.4x
        # faster than sharing the m blocks of each (n, k) block (a call and a wait per block)
        n0 = scf.ForOp(self.index(0), self.extent(c.n), self.index(block_n))
        with ir.InsertionPoint(n0.body):
            block_panels = memref.alloc(panel_type, [], [], alignment=PANEL_ALIGN or None)
            k0 = scf.ForOp(self.index(0), self.extent(c.k), self.index(blocks.block_k))
            with ir.InsertionPoint(k0.body):
                bn, bk = n0.induction_variable, k0.induction_variable
                if self.c.kernel == "packed" and self.PANELS_FROM_ROWS:
                    pack_panels_from_rows(self, ivs, block_panels, bn, bk, nr)
                else:
                    pack_panels(self, ivs, block_panels, bn, bk, nr)
                m0 = scf.ForOp(self.index(0), self.extent(c.m), self.index(self._panel_rows()))
                with ir.InsertionPoint(m0.body):
                    at = (m0.induction_variable, bn, bk)
                    for n_part in n_parts:
                        for m_part in m_parts:
                            self._tile(ivs, at, m_part, n_part, block_panels, strips)
                    scf.YieldOp([])
                scf.YieldOp([])
            memref.dealloc(block_panels)
            scf.YieldOp([])
        if strips is not None:
            memref.dealloc(strips)

    def _m_parts(self, block_m: int) -> list[tuple]:
        """(lo, hi, rows, sure) ranges of m: whole register blocks, then the rest (m_tiles: a
        `?` rest as one tile whose rows from `sure` on are clamped)."""
        return m_tiles.row_parts(self, self.blocks.outer_rows, block_m)

    def _n_block(self) -> int:
        """Columns per n block on the panel path: block_n, or for known columns the equal
        whole panels that make as many blocks (768 columns: 2 x 384, not 512 + 256), so the
        threads' shares are even."""
        n, block, nr = self.c.extents[self.c.n], self.blocks.block_n, self._nr()
        if n is None:
            return block
        count = -(-n // block)
        columns = -(-n // count)
        return -(-columns // nr) * nr

    def panel_bounds(self, bn, bk, nr: int):
        """(k rows, columns, panels) of the block of B at (bk, bn) a panel copy fills: the
        block's k rows and columns, both cut at B's end, the columns in panels of `nr`."""
        c = self.c
        k_stop = arith.minsi(self.index(self.blocks.block_k), arith.subi(self.extent(c.k), bk))
        n_left = arith.minsi(self.index(self._n_block()), arith.subi(self.extent(c.n), bn))
        return k_stop, n_left, arith.divui(arith.addi(n_left, self.index(nr - 1)), self.index(nr))

    def panel_row(self, bn, first, r: int, n_left, k_left):
        """(row of B, elements to read) for row `first + r` of a panel copy's block at column
        `bn`: past the block's `n_left` columns the row index is clamped to B's last row (never
        outside B) and nothing is read (zeros), else `k_left` elements."""
        row = arith.addi(first, self.index(r))
        inside = arith.cmpi(arith.CmpIPredicate.slt, row, n_left)
        last = arith.subi(self.extent(self.c.n), self.index(1))
        n = arith.minsi(arith.addi(bn, row), last)
        return n, arith.select(inside, k_left, self.index(0))

    def _nr(self) -> int:
        """Columns of a panel: the register block's."""
        return self.blocks.outer_vectors * self.lanes

    def _panel_rows(self) -> int:
        """Rows per m block: the target's panel_m, but at least MIN_M_BLOCKS blocks of C when the
        rows are known (never under MIN_BLOCK_ROWS): with a single n block the m blocks of each
        k block are what cpu-parallelize-loops shares out. A smaller m block copies nothing
        again (B's copy is per (n, k) block), it only re-reads its A block per n block."""
        rows, step = self.c.extents[self.c.m], self.blocks.panel_m
        if rows is None:
            return step
        whole = lambda r: -(-r // self.blocks.outer_rows) * self.blocks.outer_rows  # noqa: E731
        # a whole number of register blocks, as every cache block (a tile may not straddle two)
        return min(step, max(whole(MIN_BLOCK_ROWS), whole(-(-rows // MIN_M_BLOCKS))))

    def _tile(self, ivs, blocks, m_part, n_part, panels=None, strips=None):
        """The tiles of one (rows, columns) part in the current cache block: rows x NR
        accumulators across the k block, B from `panels` when given, else in place."""
        c = self.c
        bm, bn, bk = blocks
        lo, hi, rows, sure = m_part  # rows of a tile from `sure` on may be past M (m_tiles)
        m_part, cols = (lo, hi, rows), n_part[2]
        if cols == MASKED:
            n_part = (n_part[0], n_part[1], self.lanes)
        block_m = self.blocks.block_m if panels is None else self._panel_rows()
        ranges = {
            "m": lambda: self._range_loop(*m_part, bm, block_m),
            "n": lambda: self._range_loop(
                *n_part, bn, self.blocks.block_n if panels is None else self._n_block()
            ),
        }
        loops = {}
        with ExitStack() as nest:
            for which in ("m", "n") if panels is None else ("n", "m"):
                loops[which] = ranges[which]()
                nest.enter_context(ir.InsertionPoint(loops[which].body))
            m, n = loops["m"].induction_variable, loops["n"].induction_variable
            if cols == MASKED:  # what is left of the row, past the last whole block
                widths = [arith.subi(self._v(n_part[1]), n)]
            else:
                widths = [min(self.lanes, cols - j) for j in range(0, cols, self.lanes)]
            at = {**ivs, c.m: m, c.n: n}
            if panels is not None and PREFETCH_C:
                self._prefetch_next_c(at, rows, len(widths))
            b_lanes = self._b_lanes(at, widths, bn, bk, panels)
            row_at = m_tiles.rows_at(self, m, rows, sure)
            accs = self._c_tile(at, rows, widths, bk, row_at)
            read_a = None if strips is None else a_pack.strip_reader(self, strips, m, bk)
            k_stop = arith.minsi(arith.addi(bk, self.index(self.blocks.block_k)), self.extent(c.k))

            def k_steps(at_window, accs):
                k_loop = scf.ForOp(bk, k_stop, self.index(1), accs)
                with ir.InsertionPoint(k_loop.body):
                    at_k = {**at, **at_window, c.k: k_loop.induction_variable}
                    bs = b_lanes(at_k)
                    out = []
                    for i in range(rows):
                        if read_a is None:
                            a = self._load_scalar(c.a, self._at(0, {**at_k, c.m: row_at[i]}, {}))
                        else:
                            a = read_a(k_loop.induction_variable, i)
                        a = vector.broadcast(self.vector, a)
                        for j in range(len(widths)):
                            acc = k_loop.inner_iter_args[i * len(widths) + j]
                            out.append(vector.fma(a, bs[j], acc))
                    scf.YieldOp(out)
                return list(k_loop.results)

            results = self._around_k(list(self.window_dims), {}, accs, k_steps)
            self._store_tile(results, at, rows, widths, row_at, sure)
        for which in ("n", "m") if panels is None else ("m", "n"):
            with ir.InsertionPoint(loops[which].body):
                scf.YieldOp([])

    def _store_tile(self, results, at, rows, widths, row_at=None, sure=None) -> None:
        """Stores the tile's accumulators (row i, vector j: results[i * V + j]) into C, rows
        from `sure` on only where inside M (m_tiles)."""
        c = self.c
        row_at = row_at or m_tiles.rows_at(self, at[c.m], rows, rows)
        for i in range(rows):
            with m_tiles.store_guard(self, at[c.m], i, rows if sure is None else sure):
                for j, w in enumerate(widths):
                    indices = self._at(2, {**at, c.m: row_at[i]}, {c.n: j * self.lanes})
                    self._store_lanes(results[i * len(widths) + j], c.c, indices, w)

    def _around_k(self, dims, at, accs, k_steps) -> list[ir.Value]:
        """The tile's k loop (`k_steps(at, accs)`) inside a loop per window dim, the
        accumulators carried through all of them."""
        if not dims:
            return k_steps(at, accs)
        loop = scf.ForOp(self.index(0), self.extent(dims[0]), self.index(1), accs)
        with ir.InsertionPoint(loop.body):
            at = {**at, dims[0]: loop.induction_variable}
            scf.YieldOp(self._around_k(dims[1:], at, list(loop.inner_iter_args), k_steps))
        return list(loop.results)

    def _c_tile(self, at, rows, widths, bk, row_at=None) -> list[ir.Value]:
        """The tile's accumulators at the start of k block `bk`: C's values (of rows `row_at`,
        m + i by default), or zeros in the first block when C starts zero (its fill folded in)."""
        c = self.c
        if row_at is None:
            row_at = m_tiles.rows_at(self, at[c.m], rows, rows)

        def load():
            return [
                self._load_lanes(c.c, self._at(2, {**at, c.m: row_at[i]}, {c.n: j * self.lanes}), w)
                for i in range(rows)
                for j, w in enumerate(widths)
            ]

        if not self.c_starts_zero:
            return load()
        first = arith.cmpi(arith.CmpIPredicate.eq, bk, self.index(0))
        branch = scf.IfOp(first, [self.vector] * (rows * len(widths)), has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([self.zeros] * (rows * len(widths)))
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp(load())
        return list(branch.results)

    def _prefetch_next_c(self, at, rows, vectors):
        """Prefetches the C rows of the next tile down (its rows clamped to the last row, so
        every address is in C): C rows are a row of C apart and were last touched a whole n
        block ago, so the tile's first fmas otherwise wait on L2/L3 misses (~15% of mm 1024^3)."""
        c = self.c
        last = arith.subi(self.extent(c.m), self.index(1))
        for i in range(rows):
            row = arith.minsi(arith.addi(at[c.m], self.index(rows + i)), last)
            for j in range(vectors):
                indices = self._at(2, {**at, c.m: row}, {c.n: j * self.lanes})
                memref.prefetch(c.c, indices, False, 3, True)

    def _b_lanes(self, at, widths, bn, bk, panels):
        """A function of the k step's indices giving the tile's vectors of B."""
        c = self.c
        if panels is None:
            stride = lane_stride(self.b_index, c.n)

            def in_place(at_k):
                return [
                    self._load_lanes(self.b, self._at(1, at_k, {c.n: j * self.lanes}), w, stride)
                    for j, w in enumerate(widths)
                ]

            return in_place
        nr = self.blocks.outer_vectors * self.lanes
        column = arith.subi(at[c.n], bn)
        p = arith.divui(column, self.index(nr))
        offset = arith.remui(column, self.index(nr))  # 0 but in a masked tail

        def from_panels(at_k):
            kk = arith.subi(at_k[c.k], bk)
            return [
                vector.load(
                    self.vector, panels, [p, kk, arith.addi(offset, self.index(j * self.lanes))]
                )
                for j in range(len(widths))
            ]

        return from_panels

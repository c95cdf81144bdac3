"""The dot kernel of `cpu-vectorize-contractions`, for A and B both contiguous along k (`a @ b.T`,
a linear layer's weight): a rows x cols block of C keeps one vector of partial sums per element
across k, reduced across lanes once at the end into C, so no operand is transposed in memory.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from . import m_tiles
from .kernels import ONE_ROW, KernelEmitter, lane_stride
from .lane_shuffles import lane_sums


def _reassoc() -> ir.Attribute:
    # an unflagged reduction is a chain of 16 dependent adds; the tree is what eager does too
    return ir.Attribute.parse("#arith.fastmath<reassoc>")


def _add_kind() -> ir.Attribute:
    return ir.Attribute.parse("#vector.kind<add>")


# At most this many rows of C (decode: one token, a few beams) run as one register block,
# of up to FEW_ROWS_COLS columns (B rows) when the registers hold them.
FEW_ROWS = 8
FEW_ROWS_COLS = 4
# Prefetch the next cache block of B from the tiles' k loops when B is this big or bigger
# (A/B switch: None never): see `_next_block_prefetch`
PREFETCH_MIN_B_BYTES: int | None = 1 << 20
# prefetcht1: into L2, where the next block's tiles read it from (A's tile rows stay in L1)
PREFETCH_LOCALITY = 2
# A B of this many bytes or more (beyond L3: GPT-2's 154 MB logits weight) runs 4 x 4 blocks,
# not the AVX-512 8 x 2: the first row tile of each block streams its rows from DRAM, 1/16 of
# the block's work with 4-row tiles at 64 rows, 1/8 with 8-row ones. x[64,768] @
# W[50257,768].T, 1 thread, same process, % of FMA peak: 4 x 4 66.4-66.8 (before), 8 x 2 +
# prefetch 63.9-68.4, 4 x 4 + prefetch 70.2-72.4. From STREAMED_MAX_ROWS static rows on such
# a B is not prefetched: the first row tile is a small part of the block's 64+ tiles and the
# prefetches cost more than they hide (x[256,768] @ W[50257,768].T: 76.3 without, 73.0 with)
STREAMED_B_BYTES = 32 << 20
STREAMED_B_BLOCK = (4, 4)
STREAMED_MAX_ROWS = 128


class DotKernel(KernelEmitter):
    """C[m, n] += sum over k of A[m, k] * B[n, k], lanes along k."""

    def _kernel(self, ivs):
        c = self.c
        rows, cols = self._register_block()
        rows_static = c.extents[c.m]
        narrow = ir.MemRefType(c.a.type).element_type != self.element
        self._a_wide = None
        if narrow and rows_static is not None and rows_static <= FEW_ROWS:
            self._a_wide = self._widen_a(ivs)
        n0 = scf.ForOp(self.index(0), self.extent(c.n), self.index(self.blocks.dot_block_n))
        with ir.InsertionPoint(n0.body):
            for m_part in m_tiles.row_parts(self, rows, halving=False):
                for n_part in self._parts(c.n, self._tile_cols(m_part[2], rows, cols), ONE_ROW):
                    self._dot_tile(ivs, n0.induction_variable, m_part, n_part)
            scf.YieldOp([])
        if self._a_wide is not None:
            memref.dealloc(self._a_wide)

    def _register_block(self) -> tuple[int, int]:
        """(rows, cols) of the block of C. A few rows (decode, M <= FEW_ROWS) all in one block
        when the registers hold them, so B (the weight) is streamed once, not once per block of
        rows: M x cols accumulators plus M + cols operands."""
        rows, cols = self.blocks.dot_rows, self.blocks.dot_cols
        m = self.c.extents[self.c.m]
        registers = 30 if self.blocks.vector_bytes >= 64 else 14
        if m is None or m > FEW_ROWS:
            if rows * cols == 16 and self._b_bytes() >= STREAMED_B_BYTES:
                return STREAMED_B_BLOCK
            return rows, cols
        for few_cols in (FEW_ROWS_COLS, 2, 1):
            if m * few_cols + m + few_cols <= registers:
                return m, few_cols
        return rows, cols

    def _tile_cols(self, tile_rows: int, rows: int, cols: int) -> int:
        """Columns of a tile of fewer rows than the block (the rows left over): at least
        FEW_ROWS_COLS, so a 1-, 2- or 4-row tile still runs 4-16 FMA chains, not 2-8."""
        if tile_rows >= rows:
            return cols
        wide = min(FEW_ROWS_COLS, rows * cols // tile_rows)
        return wide if cols < wide and self.blocks.dot_block_n % wide == 0 else cols

    def _widen_a(self, ivs) -> ir.Value:
        """A (a few narrow rows) widened once into an f32 copy [M, K]: each block of B would
        otherwise widen it again."""
        c = self.c
        k_static = c.extents[c.k]
        shape = [c.extents[c.m], ir.ShapedType.get_dynamic_size() if k_static is None else k_static]
        dynamic = [self.extent(c.k)] if k_static is None else []
        wide = memref.alloc(ir.MemRefType.get(shape, self.element), dynamic, [])
        m_loop = scf.ForOp(self.index(0), self.extent(c.m), self.index(1))
        with ir.InsertionPoint(m_loop.body):
            k_loop = scf.ForOp(self.index(0), self.extent(c.k), self.index(self.lanes))
            with ir.InsertionPoint(k_loop.body):
                m, k = m_loop.induction_variable, k_loop.induction_variable
                left = arith.subi(self.extent(c.k), k)
                value = self._load_lanes(c.a, self._at(0, {**ivs, c.m: m, c.k: k}, {}), left)
                self._store_lanes(value, wide, [m, k], left)
                scf.YieldOp([])
            scf.YieldOp([])
        return wide

    def _k_split(self):
        """(end of the whole vectors of k, lanes left after it): ints, or runtime values."""
        c = self.c
        static = c.extents[c.k]
        if static is not None:
            return static - static % self.lanes, static % self.lanes
        k, lanes = self.extent(c.k), self.index(self.lanes)
        main = arith.muli(arith.divui(k, lanes, ip=self._top), lanes, ip=self._top)
        return main, arith.subi(k, main, ip=self._top)

    def _dot_tile(self, ivs, bn, m_part, n_part):
        """The tiles of one (rows, columns) part: rows from `sure` on may be past a `?` M,
        clamped to its last row and not stored (m_tiles)."""
        c = self.c
        lo, hi, rows, sure = m_part
        cols = n_part[2]
        k_main, k_tail = self._k_split()
        m_loop = self._range_loop(lo, hi, rows)
        with ir.InsertionPoint(m_loop.body):
            m = m_loop.induction_variable
            self._row_at = m_tiles.rows_at(self, m, rows, sure)
            n_loop = self._range_loop(*n_part, bn, self.blocks.dot_block_n)
            with ir.InsertionPoint(n_loop.body):
                at = {**ivs, c.m: m, c.n: n_loop.induction_variable}
                accs = [self.zeros] * (rows * cols)
                if not isinstance(k_main, int) or k_main:
                    prefetch = self._next_block_prefetch(at, rows, cols)
                    k_loop = scf.ForOp(self.index(0), self._v(k_main), self.index(self.lanes), accs)
                    with ir.InsertionPoint(k_loop.body):
                        at_k = {**at, c.k: k_loop.induction_variable}
                        step = self._dot_step(at_k, k_loop.inner_iter_args, rows, cols)
                        if prefetch is not None:
                            prefetch(at_k)
                        scf.YieldOp(step)
                    accs = list(k_loop.results)
                if not isinstance(k_tail, int) or k_tail:
                    # a runtime tail of 0 lanes loads nothing (all lanes masked off)
                    at_k = {**at, c.k: self._v(k_main)}
                    accs = self._dot_step(at_k, accs, rows, cols, k_tail)
                if self._sums_as_vectors(rows, cols):
                    self._add_sum_vectors(at, accs, rows, cols, sure)
                else:
                    self._add_sums(at, accs, rows, cols, sure)
                scf.YieldOp([])
            scf.YieldOp([])

    def _prefetches(self) -> bool:
        """B (static, of the accumulator type) at least PREFETCH_MIN_B_BYTES: read from L3 or
        DRAM, not L2, by the first row tile of each block."""
        c = self.c
        if PREFETCH_MIN_B_BYTES is None or c.extents[c.n] is None or c.extents[c.k] is None:
            return False
        m = c.extents[c.m]
        if m is not None and m <= FEW_ROWS:  # one row tile streams B once: nothing to hide
            return False
        if m is not None and m > STREAMED_MAX_ROWS and self._b_bytes() >= STREAMED_B_BYTES:
            return False
        if ir.MemRefType(c.b.type).element_type != self.element:
            return False
        return self._b_bytes() >= PREFETCH_MIN_B_BYTES

    def _b_bytes(self) -> int:
        """Bytes of B (one batch of it) at the accumulator type; 0 for a `?` n or k."""
        c = self.c
        if c.extents[c.n] is None or c.extents[c.k] is None:
            return 0
        return c.extents[c.n] * c.extents[c.k] * (self.blocks.vector_bytes // self.lanes)

    def _next_block_prefetch(self, at, rows: int, cols: int):
        """A function of the k step prefetching one line of the next block of B: the tile of
        row tile t at columns n (rows n.. of B) reads row n + dot_block_n + t mod cols of B
        (clamped to B's last row, so every address is inside B), a line per k step. The first
        row tile of a block otherwise reads its dot_block_n rows of B from L3 or DRAM with no
        other work to hide it behind: x[64,768] @ W[50257,768].T (GPT-2's logits, 154 MB)."""
        c = self.c
        if not self._prefetches():
            return None
        tile = arith.divui(at[c.m], self.index(rows))
        ahead = arith.addi(self.index(self.blocks.dot_block_n), arith.remui(tile, self.index(cols)))
        last = arith.subi(self.extent(c.n), self.index(1))
        row = arith.minui(arith.addi(at[c.n], ahead), last)

        def prefetch(at_k) -> None:
            indices = self._at(1, {**at_k, c.n: row}, {})
            memref.prefetch(c.b, indices, False, PREFETCH_LOCALITY, True)

        return prefetch

    def _add_sums(self, at, accs, rows, cols, sure):
        """C[m + i, n + j] += the lanes of accs[i * cols + j], one reduction each (rows from
        `sure` on only inside M)."""
        c = self.c
        for i in range(rows):
            with m_tiles.store_guard(self, at[c.m], i, sure):
                for j in range(cols):
                    indices = self._at(2, {**at, c.m: self._row_at[i]}, {c.n: j})
                    start = None if self.c_starts_zero else self._load_scalar(c.c, indices)
                    total = vector.reduction(
                        self.element,
                        _add_kind(),
                        accs[i * cols + j],
                        acc=start,
                        fastmath=_reassoc(),
                    )
                    self._store_scalar(total, c.c, indices)

    def _sums_as_vectors(self, rows, cols) -> bool:
        """A block of L accumulators per L lanes, whole rows of it, and C of the accumulator
        type with unit stride along n: the sums can be formed in vectors and added to C's rows."""
        c = self.c
        return (
            (rows * cols) % self.lanes == 0
            and self.lanes % cols == 0
            and ir.MemRefType(c.c.type).element_type == self.element
            and lane_stride(c.index[2], c.n) == 1
            and len(c.index[2][-1]) == 1
        )

    def _add_sum_vectors(self, at, accs, rows, cols, sure):
        """The sums of L accumulators at a time as one vector (`lane_sums`: shuffles and adds,
        a fraction of L reductions' instructions: 4x4 blocks of a linear layer's C spent ~15% of
        the kernel in them), added to C `cols` lanes per row."""
        c = self.c
        row_type = ir.VectorType.get([cols], self.element)
        per = self.lanes // cols  # rows of the block in one vector of sums
        for g in range(0, rows * cols, self.lanes):
            sums = lane_sums(accs[g : g + self.lanes])
            for r in range(per):
                i = g // cols + r
                part = vector.extract_strided_slice(row_type, sums, [r * cols], [cols], [1])
                with m_tiles.store_guard(self, at[c.m], i, sure):
                    indices = self._at(2, {**at, c.m: self._row_at[i]}, {})
                    if not self.c_starts_zero:
                        part = arith.addf(vector.load(row_type, c.c, indices), part)
                    vector.store(part, c.c, indices)

    def _dot_step(self, at_k, accs, rows, cols, width=None):
        c = self.c
        width = self.lanes if width is None else width
        if self._a_wide is None:
            a = [
                self._load_lanes(c.a, self._at(0, {**at_k, c.m: self._row_at[i]}, {}), width)
                for i in range(rows)
            ]
        else:
            rows_at = [at_k[c.m]] + [arith.addi(at_k[c.m], self.index(i)) for i in range(1, rows)]
            a = [self._load_lanes(self._a_wide, [r, at_k[c.k]], width) for r in rows_at]
        b = [self._load_lanes(c.b, self._at(1, at_k, {c.n: j}), width) for j in range(cols)]
        return [
            vector.fma(a[i], b[j], accs[i * cols + j]) for i in range(rows) for j in range(cols)
        ]

"""The vdpbf16ps outer-product kernel of `cpu-vectorize-contractions`: bf16 x bf16 -> f32
products with many rows on AVX512-BF16 targets without AMX (AMD Zen 4/5, Cooper Lake), as
oneDNN's avx512_core_bf16 brgemm runs them.

The f32 outer kernel widens every bf16 of A and B to f32 and does one fma per product; here
`vdpbf16ps` (`x86vector.avx512.dot`) multiplies 16 columns x 2 k per instruction. B is copied
once per product into VNNI panels (`vnni_pack`: each k pair of a column adjacent, so one 512-bit
load of a panel row is 16 columns x 2 k); a k step of a ROWS x VECTORS register block then
broadcasts each row's pair A[m, k], A[m, k + 1] as one 32-bit word (`vpbroadcastd`) and adds
its products with the VECTORS panel vectors into f32 accumulators: ROWS x VECTORS dots a pair
of k, 24 zmm of accumulators, 4 of B and 1 broadcast.

The loops are OuterKernel's, GotoBLAS's order (n block -> k block -> copy the panels -> m
blocks -> n tiles -> m tiles), and `cpu-parallelize-loops` shares them out the same way: the n
blocks (each owns its panel copy), or with a single n block the m blocks of each k block. That
loop is an `scf.parallel` (as the AMX kernel's): parallel_deps reads an op it does not know,
x86vector's dot among them, as touching any memory, so an `scf.for` of tiles stayed serial. The
rows, columns and k may be `?`. Remainders: a column rest is
masked stores (the panels are zero past n), a row rest smaller blocks (static) or single rows
(`?`), an odd k a last pair whose second element is zero in the panel and masked off in A.

Numerics: the products of two bf16 are exact in f32; vdpbf16ps adds a pair's two products into
the lane in its own order and treats subnormal inputs as zero (DAZ), as eager's oneDNN does on
these CPUs. `ATEN_MLIR_VNNI=0` turns the kernel off (the FMA kernels run), for A/B timing.

`x @ W.T` with few static rows and a wide W runs with the operands swapped (`vnni_swap`: x
copied, W read in place), so W is not copied per call.
"""

from __future__ import annotations

import dataclasses
import os
from contextlib import ExitStack

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from .kernels import MASKED, ONE_ROW, Blocking, Contraction, zero_fill_before
from .outer_kernel import PANEL_ALIGN, OuterKernel
from .vnni_pack import WORDS, pack_along_k, pack_along_n
from .x86_registers import dpbf16ps

# The register block: ROWS x VECTORS accumulators + VECTORS panel loads + 1 broadcast <= 32 zmm
ROWS, VECTORS = 6, 4
# C rows per m block: a whole number of ROWS (the f32 kernel's 256 is not)
PANEL_M = 240
# k per cache block: C's tiles are loaded and stored once per k block. 1 thread, same process,
# thread CPU time (eager oneDNN 4.7 / 9.1 / 42.1 ms): mm 1024^3 at 256: 5.07 ms, 512: 4.91,
# 1024: 4.71; x[512,4096] @ W[1024,4096].T 256: 9.84, 1024: 9.75, 2048: 9.53, 4096: 9.48;
# mm 2048^3 512: 40.3, 1024: 40.1, 2048: 38.3. A panel (64 columns x 2048 k, 256 KB) then
# lives in L2, streamed by each tile of an m block; its k loop is 1024 steps of 24 dots.
BLOCK_K = 2048
# below this many multiply-adds the panel copy costs more than it saves (as the AMX kernel's)
MIN_MACS = 32 * 32 * 32
# Static rows from which `x @ W.T` (B along k) takes this kernel: below, the FMA dot kernel reads
# W in place while the copy reads all of W before the first dot (memory bound: x[9,4096] @
# W[4096,4096].T FMA 2.92 ms, here 3.73; 12 rows 3.36 / 3.42; 16 rows 3.94 / 3.80; x[9,1024] @
# W[1024,1024].T 0.130 / 0.128 ms). `x @ W` needs no transpose: 9 rows 0.143 / 0.112 ms.
# (9..11 rows with a wide W run swapped instead, vnni_swap: no copy of W)
MIN_ROWS_ALONG_K = 12


def enabled() -> bool:
    return os.environ.get("ATEN_MLIR_VNNI", "1") != "0"


def last_alone(forms, d: int) -> bool:
    return forms[-1] == ((d, 1),)


def strides_one(*values) -> bool:
    return all(ir.MemRefType(v.type).get_strides_and_offset()[0][-1] == 1 for v in values)


class VnniKernel(OuterKernel):
    """C[m, n] += sum over k pairs of A[m, k:k+2] . B[k:k+2, n]: bf16 pairs, C f32."""

    def __init__(self, c: Contraction, types, blocks: Blocking, alone: bool = True):
        self.alone = alone
        blocks = dataclasses.replace(
            blocks, outer_rows=ROWS, outer_vectors=VECTORS, panel_m=PANEL_M, block_k=BLOCK_K
        )
        super().__init__(c, types, blocks)
        self.bf16 = ir.BF16Type.get()
        self.pairs = ir.VectorType.get([2 * self.lanes], self.bf16)
        self.nr = self.blocks.outer_vectors * self.lanes
        self._bf16_zeros: dict[int, ir.Value] = {}
        self._b_along_n = last_alone(c.index[1], c.n)

    def bf16_zeros(self, lanes: int) -> ir.Value:
        if lanes not in self._bf16_zeros:
            t = ir.VectorType.get([lanes], self.bf16)
            splat = ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(self.bf16, 0.0))
            self._bf16_zeros[lanes] = arith.constant(t, splat, ip=self._top)
        return self._bf16_zeros[lanes]

    def emit(self) -> None:
        self.b, self.b_index = self.c.b, self.c.index[1]
        self._fold_zero_fill()
        self._outer_loops(list(self.c.outer), {})  # B read by the panel copy, never B^T

    def _fold_zero_fill(self) -> None:
        """Drops C's zero fill when every C element is written in the first k block (k static,
        no reduction among the loops around the kernel): that block starts from zeros (the
        pass folds it for its FMA kernels only). Not when another branch of a run-time choice
        (the pair-dot kernel's few rows) adds into C."""
        c = self.c
        fill = zero_fill_before(c)
        c_dims = {d for form in c.index[2] for d, _ in form}
        if (
            not self.alone
            or fill is None
            or c.extents[c.k] is None
            or any(d not in c_dims for d in c.outer)
        ):
            return
        self.c_starts_zero = True
        fill.erase()

    def _kernel(self, ivs) -> None:
        self._on_panels(ivs)

    def _on_panels(self, ivs) -> None:
        """OuterKernel's nest, the panels bf16 VNNI pairs (no A strips: A's pairs are read in
        place, a broadcast word each)."""
        c, blocks = self.c, self.blocks
        m_parts = self._parts(c.m, blocks.outer_rows, ONE_ROW)
        n_parts = self._parts(c.n, self.nr, MASKED)
        k, n = c.extents[c.k], c.extents[c.n]
        block_n = self._n_block()
        # pairs: k's up to block_k, in whole transposed groups (a `?` k: sized at run time,
        # not block_k's 2 MB for every short k)
        group = 2 * WORDS
        if k is None:
            k_rows = arith.minsi(self.extent(c.k), self.index(blocks.block_k))
            groups = arith.divui(arith.addi(k_rows, self.index(group - 1)), self.index(group))
            pairs, sizes = ir.ShapedType.get_dynamic_size(), [arith.muli(groups, self.index(WORDS))]
        else:
            pairs, sizes = -(-min(blocks.block_k, k) // group) * WORDS, []
        shape = [
            block_n // self.nr if n is None else min(block_n // self.nr, -(-n // self.nr)),
            pairs,
            2 * self.nr,
        ]
        panel_type = ir.MemRefType.get(shape, self.bf16)
        pack = pack_along_n if self._b_along_n else pack_along_k
        # one n block (known n): the m blocks of each k block are what the threads share
        one_block = n is not None and n <= block_n
        n0, bn = _loop(self.index(0), self.extent(c.n), self.index(block_n), not one_block)
        with ir.InsertionPoint(n0.regions[0].blocks[0]):
            panels = memref.alloc(panel_type, sizes, [], alignment=PANEL_ALIGN or None)
            k0 = scf.ForOp(self.index(0), self.extent(c.k), self.index(blocks.block_k))
            with ir.InsertionPoint(k0.body):
                bk = k0.induction_variable
                pack(self, ivs, panels, bn, bk)
                rows = self.index(self._panel_rows())
                m0, bm = _loop(self.index(0), self.extent(c.m), rows, one_block)
                with ir.InsertionPoint(m0.regions[0].blocks[0]):
                    for n_part in n_parts:
                        for m_part in m_parts:
                            self._pair_tile(ivs, (bm, bn, bk), m_part, n_part, panels)
                    _end(one_block)
                scf.YieldOp([])
            memref.dealloc(panels)
            _end(not one_block)

    def _pair_tile(self, ivs, blocks, m_part, n_part, panels) -> None:
        """The tiles of one (rows, columns) part of the current cache block: rows x VECTORS
        f32 accumulators across the k block's pairs, then its odd element (if any)."""
        c = self.c
        bm, bn, bk = blocks
        rows, cols = m_part[2], n_part[2]
        if cols == MASKED:
            n_part = (n_part[0], n_part[1], self.lanes)
        with ExitStack() as nest:
            n_loop = self._range_loop(*n_part, bn, self._n_block())
            nest.enter_context(ir.InsertionPoint(n_loop.body))
            m_loop = self._range_loop(*m_part, bm, self._panel_rows())
            nest.enter_context(ir.InsertionPoint(m_loop.body))
            m, n = m_loop.induction_variable, n_loop.induction_variable
            if cols == MASKED:  # what is left of the row, past the last whole block
                widths = [arith.subi(self._v(n_part[1]), n)]
            else:
                widths = [min(self.lanes, cols - j) for j in range(0, cols, self.lanes)]
            at = {**ivs, c.m: m, c.n: n}
            self._prefetch_next_c(at, rows, len(widths))
            accs = self._c_tile(at, rows, widths, bk)
            column = arith.subi(n, bn)
            p = arith.divui(column, self.index(self.nr))
            offset = arith.muli(arith.remui(column, self.index(self.nr)), self.index(2))
            k_len = arith.minsi(self.index(self.blocks.block_k), arith.subi(self.extent(c.k), bk))
            whole = arith.divui(k_len, self.index(2))
            step = _PairStep(self, at, rows, len(widths), panels, p, offset, bk)
            k_loop = scf.ForOp(self.index(0), whole, self.index(1), accs)
            with ir.InsertionPoint(k_loop.body):
                scf.YieldOp(step(k_loop.induction_variable, k_loop.inner_iter_args, False))
            accs = list(k_loop.results)
            odd = arith.cmpi(
                arith.CmpIPredicate.ne, arith.remui(k_len, self.index(2)), self.index(0)
            )
            tail = scf.IfOp(odd, [self.vector] * len(accs), has_else=True)
            with ir.InsertionPoint(tail.then_block):
                scf.YieldOp(step(whole, accs, True))
            with ir.InsertionPoint(tail.else_block):
                scf.YieldOp(accs)
            self._store_tile(list(tail.results), at, rows, widths)
        for loop in (m_loop, n_loop):
            with ir.InsertionPoint(loop.body):
                scf.YieldOp([])

    def _store_tile(self, results, at, rows, widths) -> None:
        c = self.c
        for i in range(rows):
            for j, w in enumerate(widths):
                indices = self._at(2, at, {c.m: i, c.n: j * self.lanes})
                self._store_lanes(results[i * len(widths) + j], c.c, indices, w)


def _loop(lo, hi, step, parallel: bool):
    """`for iv = lo to hi step step` (an `scf.parallel` when `parallel`: cpu-parallelize-loops
    cannot prove an `scf.for` holding x86vector ops independent): (the loop, iv)."""
    if not parallel:
        loop = scf.ForOp(lo, hi, step)
        return loop, loop.induction_variable
    loop = scf.ParallelOp([], [lo], [hi], [step], [])
    return loop, loop.regions[0].blocks.append(ir.IndexType.get()).arguments[0]


def _end(parallel: bool) -> None:
    scf.reduce([], 0) if parallel else scf.YieldOp([])


class _PairStep:
    """One k pair of a tile: the panel vectors, each row's broadcast pair, the dots."""

    def __init__(self, e: VnniKernel, at, rows, vectors, panels, p, offset, bk):
        self.e, self.at, self.rows, self.vectors = e, at, rows, vectors
        self.panels, self.p, self.offset, self.bk = panels, p, offset, bk
        i32 = ir.IntegerType.get_signless(32)
        self.word = ir.VectorType.get([1], i32)
        self.words = ir.VectorType.get([e.lanes], i32)
        self.two = ir.VectorType.get([2], e.bf16)
        self.first_only = ir.VectorType.get([2], ir.IntegerType.get_signless(1))

    def __call__(self, kp, accs, odd: bool) -> list[ir.Value]:
        e, c = self.e, self.e.c
        k = arith.addi(self.bk, arith.muli(kp, e.index(2)))
        bs = [
            vector.load(
                e.pairs, self.panels, [self.p, kp, arith.addi(self.offset, e.index(j * 2 * WORDS))]
            )
            for j in range(self.vectors)
        ]
        out = []
        for i in range(self.rows):
            indices = e._at(0, {**self.at, c.k: k}, {c.m: i})
            if odd:  # the pair's second element is past A: zero (the panel's is zero too)
                mask = vector.constant_mask(self.first_only, [1])
                pair = vector.maskedload(self.two, c.a, indices, mask, e.bf16_zeros(2))
            else:
                pair = vector.load(self.two, c.a, indices)
            word = vector.broadcast(self.words, vector.bitcast(self.word, pair))
            a = vector.bitcast(e.pairs, word)
            for j in range(self.vectors):
                out.append(dpbf16ps(accs[i * self.vectors + j], a, bs[j]))
        return out

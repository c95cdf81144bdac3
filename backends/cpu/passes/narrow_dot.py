"""The pair-dot kernel of `cpu-vectorize-contractions`: bf16 products with a few rows (LLM
decode, M = 1..8 tokens, a weight `W [n, k]` contiguous along k) on AVX512-BF16 targets.

Such a product reads every element of the weight once and does M multiply-adds with it, so it
runs at the speed the weight streams from memory, if the kernel reads it once and keeps up.
The FMA dot kernel widens every 16 bf16 of W to f32 before its fmas (two widenings and M fmas
per 32 elements); `vdpbf16ps` (`x86vector.avx512.dot`) takes the bf16 pairs as they are in
memory: 32 elements of a row of x and of W, each adjacent pair multiplied and both products
added to one f32 lane. A block of `rows x cols` elements of C (all M rows, so W goes by once)
keeps one f32 vector of partial sums each across k, reduced across lanes once at the end into
C, as the FMA dot kernel does. Remainders: a static k tail is one masked step, zero padded
(0 * 0 adds nothing); a static column rest is a smaller block.

On an AMX-BF16 target the columns in whole blocks of 16 weight rows run on tiles instead
(`narrow_tiles`: tdpbf16ps takes 16 weight rows x 32 k against all 8 rows of x at once, so the
weight's stream bounds it at any M); this kernel keeps the last columns, and every column when
k is not a multiple of 32.

Past _SPLIT_ABOVE rows the same 32 bf16 are split into their even and odd elements as two f32
vectors (a bf16 is the high half of an f32: a shift and a mask) for two fmas: on Sapphire
Rapids vdpbf16ps issues once per 2 cycles, so with many rows the dots, not the weight's stream,
bound the kernel (x[8,4096] @ W[11008,4096].T: 9.0 ms with dots, 8.2 ms split).

Numerics: the products of two bf16 are exact in f32; `vdpbf16ps` adds the pair into the lane
in its own order and flushes subnormal inputs and results (DAZ/FTZ). The sums therefore round
in another order than eager's (oneDNN), well inside the bf16 tolerance of the result.

A dynamic M: the product is a decode step only at run time, so the nest tests M once: up to
FEW_ROWS rows run one of the blocks of 1, 2, 4 or 8 rows (the smallest that holds M; rows past
M re-read the last row and are not stored), more rows run the kernel the pass would have used
otherwise (AMX, or the FMA dot kernel).
"""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, scf, vector

from aten_mlir.backends.cpu.target import cpu_target

from .amx import amx_emitter
from .amx import enabled as amx_enabled
from .dot_kernel import FEW_ROWS, DotKernel
from .kernel_choice import kernel_choice_emitter
from .kernels import Blocking, Contraction, KernelEmitter
from .narrow_tiles import TileColumns
from .narrow_tiles import fits as tiles_fit
from .outer_kernel import OuterKernel
from .vnni_choice import vnni_emitter
from .x86_registers import dpbf16ps

# the row blocks a dynamic M picks from (each also used for M down to half of it plus one)
_DYNAMIC_ROWS = (1, 2, 4, 8)
# columns of C per block: independent weight streams and dot chains; more rows of x each
# take their own accumulators, so fewer columns fit the 32 registers
_MAX_COLS = 4
_REGISTERS = 30
# More rows than this: the pairs split into even and odd f32 halves for fmas. vdpbf16ps (zmm)
# issues at one per 2 cycles on Sapphire Rapids (16 bf16 products a cycle), two fmas at one a
# cycle (32): past a few rows the kernel is bound by the dots, not by the weight's stream.
_SPLIT_ABOVE = 4


def _reassoc() -> ir.Attribute:
    return ir.Attribute.parse("#arith.fastmath<reassoc>")


def _add_kind() -> ir.Attribute:
    return ir.Attribute.parse("#vector.kind<add>")


def narrow_dot_emitter(c: Contraction, types, blocks: Blocking, cpu: str = "") -> NarrowDot | None:
    """The pair-dot kernel of `c`, or None: not a dot-kernel product (A and B along k) of bf16
    inputs into f32, more than FEW_ROWS rows, or a target without AVX512-BF16."""
    # "packed": the dot form whose k looked short next to a guessed `?` M (the B^T copy is
    # what the packed kernel adds; this kernel reads B in place)
    if os.environ.get("ATEN_MLIR_NARROW_DOT", "1") == "0" or c.kernel not in ("dot", "packed"):
        return None
    a, b, out = (t.element_type for t in types)
    if not (isinstance(a, ir.BF16Type) and isinstance(b, ir.BF16Type)):
        return None
    rows = c.extents[c.m]
    if not isinstance(out, ir.F32Type) or (rows is not None and rows > FEW_ROWS):
        return None
    if not cpu_target(cpu or None).avx512_bf16:
        return None
    # a dynamic M above FEW_ROWS at run time: the kernel the pass would have chosen
    fallback = None
    if rows is None:
        kernel = DotKernel if c.kernel == "dot" else OuterKernel
        fallback = (
            amx_emitter(c, types, cpu)
            or vnni_emitter(c, types, blocks, cpu, alone=False)
            or kernel_choice_emitter(c, types, blocks)
            or kernel(c, types, blocks)
        )
    return NarrowDot(c, types, blocks, fallback, cpu)


def _columns(rows: int) -> int:
    cols = _MAX_COLS
    while cols > 1 and rows * cols + cols > _REGISTERS:
        cols -= 1
    return cols


class NarrowDot(KernelEmitter):
    """C[m, n] += sum over k of A[m, k] * B[n, k]: A a few bf16 rows, B bf16 (the weight),
    k in pairs of bf16 lanes, C f32."""

    def __init__(self, c: Contraction, types, blocks: Blocking, fallback=None, cpu=""):
        super().__init__(c, types, blocks)
        self.fallback = fallback
        # one row: the pair dots keep up with the weight's stream (1-10% ahead of the tiles)
        one_row = c.extents[c.m] == 1
        self.tiles = not one_row and tiles_fit(self) and amx_enabled()
        self.tiles = self.tiles and cpu_target(cpu or None).amx_bf16
        self.bf16 = ir.BF16Type.get()
        self.pairs = ir.VectorType.get([2 * self.lanes], self.bf16)
        self.pair_mask = ir.VectorType.get([2 * self.lanes], ir.IntegerType.get_signless(1))

    def emit(self) -> None:
        self.b, self.b_index = self.c.b, self.c.index[1]
        if self.fallback is None:
            self._outer_loops(list(self.c.outer), {})  # B in place, even when c is "packed"
            return
        ule = arith.CmpIPredicate.ule
        few = arith.cmpi(ule, self.extent(self.c.m), self.index(FEW_ROWS))
        branch = scf.IfOp(few, has_else=True)
        with ir.InsertionPoint(branch.then_block):
            self._outer_loops(list(self.c.outer), {})
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self.fallback.emit()
            scf.YieldOp([])

    def _kernel(self, ivs) -> None:
        rows = self.c.extents[self.c.m]
        if rows is not None:
            self._rows_block(ivs, rows, rows, self._tile_columns(ivs))
            return
        # a `?` M of 0 runs nothing: every block reads and stores its row 0
        some = arith.cmpi(arith.CmpIPredicate.ne, self.extent(self.c.m), self.index(0))
        branch = scf.IfOp(some)
        with ir.InsertionPoint(branch.then_block):
            self._pick_rows(ivs, list(_DYNAMIC_ROWS), self._tile_columns(ivs))
            scf.YieldOp([])

    def _tile_columns(self, ivs):
        """The columns in whole blocks of 16 weight rows on AMX tiles (where the first column
        left for this kernel starts), or None without AMX."""
        return TileColumns(self).emit(ivs) if self.tiles else None

    def _pick_rows(self, ivs, choices: list[int], n_start) -> None:
        """`if M <= 1 .. elif M <= 2 .. else 8 rows`: the smallest block that holds M (the
        nest runs only for M <= FEW_ROWS)."""
        rows = choices[0]
        if len(choices) == 1:
            self._rows_block(ivs, rows, rows // 2 + 1, n_start)
            return
        ule = arith.CmpIPredicate.ule
        fits = arith.cmpi(ule, self.extent(self.c.m), self.index(rows))
        branch = scf.IfOp(fits, has_else=True)
        with ir.InsertionPoint(branch.then_block):
            self._rows_block(ivs, rows, rows // 2 + 1, n_start)
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self._pick_rows(ivs, choices[1:], n_start)
            scf.YieldOp([])

    def _rows_block(self, ivs, rows: int, sure: int, n_start=None) -> None:
        """All of C's rows as one block of `rows`, over the columns (from `n_start`, a value,
        when not None) in blocks of `cols`. Rows from `sure` on may be past M (a dynamic M):
        they read row M - 1 and are not stored."""
        c = self.c
        cols = _columns(rows)
        last = None if sure >= rows else arith.subi(self.extent(c.m), self.index(1))
        row_at = [
            self.index(i) if i < sure else arith.minui(self.index(i), last) for i in range(rows)
        ]
        for lo, hi, step in self._columns_from(n_start, cols):
            n_loop = scf.ForOp(self._v(lo), self._v(hi), self.index(step))
            with ir.InsertionPoint(n_loop.body):
                self._tile(ivs, row_at, n_loop.induction_variable, step, sure)
                scf.YieldOp([])

    def _columns_from(self, n_start, cols: int) -> list[tuple]:
        """(lo, hi, step) ranges of n from `n_start`: blocks of `cols`, then one at a time."""
        if n_start is None:
            return self._parts(self.c.n, cols, 1)
        n = self.extent(self.c.n)
        whole = arith.divui(arith.subi(n, n_start), self.index(cols))
        main = arith.addi(n_start, arith.muli(whole, self.index(cols)))
        return [(n_start, main, cols), (main, n, 1)]

    def _k_split(self):
        """(end of the whole steps of k pairs, elements left after it): ints, or values."""
        c, step = self.c, 2 * self.lanes
        static = c.extents[c.k]
        if static is not None:
            return static - static % step, static % step
        k, width = self.extent(c.k), self.index(step)
        main = arith.muli(arith.divui(k, width, ip=self._top), width, ip=self._top)
        return main, arith.subi(k, main, ip=self._top)

    def _tile(self, ivs, row_at, n, cols: int, sure: int) -> None:
        c = self.c
        rows = len(row_at)
        k_main, k_tail = self._k_split()
        accs = [self.zeros] * (rows * cols)
        if not isinstance(k_main, int) or k_main:
            step = self.index(2 * self.lanes)
            k_loop = scf.ForOp(self.index(0), self._v(k_main), step, accs)
            with ir.InsertionPoint(k_loop.body):
                k = k_loop.induction_variable
                new = self._dot_step(ivs, row_at, n, k, k_loop.inner_iter_args, cols, None)
                scf.YieldOp(new)
            accs = list(k_loop.results)
        if not isinstance(k_tail, int) or k_tail:
            # a runtime tail of 0 elements loads nothing (every lane masked off)
            accs = self._dot_step(ivs, row_at, n, self._v(k_main), accs, cols, k_tail)
        for i, row in enumerate(row_at):
            if i < sure:
                self._store_row(ivs, row, n, accs[i * cols : (i + 1) * cols])
                continue
            inside = arith.cmpi(arith.CmpIPredicate.ult, self.index(i), self.extent(c.m))
            guard = scf.IfOp(inside)
            with ir.InsertionPoint(guard.then_block):
                self._store_row(ivs, row, n, accs[i * cols : (i + 1) * cols])
                scf.YieldOp([])

    def _store_row(self, ivs, row, n, accs) -> None:
        """Adds each accumulator's lanes into its element of C."""
        c = self.c
        for j, acc in enumerate(accs):
            indices = self._at(2, {**ivs, c.m: row, c.n: n}, {c.n: j})
            total = vector.reduction(
                self.element,
                _add_kind(),
                acc,
                acc=self._load_scalar(c.c, indices),
                fastmath=_reassoc(),
            )
            self._store_scalar(total, c.c, indices)

    def _pairs(self, base, indices, width) -> ir.Value:
        """32 bf16 (pairs of k) from `indices` on; `width` elements of them when not None."""
        if width is None:
            return vector.load(self.pairs, base, indices)
        if isinstance(width, int):
            mask = vector.constant_mask(self.pair_mask, [width])
        else:
            mask = vector.create_mask(self.pair_mask, [width])
        return vector.maskedload(self.pairs, base, indices, mask, self._zeros_of_pairs())

    def _zeros_of_pairs(self) -> ir.Value:
        if not hasattr(self, "_pair_zeros"):
            splat = ir.DenseElementsAttr.get_splat(self.pairs, ir.FloatAttr.get(self.bf16, 0.0))
            self._pair_zeros = arith.constant(self.pairs, splat, ip=self._top)
        return self._pair_zeros

    def _dot_step(self, ivs, row_at, n, k, accs, cols, width):
        c = self.c
        xs = [self._pairs(c.a, self._at(0, {**ivs, c.m: r, c.k: k}, {}), width) for r in row_at]
        at = {**ivs, c.n: n, c.k: k}
        ws = [self._pairs(c.b, self._at(1, at, {c.n: j}), width) for j in range(cols)]
        if len(row_at) > _SPLIT_ABOVE:
            xs, ws = [self._halves(x) for x in xs], [self._halves(w) for w in ws]
            out = []
            for i, (x0, x1) in enumerate(xs):
                for j, (w0, w1) in enumerate(ws):
                    out.append(vector.fma(x1, w1, vector.fma(x0, w0, accs[i * cols + j])))
            return out
        pairs = [(i, x, j, w) for i, x in enumerate(xs) for j, w in enumerate(ws)]
        return [dpbf16ps(accs[i * cols + j], x, w) for i, x, j, w in pairs]

    def _halves(self, pairs: ir.Value) -> tuple[ir.Value, ir.Value]:
        """The even and the odd bf16 of 32 as two f32 vectors: a bf16 is the high half of the
        f32 of the same value, so a shift and a mask widen them (no lane shuffles)."""
        i32 = ir.VectorType.get([self.lanes], ir.IntegerType.get_signless(32))
        words = vector.bitcast(i32, pairs)
        if not hasattr(self, "_sixteen"):
            sixteen = ir.DenseElementsAttr.get_splat(i32, ir.IntegerAttr.get(i32.element_type, 16))
            high = ir.DenseElementsAttr.get_splat(i32, ir.IntegerAttr.get(i32.element_type, -65536))
            self._sixteen = arith.constant(i32, sixteen, ip=self._top)
            self._high = arith.constant(i32, high, ip=self._top)
        even = arith.shli(words, self._sixteen)
        odd = arith.andi(words, self._high)
        return arith.bitcast(self.vector, even), arith.bitcast(self.vector, odd)

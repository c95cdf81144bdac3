"""How the AMX kernel's (`amx`) results meet C: C's initial state, and the result tiles added
into C right after their k loop when C is not the tiles' own layout.

A `linalg.fill` of +0.0 into C right before the product (`kernels.zero_fill_before`) lets the
tiles start as `tile_zero` instead of loads, and the fill go (the kernel writes all of C).

When C is not the tiles' layout but contiguous along n, the 2 x 2 tiles of a block go through
a 4 KiB scratch (in L1) and each tile row (or, when the tile rows run along n, a Linear's
weight being the row operand, each row of the tile transposed in registers) is added into a
row of C, 16 columns at a time, masked past C's extents. (Adding block i's rows after block
i + 1's k loop, to overlap them with the tile products, was slower: BERT FFN 0.94 vs 0.84 ms.)

When C is a zero-filled f32 buffer only mapped elementwise afterwards (rounded to bf16: what a
bf16 product bufferizes to; `amx_epilogue`), the rows are mapped and stored into the generic's
output instead: the f32 result never goes to memory (bf16 mm 1024^3: 2.24 vs 2.45 ms, BERT FFN
0.99 vs 1.07 ms).

It replaces a result buffer the size of C written by the tiles then gathered into C down its
tile columns (a BERT FFN x[128,768] @ W[3072,768].T: 1.5 MiB, a quarter of the run time).
"""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from .amx_pack import ROWS
from .amx_transpose import transpose16


def _flag(name: str, default: str) -> str:
    return os.environ.get(f"ATEN_MLIR_AMX_{name}", default)


class ResultRows:
    """Adds 16 x 16 f32 tiles in `scratch[t]` into C (contiguous along n) for one emitter."""

    def __init__(self, emitter, ivs, overwrite: bool, epilogue=None):
        # overwrite: C was zero-filled (the fill dropped), rows are stored, not added;
        # epilogue: the rows go through it into its output instead of into C
        self.e, self.ivs, self.overwrite, self.epilogue = emitter, ivs, overwrite, epilogue
        c = emitter.c
        self.transposed = emitter.row[1] != c.m
        self.m, self.n = emitter.extent(c.m), emitter.extent(c.n)
        # C in whole blocks of 32 (its tiles' padding never reaches past it): rows unmasked
        self.whole = all(
            isinstance(e, int) and e % (2 * ROWS) == 0 for e in (c.extents[c.m], c.extents[c.n])
        )
        f32, i1 = ir.F32Type.get(), ir.IntegerType.get_signless(1)
        self.row_t = ir.VectorType.get([ROWS], f32)
        self.tile_t = ir.VectorType.get([ROWS, ROWS], f32)
        self.mask_t = ir.VectorType.get([ROWS], i1)
        zero = ir.FloatAttr.get(f32, 0.0)
        self.zeros = arith.constant(
            self.row_t, ir.DenseElementsAttr.get_splat(self.row_t, zero), ip=emitter._top
        )
        self.empty = arith.constant(
            self.tile_t, ir.DenseElementsAttr.get_splat(self.tile_t, zero), ip=emitter._top
        )

    def add(self, scratch, t: int, r: ir.Value, v: ir.Value) -> None:
        """Tile `t`, at (r, v) along the kernel's (row, VNNI) dims, into C."""
        e = self.e
        m0, n0 = (v, r) if self.transposed else (r, v)
        if self.transposed:  # tile row i is C's column r + i: C's row v + j is tile column j
            tile = [
                vector.load(self.row_t, scratch, [e.index(t), e.index(i), e.index(0)])
                for i in range(ROWS)
            ]
            if _flag("SHUFFLE_TRANSPOSE", "1") != "0":
                rows = transpose16(tile)
            else:  # for A/B timing: vector.transpose, lowered element by element
                whole = self.empty
                for i, row in enumerate(tile):
                    whole = vector.insert(row, whole, [], [i])
                whole = vector.transpose(self.tile_t, whole, [1, 0])
                rows = [vector.extract(whole, [], [j]) for j in range(ROWS)]
            if not self._looped():
                for j in range(ROWS):
                    self._add_row(rows[j], arith.addi(v, e.index(j)), r)
                return
            for j in range(ROWS):  # back into the scratch, C's rows
                vector.store(rows[j], scratch, [e.index(t), e.index(j), e.index(0)])
        if not self._looped():
            for i in range(ROWS):
                value = vector.load(self.row_t, scratch, [e.index(t), e.index(i), e.index(0)])
                self._add_row(value, arith.addi(m0, e.index(i)), n0)
            return
        loop = scf.ForOp(e.index(0), e.index(ROWS), e.index(1))
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            value = vector.load(self.row_t, scratch, [e.index(t), i, e.index(0)])
            self._add_row(value, arith.addi(m0, i), n0)
            scf.YieldOp([])

    def _looped(self) -> bool:
        """The rows run as a loop, not 16 copies, when the epilogue is long (GELU's erf 64
        times per block of 2 x 2 tiles overflowed the instruction cache: the up projection
        of a bf16 transformer layer 2.3x slower per flop than the down projection)."""
        return self.epilogue is not None and self.epilogue.long

    def _add_row(self, value: ir.Value, m: ir.Value, n0: ir.Value) -> None:
        """C[m, n0 .. n0 + 15] += value, nothing where m or n is past C (padded tiles)."""
        e = self.e
        if self.whole:
            indices = e.at(2, {**self.ivs, e.c.m: m, e.c.n: n0})
            if self.epilogue is not None:
                vector.store(self.epilogue.apply(value, indices, None), self.epilogue.d, indices)
                return
            if not self.overwrite:
                value = arith.addf(vector.load(self.row_t, e.c.c, indices), value)
            vector.store(value, e.c.c, indices)
            return
        zero = e.index(0)
        inside = arith.cmpi(arith.CmpIPredicate.ult, m, self.m)
        left = arith.maxsi(arith.subi(self.n, n0), zero)
        count = arith.select(inside, left, zero)
        # a row or columns past C touch nothing, at an in-bounds address
        safe_m = arith.select(inside, m, zero)
        safe_n = arith.select(arith.cmpi(arith.CmpIPredicate.sgt, count, zero), n0, zero)
        indices = e.at(2, {**self.ivs, e.c.m: safe_m, e.c.n: safe_n})
        mask = vector.create_mask(self.mask_t, [count])
        if self.epilogue is not None:
            value = self.epilogue.apply(value, indices, mask)
            vector.maskedstore(self.epilogue.d, indices, mask, value)
            return
        if not self.overwrite:
            old = vector.maskedload(self.row_t, e.c.c, indices, mask, self.zeros)
            value = arith.addf(old, value)
        vector.maskedstore(e.c.c, indices, mask, value)


def add_result_buffer(e, ivs) -> None:
    """C[m, n] += emitter `e`'s result buffer `[r / 16][v / 16][16][16]` at (r, v), element
    by element (C not contiguous along n; else each block's tiles went into C through the
    scratch rows)."""
    c = e.c
    r_dim, v_dim = e.row[1], e.vnni[1]
    r_loop = e.loop(0, e.extent(r_dim))
    with ir.InsertionPoint(r_loop.body):
        v_loop = e.loop(0, e.extent(v_dim))
        with ir.InsertionPoint(v_loop.body):
            r, v = r_loop.induction_variable, v_loop.induction_variable
            indices = e.at(2, {**ivs, r_dim: r, v_dim: v})
            (r_tile, r_in), (v_tile, v_in) = e._split(r, ROWS), e._split(v, ROWS)
            value = memref.load(e.out, [r_tile, v_tile, r_in, v_in])
            memref.store(arith.addf(memref.load(c.c, indices), value), c.c, indices)
            scf.YieldOp([])
        scf.YieldOp([])

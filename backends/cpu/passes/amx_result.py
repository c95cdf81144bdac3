"""How the AMX kernel's (`amx`) results meet C: C's initial state, and the result tiles added
into C right after their k loop when C is not the tiles' own layout.

A `linalg.fill` of +0.0 into C right before the product (`kernels.zero_fill_before`) lets the
tiles start as `tile_zero` instead of loads, and the fill go (the kernel writes all of C).

When C is not the tiles' layout but contiguous along n, the 2 x 2 tiles of a block go through
a 4 KiB scratch (in L1) and each tile row (or, when the tile rows run along n, a Linear's
weight being the row operand, each row of the tile transposed in registers) is added into a
row of C, 16 columns at a time, masked past C's extents. (Adding block i's rows after block
i + 1's k loop, to overlap them with the tile products, was slower: BERT FFN 0.94 vs 0.84 ms.)

When C is a zero-filled f32 buffer only rounded to bf16 afterwards (what a bf16 product
bufferizes to), the rows are rounded and stored into the bf16 buffer instead: the f32 result
never goes to memory (bf16 mm 1024^3: 2.24 vs 2.45 ms, BERT FFN 0.99 vs 1.07 ms).

It replaces a result buffer the size of C written by the tiles then gathered into C down its
tile columns (a BERT FFN x[128,768] @ W[3072,768].T: 1.5 MiB, a quarter of the run time).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector

from .amx_pack import ROWS


def truncation(c, kernel_block) -> tuple[ir.Operation, ir.Value] | None:
    """The `linalg.generic` that only rounds C (a fresh f32 buffer, used by nothing else but
    its fill and dealloc) into a fresh bf16 D of the same shape, with nothing touching D
    between the product and it; and D. The kernel then writes D itself (bf16 mm's
    accumulator never goes through memory). None when the kernel is not emitted in the
    product's block (another kernel's branch also writes C)."""
    op = c.op.operation
    owner = c.c.owner
    if kernel_block != op.block or isinstance(owner, ir.Block) or owner.name != "memref.alloc":
        return None
    users = [u.owner.operation for u in c.c.uses if u.owner.operation != op]
    generics = [u for u in users if u.name == "linalg.generic"]
    others = [u for u in users if u.name not in ("linalg.fill", "memref.dealloc", "linalg.generic")]
    if len(generics) != 1 or others:
        return None
    g = generics[0]
    if g.block != op.block or len(g.operands) != 2 or g.operands[0] != c.c or not _rounds(g):
        return None
    d = g.operands[1]
    d_alloc = d.owner
    if isinstance(d_alloc, ir.Block) or d_alloc.name != "memref.alloc" or len(d_alloc.operands):
        return None
    if ir.MemRefType(d.type).shape != ir.MemRefType(c.c.type).shape:
        return None
    # nothing between the product and the rounding uses D (it is fresh, filled by the generic)
    between, seen = False, False
    for o in op.block.operations:
        o = o.operation
        if o == op:
            between = True
        elif o == g:
            seen = True
            break
        elif between and any(v == d for v in o.operands):
            return None
    return (g, d) if seen else None


def _rounds(g: ir.Operation) -> bool:
    """`g` is out = truncf(in) to bf16 with identity maps, all dims parallel."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(g.attributes["indexing_maps"])]
    if not all(m.is_permutation and m == ir.AffineMap.get_identity(m.n_dims) for m in maps):
        return False
    ops = [o.operation for o in g.regions[0].blocks[0].operations]
    return (
        len(ops) == 2
        and ops[0].name == "arith.truncf"
        and isinstance(ops[0].results[0].type, ir.BF16Type)
        and ops[0].operands[0] == g.regions[0].blocks[0].arguments[0]
        and ops[1].name == "linalg.yield"
        and ops[1].operands[0] == ops[0].results[0]
    )


class ResultRows:
    """Adds 16 x 16 f32 tiles in `scratch[t]` into C (contiguous along n) for one emitter."""

    def __init__(self, emitter, ivs, overwrite: bool, rounded=None):
        # overwrite: C was zero-filled (the fill dropped), rows are stored, not added;
        # rounded: the bf16 buffer rows are written to, rounded, instead of C
        self.e, self.ivs, self.overwrite, self.rounded = emitter, ivs, overwrite, rounded
        c = emitter.c
        self.transposed = emitter.row[1] != c.m
        self.m, self.n = emitter.extent(c.m), emitter.extent(c.n)
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
        if self.transposed:  # tile row i is C's column r + i: C's row v + j is tile column j
            tile = self.empty
            for i in range(ROWS):  # (a 2-D vector.load is not lowered to LLVM)
                row = vector.load(self.row_t, scratch, [e.index(t), e.index(i), e.index(0)])
                tile = vector.insert(row, tile, [], [i])
            rows = vector.transpose(self.tile_t, tile, [1, 0])
            for j in range(ROWS):
                self._add_row(vector.extract(rows, [], [j]), arith.addi(v, e.index(j)), r)
            return
        for i in range(ROWS):
            value = vector.load(self.row_t, scratch, [e.index(t), e.index(i), e.index(0)])
            self._add_row(value, arith.addi(r, e.index(i)), v)

    def _add_row(self, value: ir.Value, m: ir.Value, n0: ir.Value) -> None:
        """C[m, n0 .. n0 + 15] += value, nothing where m or n is past C (padded tiles)."""
        e = self.e
        zero = e.index(0)
        inside = arith.cmpi(arith.CmpIPredicate.ult, m, self.m)
        left = arith.maxsi(arith.subi(self.n, n0), zero)
        count = arith.select(inside, left, zero)
        # a row or columns past C touch nothing, at an in-bounds address
        safe_m = arith.select(inside, m, zero)
        safe_n = arith.select(arith.cmpi(arith.CmpIPredicate.sgt, count, zero), n0, zero)
        indices = e.at(2, {**self.ivs, e.c.m: safe_m, e.c.n: safe_n})
        mask = vector.create_mask(self.mask_t, [count])
        if self.rounded is not None:
            bf16_row = ir.VectorType.get([ROWS], ir.BF16Type.get())
            vector.maskedstore(self.rounded, indices, mask, arith.truncf(bf16_row, value))
            return
        if not self.overwrite:
            old = vector.maskedload(self.row_t, e.c.c, indices, mask, self.zeros)
            value = arith.addf(old, value)
        vector.maskedstore(e.c.c, indices, mask, value)

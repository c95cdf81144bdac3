"""The vdpbf16ps kernel with A and B swapped, for `x @ W.T` with few rows of x (issue #22).

`vnni_kernel` copies B into VNNI panels once per product. For `x @ W.T` with a weight much
larger than x (an MLP at 64 rows: x 128 KB, W 2 MB), that copy is a read and a write of all of
W before the first dot: ~20% of x[64,1024] @ W[1024,1024].T (perf), and eager (oneDNN) reorders
its weight too. But W's rows already hold the k pairs adjacent: C^T = W @ x^T is the same
kernel with W as the broadcast operand, read in place one 32-bit pair at a time, and x as the
copied one (`vnni_pack.pack_along_k`, its rows transposed into VNNI panels: 16x smaller here).

The register block then holds C^T: ROWS columns of C (W rows) x VECTORS * 16 rows of C (x
rows). At the end of the tile it is transposed in registers (`lane_shuffles.transpose`, the
missing rows zeros) and each row of C gets its ROWS columns by one masked store
(`transposed_store`, shared with the f32 twin `outer_swap`).

Taken only where the tile writes C whole from zeros: C's +0 fill is folded (no outer reduction),
k static and all of it one block (no C tile to load back transposed; x's copy at most MAX_COPY),
the rows static, above narrow_dot's FEW_ROWS and at most MAX_ROWS (beyond, the copy of W is
amortized over enough rows), W at least WIDER times as many rows as x. `ATEN_MLIR_VNNI_SWAP=0`
turns it off (A/B timing).
"""

from __future__ import annotations

import dataclasses
import os

from mlir import ir

from .dot_kernel import FEW_ROWS
from .kernels import Blocking, Contraction, zero_fill_before
from .transposed_store import store_transposed
from .vnni_kernel import VnniKernel

# The register block: ROWS columns of C x VECTORS * 16 rows. Each row of C gets ROWS columns
# per tile, C's rows a whole row apart (4 KB at 1024 columns: the same L1 set), so a wide
# store per row beats vnni_kernel's 6 x 4. 1 thread, same process, thread CPU medians,
# x[64,1024] @ W[1024,1024].T (eager 0.341 ms, unswapped 0.409): 6 x 4 0.368, 16 x 1 0.333,
# 24 x 1 0.337, 10 x 2 0.301, 12 x 2 0.305, 14 x 2 0.300. 12 divides 768, 1536, 3072.
ROWS, VECTORS = 12, 2
# Static rows of x up to which the swapped kernel runs: x[M,1024] @ W[1024,1024].T, ms (eager /
# unswapped / swapped) M=16 0.144/0.153/0.096, 48 0.282/0.293/0.238, 128 0.739/0.772/0.602,
# 256 1.250/1.347/1.231; from FEW_ROWS + 1 (fewer: narrow_dot's blocks), against the FMA dot
# kernel vnni_kernel leaves 9..11 rows to: x[9,1024] @ W[1024,1024].T 0.113/0.139/0.105,
# x[11,768] @ W[3072,768].T 0.241/0.337/0.192, x[9,4096] @ W[4096,4096].T 2.25/3.01/2.35;
# 512 x 512 x 512 0.565/0.635/0.658 (the W copy is amortized there)
MAX_ROWS = 256
# ... and for a W of at least WIDER x as many rows as x: what the copy of W costs grows with
# W's size. Attention's q @ k.T ([2, 8, 256, 64] each, one copy of k per head) ran slower
# swapped (bf16_attention 1.12 -> 1.32 ms CPU time)
WIDER = 4
# Bytes of x's VNNI copy at most (half of Zen 5's 1 MB L2): all of k is one block
MAX_COPY = 512 * 1024


def swapped_emitter(
    c: Contraction, types, blocks: Blocking, alone: bool
) -> SwappedVnniKernel | None:
    """The swapped kernel for `c` (already judged a vdpbf16ps product with B along k), or None
    when it does not apply (see the module docstring)."""
    if os.environ.get("ATEN_MLIR_VNNI_SWAP", "1") == "0":  # for A/B timing
        return None
    rows, k, n = c.extents[c.m], c.extents[c.k], c.extents[c.n]
    if not alone or rows is None or k is None or not FEW_ROWS < rows <= MAX_ROWS:
        return None
    if n is None or n < WIDER * rows:
        return None
    if rows * k * 2 > MAX_COPY or zero_fill_before(c) is None:
        return None
    c_dims = {d for form in c.index[2] for d, _ in form}
    if any(d not in c_dims for d in c.outer):
        return None
    return SwappedVnniKernel(c, types, blocks)


class SwappedVnniKernel(VnniKernel):
    """C^T[n, m] = sum over k pairs of W[n, k:k+2] . x[m, k:k+2], stored into C[m, n]."""

    def __init__(self, c: Contraction, types, blocks: Blocking):
        swapped = dataclasses.replace(
            c, a=c.b, b=c.a, index=(c.index[1], c.index[0], c.index[2]), m=c.n, n=c.m
        )
        super().__init__(swapped, types, blocks, alone=True)
        self.blocks = dataclasses.replace(
            self.blocks, outer_rows=ROWS, outer_vectors=VECTORS, panel_m=ROWS * (256 // ROWS)
        )
        self.nr = VECTORS * self.lanes
        # all of k in one block: the tiles never load C back (x's copy, rows x k bf16, is
        # at most MAX_COPY)
        self.blocks = dataclasses.replace(self.blocks, block_k=c.extents[c.k])

    def emit(self) -> None:
        super().emit()
        # the chooser's conditions are _fold_zero_fill's: a tile never loads C back
        assert self.c_starts_zero

    def _c_tile(self, at, rows, widths, bk, row_at=None) -> list[ir.Value]:
        return [self.zeros] * (rows * len(widths))  # one k block, C's fill folded

    def _prefetch_next_c(self, at, rows, vectors) -> None:
        pass  # the tile's C is rows of a few columns: nothing a row of C ahead to fetch

    def _store_tile(self, results, at, rows, widths) -> None:
        # static widths: the chooser takes static rows only
        store_transposed(self, results, at, rows, widths)

"""The f32 outer-product kernel with A and B swapped, for `x @ W.T` with few rows of x (issue
#22; the f32 twin of `vnni_swap`).

`x @ W.T` (a Linear's weight, both operands along k) runs the dot kernel: a block of C keeps a
vector of partial sums per element across k and ends each with a reduction across lanes. With
few rows of x (an MLP at 64 rows, BERT at batch 1, GPT-2's logits) the weight is the big
operand and that epilogue is 7-11% of the time. C^T = W @ x^T is the outer kernel with W as
the broadcast operand, read in place along k (no copy of W: it is read once per row tile of x),
and x the operand copied into panels (`transposed_panels`: x's rows transposed, x is small).

The register block then holds C^T: ROWS columns of C (W's rows) x VECTORS * 16 rows of C (x's
rows), transposed in registers at the end of the tile and stored as one masked ROWS-column
piece per row of C (`transposed_store`). All of k is one block, so a tile never loads C back
(it would be transposed): C's +0 fill is folded in and x's copy is at most MAX_COPY.

Taken for f32 `x @ W.T` on AVX-512 with k and W's rows static, C written whole from zeros (its
fill present, no reduction dim around the kernel), x's rows in MIN_ROWS..MAX_ROWS and whole
register blocks (ROW_STEP rows), W at least WIDER times as many rows; `?` rows under a run-time
test of the same (`SwapChoice`, the kernel the pass would choose otherwise at other rows).
`ATEN_MLIR_OUTER_SWAP=0` turns it off (A/B timing).
"""

from __future__ import annotations

import dataclasses
import os

from mlir import ir
from mlir.dialects import arith, scf

from .kernels import Blocking, Contraction, zero_fill_before
from .outer_kernel import OuterKernel
from .transposed_store import store_transposed

# The register block: ROWS columns of C x VECTORS * 16 rows of C (24 accumulators, 2 panel
# vectors, a broadcast): vnni_swap's
ROWS, VECTORS = 12, 2
# x's rows for which the swapped kernel runs: MIN_ROWS..MAX_ROWS, whole register blocks of
# ROW_STEP (the same test at run time for `?` rows): a rest of r < 32 rows costs a 16- or
# 32-row tile. 1 thread, same process, thread CPU, % of FMA peak, dot kernel -> swapped:
# x[16,1024] @ W[1024,1024].T 66.4 -> 61.4, [33,1024] 64.8 -> 47.2, [48,1024] 76.2 -> 74.9,
# [129,768] @ [768,768].T 72.0 -> 69.0, [9,1024] 46.0 -> 31.6; [96,768] @ [768,768].T 71.3 ->
# 77.8, [256,768] 76.2 -> 76.0
MIN_ROWS, MAX_ROWS, ROW_STEP = 32, 256, VECTORS * 16
# W at least WIDER x as many rows as x
WIDER = 4
# Bytes of x's copy at most (all of k one block: a tile's panel is k x 32 rows of x, read from
# L2). 1 thread, same process, thread CPU, % of FMA peak, dot kernel -> swapped: BERT's FFN down
# x[128,3072] @ W[768,3072].T (1.5 MB copy) 68.2 -> 75.1, [64,4096] @ [4096,4096].T (1 MB) 59.7
# -> 68.0, [32,4096] 33.5 -> 61.5
MAX_COPY = 2 * 1024 * 1024


def enabled() -> bool:
    return os.environ.get("ATEN_MLIR_OUTER_SWAP", "1") != "0"


def _along_k(c: Contraction, types) -> bool:
    """A and B with k alone in their last index and C with n alone in its last, all stride 1
    there, f32 throughout."""
    a_at, b_at, c_at = c.index
    if not (a_at[-1] == ((c.k, 1),) and b_at[-1] == ((c.k, 1),) and c_at[-1] == ((c.n, 1),)):
        return False
    if not all(isinstance(t.element_type, ir.F32Type) for t in types):
        return False
    return all(t.get_strides_and_offset()[0][-1] == 1 for t in types)


def fits(c: Contraction, types, blocks: Blocking) -> bool:
    """Whether `c` may run swapped (at its static rows, or at `?` rows up to MAX_ROWS)."""
    if not enabled() or c.kernel not in ("dot", "packed") or blocks.vector_bytes < 64:
        return False
    if c.op.name == "linalg.conv_2d_nchw_fchw" or not _along_k(c, types):
        return False
    rows, k, n = c.extents[c.m], c.extents[c.k], c.extents[c.n]
    if k is None or n is None or zero_fill_before(c) is None:
        return False
    c_dims = {d for form in c.index[2] for d, _ in form}
    if any(d not in c_dims for d in c.outer):
        return False  # a reduction around the kernel: C is loaded back
    if min(rows or MAX_ROWS, MAX_ROWS) * k * 4 > MAX_COPY:
        return False
    if rows is None:
        return n >= WIDER * MIN_ROWS
    return MIN_ROWS <= rows <= MAX_ROWS and rows % ROW_STEP == 0 and n >= WIDER * rows


class SwappedOuterKernel(OuterKernel):
    """C^T[n, m] = sum over k of W[n, k] * x[m, k], stored into C[m, n]."""

    def __init__(self, c: Contraction, types, blocks: Blocking):
        swapped = dataclasses.replace(
            c,
            a=c.b,
            b=c.a,
            index=(c.index[1], c.index[0], c.index[2]),
            m=c.n,
            n=c.m,
            kernel="packed",
        )
        super().__init__(swapped, types, blocks)
        lanes = self.lanes
        nr = VECTORS * lanes
        self.blocks = dataclasses.replace(
            self.blocks,
            outer_rows=ROWS,
            outer_vectors=VECTORS,
            panel_m=ROWS * (blocks.panel_m // ROWS),
            # all of k one block; x's rows (up to MAX_ROWS) one n block
            block_k=c.extents[c.k],
            block_n=-(-MAX_ROWS // nr) * nr,
        )

    def emit(self) -> None:
        # the chooser's conditions are _fold_zero_fill's: a tile never loads C back
        assert self.c_starts_zero
        super().emit()

    def _on_panels_path(self) -> bool:
        return True  # x copied as panels

    def _on_panels(self, ivs) -> None:
        self._panels_nest(ivs, False)  # W read in place: it is the big operand

    def _c_tile(self, at, rows, widths, bk, row_at=None) -> list[ir.Value]:
        return [self.zeros] * (rows * len(widths))  # one k block, C's fill folded

    def _prefetch_next_c(self, at, rows, vectors) -> None:
        pass  # the tile's C is rows of a few columns: nothing a row of C ahead to fetch

    def _store_tile(self, results, at, rows, widths, row_at=None, sure=None) -> None:
        assert sure is None or sure >= rows  # W's rows are static: no clamped tile
        store_transposed(self, results, at, rows, widths)


class SwapChoice:
    """`scf.if (rows in MIN_ROWS..MAX_ROWS, a multiple of ROW_STEP) { swapped } else { other }`
    for `?` rows of x (what a static compile at those rows runs); the same `c` and
    `c_starts_zero` as a kernel (`_fold_zero_fill` sets it for both)."""

    def __init__(self, c: Contraction, swapped: SwappedOuterKernel, other):
        self.c, self.swapped, self.other = c, swapped, other

    @property
    def c_starts_zero(self) -> bool:
        return self.other.c_starts_zero

    @c_starts_zero.setter
    def c_starts_zero(self, value: bool) -> None:
        self.swapped.c_starts_zero = self.other.c_starts_zero = value

    def emit(self) -> None:
        few = self.swapped
        rows = few.extent(few.c.n)  # swapped: n is x's rows
        inside = arith.andi(
            arith.cmpi(arith.CmpIPredicate.ule, rows, few.index(MAX_ROWS)),
            arith.cmpi(arith.CmpIPredicate.uge, rows, few.index(MIN_ROWS)),
        )
        rest = arith.remui(rows, few.index(ROW_STEP))
        inside = arith.andi(inside, arith.cmpi(arith.CmpIPredicate.eq, rest, few.index(0)))
        branch = scf.IfOp(inside, has_else=True)
        with ir.InsertionPoint(branch.then_block):
            self.swapped.emit()
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self.other.emit()
            scf.YieldOp([])


def swap_emitter(c: Contraction, types, blocks: Blocking, other):
    """The swapped kernel for `c`, or for `?` rows a SwapChoice with `other()` (the kernel
    the pass would emit otherwise) beyond MAX_ROWS; None when it does not apply."""
    if not fits(c, types, blocks):
        return None
    swapped = SwappedOuterKernel(c, types, blocks)
    if c.extents[c.m] is not None:
        return swapped
    return SwapChoice(c, swapped, other())

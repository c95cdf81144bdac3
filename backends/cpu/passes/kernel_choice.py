"""The FMA kernel of a product chosen at run time, when a `?` extent decides it.

`cpu-vectorize-contractions` picks, for a product with A and B both along k (`x @ W.T`), the dot
kernel or the "packed" one (B^T copied, then the outer-product kernel) by comparing k with the
rows of C: copying B pays only when there are enough rows to reuse it (`packs_b`). A `?` rows
extent (a batch, a sequence) is unknown at compile time; a guess made there is wrong for part
of its range: an nn.GRU step `h @ W_hh.T` with a dynamic batch of 9 guessed 64 rows and copied
W_hh (384 x 128) every step, 2x the static compile at batch 9. So when the choice could differ
over the `?` range, both kernels are emitted under one `scf.if` on the extents read at run
time, with the rule the static choice applies: a dynamic compile then runs, at each size, what
a static compile at that size runs. A choice no `?` can change keeps one kernel (code size).

The outer-product kernel (B along n, GPT-2's Conv1D `x @ W`) has a choice of its own: copy B
into panels (pays from PANEL_MIN_ROWS rows on) or read it in place. `?` rows always took the
panels: GPT-2 b1 s7 copied each weight (64 KiB for c_proj) per call for 7 rows, its three
products 37 us of the 58 us a call spent in the library vs 10 in the static compile's in-place
tiles. So `?` rows get both, under `scf.if (rows < PANEL_MIN_ROWS)`.
"""

from __future__ import annotations

import dataclasses

from mlir import ir
from mlir.dialects import arith, scf

from .b_panels import reads_b_in_place
from .dot_kernel import DotKernel
from .kernels import Blocking, Contraction
from .outer_kernel import PANEL_MIN_ROWS, OuterKernel
from .panel_prefetch import OuterPanelKernel, PackedKernel

# B^T is copied (the "packed" kernel) when k < K_PER_ROW x rows: the dot kernel ends each
# element of C with a reduction across lanes, a dozen instructions, which only a long k pays for
K_PER_ROW = 3
# ... and when k is long with enough rows: the dot kernel's block of B rows (dot_block_n x k,
# 2.8 MB at k = 11008) no longer stays in L2 and streams again for every few rows of A, while
# the outer kernel's panels are k-blocked (1 thread, LLaMA-7B down projection x[128,11008] @
# W[4096,11008].T: dot 246 ms, packed 142, eager 99; BERT's x[128,3072] @ W[768,3072].T 6.0 ->
# 5.3, eager 5.2; k = 4096 products equal either way)
LONG_K, LONG_K_ROWS = 2048, 64


def packs_b(k: int, rows: int) -> bool:
    """The static rule: copy B^T for the outer-product kernel (else the dot kernel)."""
    return k < K_PER_ROW * rows or (k >= LONG_K and rows >= LONG_K_ROWS)


def _c_along_n(c: Contraction, c_type: ir.MemRefType) -> bool:
    """The packed kernel's own condition beyond the dot kernel's: C's last index is n alone,
    with stride 1 (its lanes go along n)."""
    strides, _ = c_type.get_strides_and_offset()
    return c.index[2][-1] == ((c.n, 1),) and strides[-1] == 1


def _could_differ(c: Contraction, types) -> bool:
    if c.kernel not in ("dot", "packed") or not _c_along_n(c, types[2]):
        return False
    k, rows = c.extents[c.k], c.extents[c.m]
    if k is not None and rows is not None:
        return False
    # k static below K_PER_ROW: packed for any rows >= 1
    return not (k is not None and packs_b(k, 1))


class KernelChoice:
    """`scf.if (packs_b(k, rows)) { packed kernel } else { dot kernel }` for one product;
    the same `c` and `c_starts_zero` as a kernel (`_fold_zero_fill` sets it for both)."""

    def __init__(self, c: Contraction, types, blocks: Blocking):
        self.c = c
        # built here (their constants before the `scf.if`, dominating both branches)
        self.dot = DotKernel(dataclasses.replace(c, kernel="dot"), types, blocks)
        self.packed = PackedKernel(dataclasses.replace(c, kernel="packed"), types, blocks)

    @property
    def c_starts_zero(self) -> bool:
        return self.dot.c_starts_zero

    @c_starts_zero.setter
    def c_starts_zero(self, value: bool) -> None:
        self.dot.c_starts_zero = self.packed.c_starts_zero = value

    def emit(self) -> None:
        c, trips = self.c, self.dot
        k, m = trips.extent(c.k), trips.extent(c.m)
        short_k = arith.cmpi(arith.CmpIPredicate.slt, k, arith.muli(m, trips.index(K_PER_ROW)))
        long_k = arith.andi(
            arith.cmpi(arith.CmpIPredicate.sge, k, trips.index(LONG_K)),
            arith.cmpi(arith.CmpIPredicate.sge, m, trips.index(LONG_K_ROWS)),
        )
        packs = arith.ori(short_k, long_k)  # packs_b, on the extents read at run time
        branch = scf.IfOp(packs, has_else=True)
        with ir.InsertionPoint(branch.then_block):
            self.packed.emit()
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self.dot.emit()
            scf.YieldOp([])


class _InPlace(OuterKernel):
    """The outer kernel reading B in place whatever its rows (the few-rows path)."""

    def _on_panels_path(self) -> bool:
        return False


class PanelChoice(KernelChoice):
    """`scf.if (rows < PANEL_MIN_ROWS) { B in place } else { B copied as panels }` for an
    outer-product kernel with `?` rows: the rule OuterKernel applies to static rows."""

    def __init__(self, c: Contraction, types, blocks: Blocking):
        self.c = c
        self.dot = _InPlace(c, types, blocks)  # `dot`: the else branch's name in KernelChoice
        self.packed = OuterPanelKernel(c, types, blocks)

    def emit(self) -> None:
        few = self.dot
        rows = few.extent(self.c.m)
        branch = scf.IfOp(
            arith.cmpi(arith.CmpIPredicate.slt, rows, few.index(PANEL_MIN_ROWS)), has_else=True
        )
        with ir.InsertionPoint(branch.then_block):
            self.dot.emit()
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self.packed.emit()
            scf.YieldOp([])


def _panels_could_differ(c: Contraction, blocks: Blocking) -> bool:
    # only "outer": a `packed` kernel always copies (its panels come straight from B's rows);
    # a B read in place at any rows leaves no choice to make
    return c.kernel == "outer" and c.extents[c.m] is None and not reads_b_in_place(c, blocks)


def kernel_choice_emitter(c: Contraction, types, blocks: Blocking) -> KernelChoice | None:
    """Both FMA kernels of `c` under a run-time test, when a `?` rows or k extent could change
    the dot / packed choice, or `?` rows the outer kernel's panels / in place; else None (the
    one kernel the plan chose)."""
    if _could_differ(c, types):
        return KernelChoice(c, types, blocks)
    if _panels_could_differ(c, blocks):
        return PanelChoice(c, types, blocks)
    return None

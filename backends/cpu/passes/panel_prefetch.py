"""FMA kernels on B's panels whose tiles prefetch the block of B the next panel copy reads:
the packed kernel (`x @ W.T`, W's rows transposed into panels, transposed_panels) and the
outer kernel on its panel path (`x @ W` with B's rows 4 KiB apart or B over 16 MiB, b_panels).

The panel path copies each [block_k, block_n] block of B right before the tiles that use it:
for a weight streamed from DRAM (LLaMA-7B's 64 MB projections) the copy waits on memory while
no FMA runs, ~17% of x[128,4096] @ W[4096,4096].T (perf annotate), and prefetching inside the
copy itself did not help (it is bandwidth-bound, not latency-bound). The tiles' k loops instead
issue one prefetch per k step of the next block's lines, spread evenly over the tiles that run
before that copy, so the copy reads L2 and the DRAM traffic overlaps the FMAs. 1 thread, same
process, thread-CPU medians: x[128,4096] @ W[4096,4096].T 23.0 -> 21.3 ms, [128,3072] @
[768,3072].T 3.40 -> 3.09, [64,768] @ [768,3072] 1.82 -> 1.66, [256,768] @ [768,3072] 6.11 ->
5.56 (no change at 512^3, 1024^3 or x[1024,768] @ W[3072,768].T, whose B blocks stay in L2/L3).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from .kernels import lane_stride
from .outer_kernel import OuterKernel

# Prefetch the next block of B from the tiles: packed kernels, outer kernels (switches for A/B)
PREFETCH_NEXT_BLOCK = True
PREFETCH_OUTER = True
# prefetcht1 (into L2, the copy's source), not t0: the tiles' panels and A strips are in L1
LOCALITY = 2


class PackedKernel(OuterKernel):
    """OuterKernel for `packed` products (B's lanes along k): its panel tiles also prefetch
    the next block of B."""

    def _b_lanes(self, at, widths, bn, bk, panels):
        lanes = super()._b_lanes(at, widths, bn, bk, panels)
        if panels is None or not self._prefetches():
            return lanes
        prefetch = next_block_prefetch(self, at, bn, bk)

        def prefetching(at_k) -> list[ir.Value]:
            vectors = lanes(at_k)  # the k loop's B loads first, then the prefetch
            prefetch(at_k[self.c.k])
            return vectors

        return prefetching

    def _prefetches(self) -> bool:
        return PREFETCH_NEXT_BLOCK and not self._copies_b_t()


class OuterPanelKernel(PackedKernel):
    """The outer kernel (B along n) prefetching, on its panel path, the next block of B (not a
    direct conv's window kernel, which reads in place, nor gathered lanes)."""

    def _prefetches(self) -> bool:
        c = self.c
        return (
            PREFETCH_OUTER
            and self.c.kernel == "outer"
            and not self.window_dims
            and lane_stride(c.index[1], c.n) == 1
        )


def next_block_prefetch(e: OuterKernel, at, bn, bk):
    """For the tile at `at` of block (bk, bn) of B: a function of the k step emitting one
    prefetch of a line of the block the next copy reads, (bn, bk + block_k) or, after B's
    last k block, (bn + n block, 0).

    The tile's `nr` columns of that block are nr * block_k / L lines (B along k: nr rows of
    block_k / L lines; along n: block_k rows of nr / L lines), prefetched over the k steps of
    the tiles of the same columns in every m tile of the product (`?` rows: of one m block),
    a line every (steps / lines) steps. n and k are clamped to B's last ones, so every address
    is inside B (the last block prefetches its own last lines again)."""
    c, lanes, nr = e.c, e.lanes, e._nr()
    block_k, rows = e.blocks.block_k, e.blocks.outer_rows
    along_k = e.c.kernel == "packed"
    lines_per_row = block_k // lanes if along_k else nr // lanes
    lines = nr * block_k // lanes
    static_m = c.extents[c.m]
    tiles = -(-(e._panel_rows() if static_m is None else static_m) // rows)
    tile = arith.divui(at[c.m], e.index(rows))
    if static_m is None:
        tile = arith.remui(tile, e.index(tiles))
    first = arith.muli(tile, e.index(block_k))
    slots = tiles * block_k
    k_next = arith.addi(bk, e.index(block_k))
    more_k = arith.cmpi(arith.CmpIPredicate.slt, k_next, e.extent(c.k))
    next_bk = arith.select(more_k, k_next, e.index(0))
    next_bn = arith.select(more_k, bn, arith.addi(bn, e.index(e._n_block())))
    row0 = arith.addi(next_bn, arith.subi(at[c.n], bn))
    last_n = arith.subi(e.extent(c.n), e.index(1))
    last_k = arith.subi(e.extent(c.k), e.index(1))

    def prefetch(step) -> None:
        slot = arith.addi(first, arith.subi(step, bk))
        # the slot's line of the tile's `lines` (constant divisors: multiplies and shifts)
        q = arith.divui(arith.muli(slot, e.index(lines)), e.index(slots))
        if along_k:  # nr rows of B (n), lines_per_row lines of k each
            n = arith.addi(row0, arith.divui(q, e.index(lines_per_row)))
            k = arith.muli(arith.remui(q, e.index(lines_per_row)), e.index(lanes))
        else:  # block_k rows of B (k), nr / L lines of n each
            k = arith.divui(q, e.index(lines_per_row))
            n = arith.addi(row0, arith.muli(arith.remui(q, e.index(lines_per_row)), e.index(lanes)))
        n = arith.minsi(n, last_n)
        k = arith.minsi(arith.addi(next_bk, k), last_k)
        indices = e._at(1, {**at, c.n: n, c.k: k}, {})
        memref.prefetch(e.b, indices, False, LOCALITY, True)

    return prefetch

"""The outer kernel's A copied once per product as strips of R rows (R = the register block's
rows), k-major inside a strip: strips[s, k, i] = A[s * R + i, k]. A tile's k step then
broadcasts R consecutive scalars (one cache line) and the tile's whole k range is one
contiguous run, where in place its R rows of A are a whole row of A apart (3 KB for k = 768):
R streams for the prefetcher per tile instead of one.

The strips cover all of A (ceil(M / R) strips, sized from the runtime extents when M or K is
`?`); the rows past M in the last strip hold copies of A's last row (the row index is clamped,
so nothing outside A is read) and no tile reads them. The copy is made before the kernel's n
loop, so every n block's tiles share it (threads only read it).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from .kernels import lane_stride
from .lane_shuffles import transpose

# k steps ahead a tile's k loop prefetches its strip (0: none); the strips' k dim is padded by
# as many rows, so the address prefetched is always inside the buffer
PREFETCH_K = 0
# Columns of C from which the copy pays: it costs a load, a transpose and a store per element
# of A, the kernel then does n / lanes fmas per element (1 thread, same process: mm 512^3
# 1.75-1.86 vs 1.92-1.97 ms without; the im2col conv 256ch 14x14, n = 196 pixels, 1.99-2.06
# vs 1.74-1.83 ms: 12% slower). `?` columns copy.
MIN_COLUMNS = 512


def packs_a(e) -> bool:
    n = e.c.extents[e.c.n]
    # the copy stores L k rows at a time inside one k block
    whole = e.blocks.block_k % e.lanes == 0
    return whole and (n is None or n >= MIN_COLUMNS)


def _group(e) -> int:
    """Strips copied together: a transpose block's L rows hold L / R whole strips."""
    return max(1, e.lanes // e.blocks.outer_rows)


def _strip_count(e) -> ir.Value | int:
    """ceil(M / R) rounded up to whole groups (a static int when M is known)."""
    c, r, g = e.c, e.blocks.outer_rows, _group(e)
    m = c.extents[c.m]
    if m is not None:
        return -(-m // (r * g)) * g
    groups = arith.divui(arith.addi(e.extent(c.m), e.index(r * g - 1)), e.index(r * g))
    return arith.muli(groups, e.index(g))


def alloc_strips(e) -> ir.Value:
    """The [k blocks, strips, block_k + PREFETCH_K, R] buffer, R = the register block's rows:
    the strips of one (k block, m block) are one contiguous run."""
    c, r, block_k = e.c, e.blocks.outer_rows, e.blocks.block_k
    k = c.extents[c.k]
    dynamic = ir.ShapedType.get_dynamic_size()
    sizes = []
    if k is None:
        sizes.append(arith.divui(arith.addi(e.extent(c.k), e.index(block_k - 1)), e.index(block_k)))
    count = _strip_count(e)
    if not isinstance(count, int):
        sizes.append(count)
    shape = [
        dynamic if k is None else -(-k // block_k),
        count if isinstance(count, int) else dynamic,
        block_k + PREFETCH_K,
        r,
    ]
    return memref.alloc(ir.MemRefType.get(shape, e.element), sizes, [], alignment=64)


def pack_strips(e, ivs, strips) -> None:
    """strips[k // block_k, s, k % block_k, i] = A[min(s * R + i, M - 1), k] for every strip s
    and k < K (k up to the next whole vector: zeros). A group of L / R strips at a time: L
    rows of A, L lanes of k each (masked to what is left of k), transposed in registers, each
    k's L rows split into the group's strips."""
    c, r, lanes, g = e.c, e.blocks.outer_rows, e.lanes, _group(e)
    if r > lanes or lane_stride(c.index[0], c.k) != 1:
        return _pack_scalar(e, ivs, strips)
    count = _strip_count(e)
    count = e.index(count) if isinstance(count, int) else count
    last = arith.subi(e.extent(c.m), e.index(1))
    k_extent = e.extent(c.k)
    s_loop = scf.ForOp(e.index(0), count, e.index(g))
    with ir.InsertionPoint(s_loop.body):
        s = s_loop.induction_variable
        first = arith.muli(s, e.index(r))
        rows = [arith.minsi(arith.addi(first, e.index(i)), last) for i in range(r * g)]
        k_loop = scf.ForOp(e.index(0), k_extent, e.index(lanes))
        with ir.InsertionPoint(k_loop.body):
            k = k_loop.induction_variable
            kb, kk = _split_k(e, k)
            k_left = arith.minsi(e.index(lanes), arith.subi(k_extent, k))
            block = [
                e._load_lanes(c.a, e._at(0, {**ivs, c.m: row, c.k: k}, {}), k_left) for row in rows
            ] + [e.zeros] * (lanes - r * g)
            slice_type = ir.VectorType.get([r], e.element)
            for t, column in enumerate(transpose(block)):
                for j in range(g):
                    part = vector.extract_strided_slice(slice_type, column, [j * r], [r], [1])
                    at = [kb, arith.addi(s, e.index(j)), arith.addi(kk, e.index(t)), e.index(0)]
                    vector.store(part, strips, at)
            scf.YieldOp([])
        scf.YieldOp([])


def _split_k(e, k):
    block_k = e.index(e.blocks.block_k)
    return arith.divui(k, block_k), arith.remui(k, block_k)


def _pack_scalar(e, ivs, strips) -> None:
    """The copy an element at a time (A strided along k, or more rows than lanes)."""
    c, r = e.c, e.blocks.outer_rows
    count = arith.divui(arith.addi(e.extent(c.m), e.index(r - 1)), e.index(r))
    last = arith.subi(e.extent(c.m), e.index(1))
    s_loop = scf.ForOp(e.index(0), count, e.index(1))
    with ir.InsertionPoint(s_loop.body):
        s = s_loop.induction_variable
        first = arith.muli(s, e.index(r))
        rows = [arith.minsi(arith.addi(first, e.index(i)), last) for i in range(r)]
        k_loop = scf.ForOp(e.index(0), e.extent(c.k), e.index(1))
        with ir.InsertionPoint(k_loop.body):
            k = k_loop.induction_variable
            for i, row in enumerate(rows):
                value = e._load_scalar(c.a, e._at(0, {**ivs, c.m: row, c.k: k}, {}))
                kb, kk = _split_k(e, k)
                memref.store(value, strips, [kb, s, kk, e.index(i)])
            scf.YieldOp([])
        scf.YieldOp([])


def strip_reader(e, strips, m, bk):
    """A function (k, i) -> A[m + i, k] from the strips, for a tile whose rows start at `m`
    in the k block from `bk` (a tile never straddles two strips: its rows are a whole register
    block from a multiple of R, or one row)."""
    r = e.blocks.outer_rows
    s = arith.divui(m, e.index(r))
    first = arith.remui(m, e.index(r))  # 0 but in a one-row remainder
    kb = arith.divui(bk, e.index(e.blocks.block_k))

    def read(k, i):
        kk = arith.subi(k, bk)
        if i == 0 and PREFETCH_K:
            ahead = arith.addi(kk, e.index(PREFETCH_K))
            memref.prefetch(strips, [kb, s, ahead, first], False, 3, True)
        return memref.load(strips, [kb, s, kk, arith.addi(first, e.index(i)) if i else first])

    return read

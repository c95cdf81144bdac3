"""The outer kernel's A copied once per product as strips of R rows (R = the register block's
rows), k-major inside a strip: strips[s, k, i] = A[s * R + i, k]. A tile's k step then
broadcasts R consecutive scalars (one cache line) and the tile's whole k range is one
contiguous run, where in place its R rows of A are a whole row of A apart (3 KB for k = 768):
R streams for the prefetcher per tile instead of one.

A contiguous along k (`a @ b`) is copied L rows at a time, transposed in registers. A contiguous
along m (dY^T in a Linear's weight gradient dY^T @ X, dY [tokens, out]) needs no transpose: a
strip's R rows at one k are R consecutive elements of dY's row k, so the copy is vector loads
along m split into R-lane pieces. Whether the copy pays is decided per layout (packs_a).

The strips cover all of A (ceil(M / R) strips rounded up to whole copy groups, sized from the
runtime extents when M or K is `?`); the rows past M in the last strips hold copies of A's last
row or zeros (row indices are clamped and loads masked, so nothing outside A is read) and no
tile reads them. The copy is made before the kernel's n loop, so every n block's tiles share it
(threads only read it).
"""

from __future__ import annotations

import dataclasses

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
# On znver5 (1 thread, same process) 512 is still about where it pays: mm 512^3 1.205 -> 1.178
# ms, N = 256 / 384 4-6% slower, the im2col conv 256ch 14x14 (N = 196) 3% slower.
MIN_COLUMNS = 512
# A contiguous along m, f32: in place a tile's k loop reads R elements from each of block_k rows
# of dY; when dY's row is a multiple of 4 KiB those rows all fall in the same L1 sets and the
# tile misses L1 on every k (M = 1024 f32 runs 1.25x the time per row of M = 960). The copy pays
# there from 128 columns per 4 KiB of stride, a fit of (1 thread, same process, dY^T @ X,
# [K, M, N]): [128, 1024, 512] 0.68 -> 0.60 ms, [512, 1024, 256] 1.71 -> 1.49, [512, 1024, 128]
# 0.643 -> 0.589, [256, 2048, 768] 4.19 -> 3.66, [512, 2048, 256] 2.88 -> 2.78, [1024, 3072,
# 768] 24.1 -> 23.3, [256, 4096, 512] 5.83 -> 5.27; slower: [512, 1024, 64] 0.336 -> 0.355,
# [512, 4096, 256] 5.76 -> 6.22, [128, 4096, 256] 1.49 -> 1.65. Not at other strides: the copy
# is a pass over A through memory that in place the tiles avoid ([512, 768, 256] 0.93 -> 1.00,
# [512, 1000, 256] 1.15 -> 1.26, [1024, 768, 3072] 21.6 -> 22.9).
ALIASING_STRIDE = 4096
MIN_COLUMNS_ALONG_M = 128  # per ALIASING_STRIDE of stride
# ... bf16/f16 A along m: the copy also widens A once (in place every broadcast is a narrow load
# and an extend): it pays at any stride from 64 columns ([512, 768, 256] 1.02 -> 0.90 ms,
# [512, 256, 1024] 1.67 -> 1.32, [512, 768, 64] 0.283 -> 0.248, [512, 768, 32] even).
MIN_COLUMNS_NARROW_ALONG_M = 64
# vectors of L lanes of m one k step of the copy loads (4: a whole 256 B of dY's row per load
# group; 1 or 2 vectors measured 2-10% slower copies)
M_VECTORS = 4


def packs_a(e) -> bool:
    n = e.c.extents[e.c.n]
    if _along_m(e):
        if _is_narrow(e):
            return n is None or n >= MIN_COLUMNS_NARROW_ALONG_M
        stride = _k_stride_bytes(e)
        if stride is None or stride % ALIASING_STRIDE:
            return False
        return n is None or n >= MIN_COLUMNS_ALONG_M * (stride // ALIASING_STRIDE)
    # the copy stores L k rows at a time inside one k block
    whole = e.blocks.block_k % e.lanes == 0
    return whole and (n is None or n >= MIN_COLUMNS)


def _along_m(e) -> bool:
    """A's lanes along m (the along-m copy: vector loads, no transpose)."""
    return e.blocks.outer_rows <= e.lanes and lane_stride(e.c.index[0], e.c.m) == 1


def _is_narrow(e) -> bool:
    return ir.MemRefType(e.c.a.type).element_type != e.element


def _k_stride_bytes(e) -> int | None:
    """Bytes between A[m, k] and A[m, k + 1], or None when a stride is `?`."""
    t = ir.MemRefType(e.c.a.type)
    strides, _ = t.get_strides_and_offset()
    total = 0
    for form, stride in zip(e.c.index[0], strides):
        coefficient = dict(form).get(e.c.k, 0)
        if coefficient and stride == ir.ShapedType.get_dynamic_stride_or_offset():
            return None
        total += coefficient * stride
    return total * t.element_type.width // 8


def _group(e) -> int:
    """Strips copied together: a transpose block's L rows hold L / R whole strips (along m:
    M_VECTORS vectors' worth)."""
    per_vector = max(1, e.lanes // e.blocks.outer_rows)
    return per_vector * M_VECTORS if _along_m(e) else per_vector


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
    if _along_m(e):
        return _pack_along_m(e, ivs, strips)
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


def _pack_along_m(e, ivs, strips) -> None:
    """strips[k // block_k, s, k % block_k, :] = A[s * R :][:R, k]: a group's strips at one k
    are M_VECTORS vectors of A along m (each masked to the rows left, its row index clamped to
    A), split into R-lane pieces and stored as they are. s-major: each strip is written as one
    contiguous run (a k-major order, reading dY row by row, measured 14-36% slower)."""
    c, r, g = e.c, e.blocks.outer_rows, _group(e)
    per_vector = e.lanes // r
    count = _strip_count(e)
    count = e.index(count) if isinstance(count, int) else count
    m_extent = e.extent(c.m)
    last = arith.subi(m_extent, e.index(1))
    # a static M of whole groups: every load whole, in bounds, unmasked
    whole = c.extents[c.m] is not None and c.extents[c.m] % (r * g) == 0
    piece = ir.VectorType.get([r], e.element)
    s_loop = scf.ForOp(e.index(0), count, e.index(g))
    with ir.InsertionPoint(s_loop.body):
        s = s_loop.induction_variable
        loads = []  # (first row, rows left), per vector of the group
        for v in range(M_VECTORS):
            first = arith.muli(arith.addi(s, e.index(v * per_vector)), e.index(r))
            if whole:
                loads.append((first, r * per_vector))
                continue
            left = arith.minsi(e.index(r * per_vector), arith.subi(m_extent, first))
            loads.append((arith.minsi(first, last), arith.maxsi(left, e.index(0))))
        k_loop = scf.ForOp(e.index(0), e.extent(c.k), e.index(1))
        with ir.InsertionPoint(k_loop.body):
            k = k_loop.induction_variable
            kb, kk = _split_k(e, k)
            for v, (first, left) in enumerate(loads):
                value = e._load_lanes(c.a, e._at(0, {**ivs, c.m: first, c.k: k}, {}), left)
                for j in range(per_vector):
                    part = vector.extract_strided_slice(piece, value, [j * r], [r], [1])
                    strip = arith.addi(s, e.index(v * per_vector + j))
                    vector.store(part, strips, [kb, strip, kk, e.index(0)])
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


def strip_columns(e, enabled: bool) -> int | None:
    """The fewest columns from which A is copied as strips, when the columns are `?` and the
    copy depends on them; else None (the copy, or not, decided at compile time). `enabled`:
    outer_kernel.PACK_A."""
    if not (enabled and e.c.extents[e.c.n] is None and packs_a(e)):
        return None

    def packs(columns: int) -> bool:
        return packs_a(_AtColumns(e, columns))

    lo, hi = 1, 1 << 20
    if packs(lo) or not packs(hi):
        return None
    while hi - lo > 1:  # packs(hi) and not packs(lo): the rule is monotone in the columns
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if packs(mid) else (mid, hi)
    return hi


class _AtColumns:
    """An OuterKernel as packs_a sees it, with its `?` columns made `columns`."""

    def __init__(self, e, columns: int):
        self._e = e
        extents = list(e.c.extents)
        extents[e.c.n] = columns
        self.c = dataclasses.replace(e.c, extents=tuple(extents))

    def __getattr__(self, name: str):
        return getattr(self._e, name)

"""The VNNI panels of the vdpbf16ps kernel (`vnni_kernel`): one [block_k, block_n] block of a bf16
B copied as panels [block_n / NR, pairs, 2 NR] bf16, pair kp of column j at elements 2 j and
2 j + 1 of panel row kp (B[bk + 2 kp, n], B[bk + 2 kp + 1, n]): one 512-bit load of a panel row
gives 16 columns x 2 k, what `vdpbf16ps` multiplies by a broadcast pair of A.

Columns past n and the element past an odd k are zeros (0 * 0 adds nothing: A's missing element
is masked to zero too), so the kernel's loads need no masks. Two sources:
- B along n (`x @ W`, attention's `p @ v`): two rows of k, 16 columns each (masked to what is
  left of n), interleaved by one two-source shuffle.
- B along k (`x @ W.T`, attention's `q @ k.T`): B's rows already hold the pairs; 16 rows x 32 k
  are loaded as 16 x 16 words (masked to what is left of k; rows past n load nothing, their
  index clamped inside B) and transposed in registers (`lane_shuffles.transpose`): word q of
  each row becomes panel row q's 16 columns. The panel's pair dim is whole groups of 16, so the
  zero words past the end of k stay inside it.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from .lane_shuffles import transpose

WORDS = 16  # 32-bit words (bf16 pairs) of a 512-bit register


def _bf16_lanes(e, base, indices, width) -> ir.Value:
    """`width` (a runtime count, clamped to >= 0) bf16 from `indices` on, zeros past it."""
    t = ir.VectorType.get([width[1]], e.bf16)
    mask_t = ir.VectorType.get([width[1]], ir.IntegerType.get_signless(1))
    mask = vector.create_mask(mask_t, [arith.maxsi(width[0], e.index(0))])
    return vector.maskedload(t, base, indices, mask, e.bf16_zeros(width[1]))


def pack_along_n(e, ivs, panels, bn, bk) -> None:
    """panels[p, kp, 2 j + h] = B[k = bk + 2 kp + h, n = bn + p NR + j] for B [k, n]."""
    c, nr = e.c, e.nr
    k_stop = arith.minsi(e.index(e.blocks.block_k), arith.subi(e.extent(c.k), bk))
    n_left = arith.minsi(e.index(e._n_block()), arith.subi(e.extent(c.n), bn))
    p_stop = arith.divui(arith.addi(n_left, e.index(nr - 1)), e.index(nr))
    pair_stop = arith.divui(arith.addi(k_stop, e.index(1)), e.index(2))
    interleave = [i // 2 + (WORDS if i % 2 else 0) for i in range(2 * WORDS)]
    # pairs outer: each step reads two rows of B's block left to right (runs the prefetcher
    # follows), as the f32 kernel's panel copy
    kp_loop = scf.ForOp(e.index(0), pair_stop, e.index(1))
    with ir.InsertionPoint(kp_loop.body):
        kp = kp_loop.induction_variable
        k0 = arith.addi(bk, arith.muli(kp, e.index(2)))
        # an odd k's last pair: the second row is past B, loads nothing
        second = arith.cmpi(arith.CmpIPredicate.slt, arith.addi(k0, e.index(1)), e.extent(c.k))
        k1 = arith.select(second, arith.addi(k0, e.index(1)), k0)
        p_loop = scf.ForOp(e.index(0), p_stop, e.index(1))
        with ir.InsertionPoint(p_loop.body):
            p = p_loop.induction_variable
            for j in range(0, nr, WORDS):
                first = arith.addi(arith.muli(p, e.index(nr)), e.index(j))
                left = arith.subi(n_left, first)
                n = arith.addi(bn, first)
                rows = []
                for k, width in ((k0, left), (k1, arith.select(second, left, e.index(0)))):
                    at = e._at(1, {**ivs, c.k: k, c.n: n}, {})
                    rows.append(_bf16_lanes(e, e.b, at, (width, WORDS)))
                pairs = vector.shuffle(rows[0], rows[1], interleave)
                vector.store(pairs, panels, [p, kp, e.index(2 * j)])
            scf.YieldOp([])
        scf.YieldOp([])


def pack_along_k(e, ivs, panels, bn, bk) -> None:
    """panels[p, kp, 2 j + h] = B[n = bn + p NR + j, k = bk + 2 kp + h] for B [n, k]."""
    c, nr = e.c, e.nr
    k_stop = arith.minsi(e.index(e.blocks.block_k), arith.subi(e.extent(c.k), bk))
    n_left = arith.minsi(e.index(e._n_block()), arith.subi(e.extent(c.n), bn))
    p_stop = arith.divui(arith.addi(n_left, e.index(nr - 1)), e.index(nr))
    last = arith.subi(e.extent(c.n), e.index(1))
    words = ir.VectorType.get([WORDS], ir.IntegerType.get_signless(32))
    # panels outer, k inner: a panel reads its NR rows of B along k and is written in order
    p_loop = scf.ForOp(e.index(0), p_stop, e.index(1))
    with ir.InsertionPoint(p_loop.body):
        p = p_loop.induction_variable
        kk_loop = scf.ForOp(e.index(0), k_stop, e.index(2 * WORDS))
        with ir.InsertionPoint(kk_loop.body):
            kk = kk_loop.induction_variable
            k_left = arith.subi(k_stop, kk)
            kp = arith.divui(kk, e.index(2))
            for j in range(0, nr, WORDS):
                first = arith.addi(arith.muli(p, e.index(nr)), e.index(j))
                block = []
                for r in range(WORDS):
                    row = arith.addi(first, e.index(r))
                    inside = arith.cmpi(arith.CmpIPredicate.slt, row, n_left)
                    n = arith.minsi(arith.addi(bn, row), last)
                    at = e._at(1, {**ivs, c.n: n, c.k: arith.addi(bk, kk)}, {})
                    width = arith.select(inside, k_left, e.index(0))
                    block.append(vector.bitcast(words, _bf16_lanes(e, e.b, at, (width, 2 * WORDS))))
                for q, column in enumerate(transpose(block)):
                    pairs = vector.bitcast(e.pairs, column)
                    vector.store(pairs, panels, [p, arith.addi(kp, e.index(q)), e.index(2 * j)])
            scf.YieldOp([])
        scf.YieldOp([])

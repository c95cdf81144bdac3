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
    k_stop, n_left, p_stop = e.panel_bounds(bn, bk, nr)
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
                rows = _row_pair(e, ivs, (k0, k1, second), (bn, first, n_left))
                pairs = vector.shuffle(rows[0], rows[1], interleave)
                vector.store(pairs, panels, [p, kp, e.index(2 * j)])
            scf.YieldOp([])
        scf.YieldOp([])


def _row_pair(e, ivs, ks, columns) -> list[ir.Value]:
    """16 columns of B's rows k0 and k1 from n = bn + first on: plain loads inside B, else
    masked to what is left of n (and nothing of k1 when it is past k: `second` false)."""
    c, (k0, k1, second), (bn, first, n_left) = e.c, ks, columns
    left = arith.subi(n_left, first)
    n = arith.addi(bn, first)
    half = ir.VectorType.get([WORDS], e.bf16)
    inside = arith.cmpi(arith.CmpIPredicate.sge, left, e.index(WORDS))
    branch = scf.IfOp(arith.andi(inside, second), [half] * 2, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([vector.load(half, e.b, e._at(1, {**ivs, c.k: k, c.n: n}, {})) for k in ks[:2]])
    with ir.InsertionPoint(branch.else_block):
        rows = []
        for k, width in ((k0, left), (k1, arith.select(second, left, e.index(0)))):
            at = e._at(1, {**ivs, c.k: k, c.n: n}, {})
            rows.append(_bf16_lanes(e, e.b, at, (width, WORDS)))
        scf.YieldOp(rows)
    return list(branch.results)


def pack_along_k(e, ivs, panels, bn, bk) -> None:
    """panels[p, kp, 2 j + h] = B[n = bn + p NR + j, k = bk + 2 kp + h] for B [n, k]."""
    nr = e.nr
    k_stop, n_left, p_stop = e.panel_bounds(bn, bk, nr)
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
                block = _words_block(e, ivs, (bn, arith.addi(bk, kk)), first, (n_left, k_left))
                for q, column in enumerate(transpose(block)):
                    pairs = vector.bitcast(e.pairs, column)
                    vector.store(pairs, panels, [p, arith.addi(kp, e.index(q)), e.index(2 * j)])
            scf.YieldOp([])
        scf.YieldOp([])


def _words_block(e, ivs, at, first, left) -> list[ir.Value]:
    """16 rows of B from n = bn + first on, 32 bf16 of k from `k` each, as 16 words: plain
    loads when the block is inside B, else masked to what is left of k (rows past n: nothing
    loaded, their index clamped to B's last row)."""
    c, (bn, k), (n_left, k_left) = e.c, at, left
    words = ir.VectorType.get([WORDS], ir.IntegerType.get_signless(32))
    inside_n = arith.cmpi(arith.CmpIPredicate.sle, arith.addi(first, e.index(WORDS)), n_left)
    inside_k = arith.cmpi(arith.CmpIPredicate.sge, k_left, e.index(2 * WORDS))
    branch = scf.IfOp(arith.andi(inside_n, inside_k), [words] * WORDS, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        rows = []
        for r in range(WORDS):
            n = arith.addi(bn, arith.addi(first, e.index(r)))
            rows.append(vector.load(e.pairs, e.b, e._at(1, {**ivs, c.n: n, c.k: k}, {})))
        scf.YieldOp([vector.bitcast(words, row) for row in rows])
    with ir.InsertionPoint(branch.else_block):
        rows = []
        for r in range(WORDS):
            n, width = e.panel_row(bn, first, r, n_left, k_left)
            at = e._at(1, {**ivs, c.n: n, c.k: k}, {})
            rows.append(_bf16_lanes(e, e.b, at, (width, 2 * WORDS)))
        scf.YieldOp([vector.bitcast(words, row) for row in rows])
    return list(branch.results)

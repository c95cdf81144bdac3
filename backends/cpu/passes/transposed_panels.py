"""The outer kernel's B panels copied straight from B's rows when B's lanes run along k (`a @
b.T`, a linear layer's weight, attention's `q @ k.T`): each L x L block (L rows of n, L lanes
of k) is loaded as L vectors, transposed in registers (`lane_shuffles.transpose`) and stored as
L panel rows of k. One copy, where a B^T copy followed by the panel copy was two (the first a
scalar load and store per element).

Blocks wholly inside B load whole vectors; a block at the end of n or k loads each row masked to
what is left of k, and rows past n (their index clamped to B's last row) load nothing: their
lanes are zeros, so no address outside B is read. The panel's k dim is rounded up to whole
vectors, so the zero rows past the end of k stay inside the panel.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from .lane_shuffles import transpose


def pack_panels_from_rows(e, ivs, panels, bn, bk, nr) -> None:
    """panels[p, kk, j] = B[n = bn + p * nr + j, k = bk + kk] for the [block_k, block_n] block of
    B at (bk, bn); `e` is the OuterKernel (its B has lanes along k)."""
    lanes = e.lanes
    k_stop, n_left, p_stop = e.panel_bounds(bn, bk, nr)
    # panels outer, k inner: a panel reads its nr rows of B along k (runs the prefetcher
    # follows) and is written front to back; k outer touched a line of every row of the block
    # per step (x[1024,768] @ W[3072,768].T, 1 thread, same process: 32.5 -> 31.3 ms)
    p_loop = scf.ForOp(e.index(0), p_stop, e.index(1))
    with ir.InsertionPoint(p_loop.body):
        p = p_loop.induction_variable
        kk_loop = scf.ForOp(e.index(0), k_stop, e.index(lanes))
        with ir.InsertionPoint(kk_loop.body):
            kk = kk_loop.induction_variable
            k_left = arith.minsi(e.index(lanes), arith.subi(k_stop, kk))
            for j in range(0, nr, lanes):
                first = arith.addi(arith.muli(p, e.index(nr)), e.index(j))
                rows = _load_block(e, ivs, bn, arith.addi(bk, kk), first, n_left, k_left)
                for t, row in enumerate(transpose(rows)):
                    vector.store(row, panels, [p, arith.addi(kk, e.index(t)), e.index(j)])
            scf.YieldOp([])
        scf.YieldOp([])


def _load_block(e, ivs, bn, k, first, n_left, k_left) -> list[ir.Value]:
    """The L rows of B from n = bn + first on, L lanes of k from `k`: whole vectors when the
    block is inside B, else masked (rows past n all masked off)."""
    c, lanes = e.c, e.lanes
    inside_n = arith.cmpi(arith.CmpIPredicate.sle, arith.addi(first, e.index(lanes)), n_left)
    inside_k = arith.cmpi(arith.CmpIPredicate.eq, k_left, e.index(lanes))
    whole = arith.andi(inside_n, inside_k)
    branch = scf.IfOp(whole, [e.vector] * lanes, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        out = []
        for r in range(lanes):
            n = arith.addi(bn, arith.addi(first, e.index(r)))
            out.append(e._load_lanes(e.b, e._at(1, {**ivs, c.n: n, c.k: k}, {}), lanes))
        scf.YieldOp(out)
    with ir.InsertionPoint(branch.else_block):
        out = []
        for r in range(lanes):
            n, width = e.panel_row(bn, first, r, n_left, k_left)
            out.append(e._load_lanes(e.b, e._at(1, {**ivs, c.n: n, c.k: k}, {}), width))
        scf.YieldOp(out)
    return list(branch.results)

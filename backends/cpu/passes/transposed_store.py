"""The store of a swapped kernel's register block: C^T's tile transposed in registers, one masked
store of a few columns per row of C (issue #22).

A kernel run with its operands swapped for `x @ W.T` (`vnni_swap`, `outer_swap`: W the
broadcast operand read in place, x the small copied one) holds C^T in its accumulators: `rows`
columns of C (W's rows) x len(widths) vectors of 16 rows of C (x's rows). Per 16 columns and
vector, the registers are transposed (`lane_shuffles.transpose`, the missing columns zeros) so
that register l holds row l of that vector's rows, and each of those rows gets its columns by one
masked store: C's rows are a whole row apart, so the store per row is the widest one there is.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from .lane_shuffles import transpose


def store_transposed(e, results, at, rows: int, widths) -> None:
    """results[i * V + j] lane l is C[m + 16 j + l, n + i] (m, n of the original product; `e`'s
    contraction is the swapped one: e.c.m is C's columns, e.c.n C's rows; `at` the tile's
    indices). `widths[j]` is how many rows of C vector j holds: a static count, or a run-time
    one (a `?` rest of rows), each of whose 16 stores then runs only for a row that exists."""
    c = e.c
    for first in range(0, rows, e.lanes):  # 16 columns of C a transpose
        count = min(e.lanes, rows - first)
        mask = vector.constant_mask(e.mask_type, [count])
        for j, w in enumerate(widths):
            block = [results[(first + i) * len(widths) + j] for i in range(count)]
            columns = transpose(block + [e.zeros] * (e.lanes - count))
            for lane in range(w if isinstance(w, int) else e.lanes):
                indices = e._at(2, at, {c.m: first, c.n: j * e.lanes + lane})
                if isinstance(w, int):
                    vector.maskedstore(c.c, indices, mask, columns[lane])
                    continue
                inside = arith.cmpi(arith.CmpIPredicate.slt, e.index(lane), w)
                branch = scf.IfOp(inside)
                with ir.InsertionPoint(branch.then_block):
                    vector.maskedstore(c.c, indices, mask, columns[lane])
                    scf.YieldOp([])

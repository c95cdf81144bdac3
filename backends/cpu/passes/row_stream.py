"""The row-streaming kernel of `cpu-vectorize-contractions`: `x @ W` with a few rows of x
(decode, M = 1..FEW_ROWS static) and W [k, n] contiguous along n (GPT-2's Conv1D, `x @ W`
without a transpose).

Such a product reads each element of W once and does M multiply-adds with it: it runs at the
speed W streams from memory. The outer-product kernel walks W in k-blocked strips of 32
columns, 128 bytes of one row and then 128 bytes of the next row 12 KB further (x[1,768] @
W[768,3072]: 0.95 ms, eager 0.48): a stride no hardware prefetcher follows across pages.
Here W goes by whole rows, in order: C's M rows (a block of up to C_BLOCK bytes of columns,
in L1/L2) take `C[i, :] += x[i, k + u] * W[k + u, :]` for KU rows of W at a time, so each
vector of C is loaded and stored once per KU rows of W, and W is read sequentially.

C keeps its zero fill (the kernel adds into C). A static or `?` n ends in one masked vector;
a static or `?` k ends in single rows of W. Sums run in k order per element, as eager's.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from .dot_kernel import FEW_ROWS
from .kernels import Blocking, Contraction, KernelEmitter

# bytes of C's rows per block of columns: W's rows are read in runs this long / M
C_BLOCK = 64 * 1024
# elements of W from which it is streamed from memory rather than re-read from L2 (256 KB)
MIN_WEIGHT = 64 * 1024
# broadcasts of x held across one pass over C's block: M x KU scalars in registers
_BROADCASTS = 16


def _single_dims(forms) -> bool:
    return all(len(form) == 1 and form[0][1] == 1 for form in forms)


def fits(c: Contraction, types) -> bool:
    """An f32 `outer` product with a static M <= FEW_ROWS (every other row dim of extent 1), a
    static W of MIN_WEIGHT elements or more, B's last index n alone, and indices that are plain
    dims (not a convolution's windows)."""
    if c.kernel != "outer" or any(str(t.element_type) != "f32" for t in types):
        return False
    rows, k, n = (c.extents[d] for d in (c.m, c.k, c.n))
    if rows is None or rows > FEW_ROWS or not all(map(_single_dims, c.index)):
        return False
    if k is None or n is None or k * n < MIN_WEIGHT:
        return False  # W in cache: the outer kernel's C in registers is as fast
    a_dims, b_dims = ({form[0][0] for form in forms} for forms in c.index[:2])
    if any(d in a_dims and d not in b_dims and c.extents[d] != 1 for d in c.outer):
        return False  # another row dim: W would stream once per trip of its loop
    if c.index[1][-1] != ((c.n, 1),) or c.index[2][-1] != ((c.n, 1),):
        return False
    # c.b, c.c: `types` follow the op's operands, which the match may have swapped
    strides = [ir.MemRefType(v.type).get_strides_and_offset()[0][-1] for v in (c.b, c.c)]
    return strides == [1, 1]


class RowStream(KernelEmitter):
    """C[m, n] += sum over k of A[m, k] * B[k, n], W's rows streamed in order."""

    def emit(self) -> None:
        self.b, self.b_index = self.c.b, self.c.index[1]
        self._outer_loops(list(self.c.outer), {})

    def _kernel(self, ivs):
        c = self.c
        rows = c.extents[c.m]
        ku = max(1, min(4, _BROADCASTS // rows))
        block = max(self.lanes, (C_BLOCK // (4 * rows)) // self.lanes * self.lanes)
        n = self.extent(c.n)
        nb = scf.ForOp(self.index(0), n, self.index(block))
        with ir.InsertionPoint(nb.body):
            lo = nb.induction_variable
            hi = arith.minsi(arith.addi(lo, self.index(block)), n)
            k_main, k_rest = self._k_main(ku)
            for start, stop, step in ((self.index(0), k_main, ku), (k_main, k_rest, 1)):
                k_loop = scf.ForOp(start, stop, self.index(step))
                with ir.InsertionPoint(k_loop.body):
                    self._rows_of_w(ivs, k_loop.induction_variable, step, lo, hi)
                    scf.YieldOp([])
            scf.YieldOp([])

    def _k_main(self, ku: int):
        """(end of the whole groups of ku rows of W, k): index values."""
        c = self.c
        static = c.extents[c.k]
        if static is not None:
            return self.index(static - static % ku), self.index(static)
        k = self.extent(c.k)
        main = arith.muli(
            arith.divui(k, self.index(ku), ip=self._top), self.index(ku), ip=self._top
        )
        return main, k

    def _rows_of_w(self, ivs, k, ku, lo, hi):
        """C[:, lo:hi] += x[:, k:k+ku] @ W[k:k+ku, lo:hi]: whole vectors, then one masked."""
        c = self.c
        rows = c.extents[c.m]
        ks = [k] + [arith.addi(k, self.index(u)) for u in range(1, ku)]
        x = [
            [
                vector.broadcast(
                    self.vector,
                    self._load_scalar(c.a, self._at(0, {**ivs, c.m: self.index(i), c.k: kk}, {})),
                )
                for kk in ks
            ]
            for i in range(rows)
        ]
        lanes = self.index(self.lanes)
        span = arith.subi(hi, lo)
        main = arith.addi(lo, arith.muli(arith.divui(span, lanes), lanes))
        j_loop = scf.ForOp(lo, main, lanes)
        with ir.InsertionPoint(j_loop.body):
            self._update(ivs, x, ks, j_loop.induction_variable, self.lanes)
            scf.YieldOp([])
        # a rest of 0 lanes loads and stores nothing (all lanes masked off)
        self._update(ivs, x, ks, main, arith.subi(hi, main))

    def _update(self, ivs, x, ks, j, width):
        c = self.c
        w = [
            self._load_lanes(self.b, self._at(1, {**ivs, c.k: kk, c.n: j}, {}), width) for kk in ks
        ]
        for i, xs in enumerate(x):
            at = self._at(2, {**ivs, c.m: self.index(i), c.n: j}, {})
            acc = self._load_lanes(c.c, at, width)
            for xu, wu in zip(xs, w):
                acc = vector.fma(xu, wu, acc)
            self._store_lanes(acc, c.c, at, width)


def row_stream_emitter(c: Contraction, types, blocks: Blocking) -> RowStream | None:
    """The row-streaming kernel for a decode step's `x @ W`, else None."""
    return RowStream(c, types, blocks) if fits(c, types) else None

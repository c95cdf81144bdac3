"""The dot kernel of `cpu-vectorize-contractions`, for A and B both contiguous along k (`a @ b.T`,
a linear layer's weight): a rows x cols block of C keeps one vector of partial sums per element
across k, reduced across lanes once at the end into C, so no operand is transposed in memory.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, vector

from .kernels import ONE_ROW, KernelEmitter


def _reassoc() -> ir.Attribute:
    # an unflagged reduction is a chain of 16 dependent adds; the tree is what eager does too
    return ir.Attribute.parse("#arith.fastmath<reassoc>")


def _add_kind() -> ir.Attribute:
    return ir.Attribute.parse("#vector.kind<add>")


class DotKernel(KernelEmitter):
    """C[m, n] += sum over k of A[m, k] * B[n, k], lanes along k."""

    def _kernel(self, ivs):
        c = self.c
        n0 = scf.ForOp(self.index(0), self.extent(c.n), self.index(self.blocks.dot_block_n))
        with ir.InsertionPoint(n0.body):
            for m_part in self._parts(c.m, self.blocks.dot_rows, ONE_ROW):
                for n_part in self._parts(c.n, self.blocks.dot_cols, ONE_ROW):
                    self._dot_tile(ivs, n0.induction_variable, m_part, n_part)
            scf.YieldOp([])

    def _k_split(self):
        """(end of the whole vectors of k, lanes left after it): ints, or runtime values."""
        c = self.c
        static = c.extents[c.k]
        if static is not None:
            return static - static % self.lanes, static % self.lanes
        k, lanes = self.extent(c.k), self.index(self.lanes)
        main = arith.muli(arith.divui(k, lanes, ip=self._top), lanes, ip=self._top)
        return main, arith.subi(k, main, ip=self._top)

    def _dot_tile(self, ivs, bn, m_part, n_part):
        c = self.c
        rows, cols = m_part[2], n_part[2]
        k_main, k_tail = self._k_split()
        m_loop = self._range_loop(*m_part)
        with ir.InsertionPoint(m_loop.body):
            n_loop = self._range_loop(*n_part, bn, self.blocks.dot_block_n)
            with ir.InsertionPoint(n_loop.body):
                at = {**ivs, c.m: m_loop.induction_variable, c.n: n_loop.induction_variable}
                accs = [self.zeros] * (rows * cols)
                if not isinstance(k_main, int) or k_main:
                    k_loop = scf.ForOp(self.index(0), self._v(k_main), self.index(self.lanes), accs)
                    with ir.InsertionPoint(k_loop.body):
                        at_k = {**at, c.k: k_loop.induction_variable}
                        scf.YieldOp(self._dot_step(at_k, k_loop.inner_iter_args, rows, cols))
                    accs = list(k_loop.results)
                if not isinstance(k_tail, int) or k_tail:
                    # a runtime tail of 0 lanes loads nothing (all lanes masked off)
                    at_k = {**at, c.k: self._v(k_main)}
                    accs = self._dot_step(at_k, accs, rows, cols, k_tail)
                for i in range(rows):
                    for j in range(cols):
                        indices = self._at(2, at, {c.m: i, c.n: j})
                        total = vector.reduction(
                            self.element,
                            _add_kind(),
                            accs[i * cols + j],
                            acc=self._load_scalar(c.c, indices),
                            fastmath=_reassoc(),
                        )
                        self._store_scalar(total, c.c, indices)
                scf.YieldOp([])
            scf.YieldOp([])

    def _dot_step(self, at_k, accs, rows, cols, width=None):
        c = self.c
        width = self.lanes if width is None else width
        a = [self._load_lanes(c.a, self._at(0, at_k, {c.m: i}), width) for i in range(rows)]
        b = [self._load_lanes(c.b, self._at(1, at_k, {c.n: j}), width) for j in range(cols)]
        return [
            vector.fma(a[i], b[j], accs[i * cols + j]) for i in range(rows) for j in range(cols)
        ]

"""The vector micro-kernels `cpu-vectorize-contractions` emits: loop nests of vector loads,
broadcasts, fmas and reductions for one matched `Contraction` (see `contractions`)."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

# Bytes in one vector register (AVX-512); lanes = VECTOR_BYTES / element size.
VECTOR_BYTES = 64
# Outer-product register block: rows x vectors of columns (8 x 2 x 16 f32 = 16 accumulators).
OUTER_ROWS, OUTER_VECTORS = 8, 2
# Cache blocks of the outer-product kernel: C rows, C columns, k.
BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 256
# Dot kernel: a DOT x DOT block of C; B rows per cache block.
DOT, DOT_BLOCK_N = 4, 64


def _reassoc() -> ir.Attribute:
    # an unflagged reduction is a chain of 16 dependent adds; the tree is what eager does too
    return ir.Attribute.parse("#arith.fastmath<reassoc>")


def _add_kind() -> ir.Attribute:
    return ir.Attribute.parse("#vector.kind<add>")


# A memref index as a sum of loop dims times constants: ((dim, coefficient), ...).
Form = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Contraction:
    """A matched op: its operands, loop extents, and which loop dim plays which role."""

    op: ir.Operation
    a: ir.Value  # read a scalar at a time by the outer kernel, lanes along k by the dot kernel
    b: ir.Value  # lanes along n (outer) or k (dot)
    c: ir.Value
    index: tuple[tuple[Form, ...], tuple[Form, ...], tuple[Form, ...]]  # of A, B, C
    extents: tuple[int, ...]
    kernel: str  # "outer" | "dot" | "packed" (the outer kernel on a copy of B as [k, n])
    outer: tuple[int, ...]  # loops around the kernel
    m: int
    n: int
    k: int


class Emitter:
    """Builds the loop nest of one contraction at the current insertion point."""

    def __init__(self, c: Contraction, types):
        self.c = c
        self.element = types[0].element_type
        self.lanes = VECTOR_BYTES // (4 if isinstance(self.element, ir.F32Type) else 8)
        self.vector = ir.VectorType.get([self.lanes], self.element)
        self.mask_type = ir.VectorType.get([self.lanes], ir.IntegerType.get_signless(1))
        self._consts: dict[int, ir.Value] = {}
        self.zero = arith.constant(self.element, 0.0)
        # constants go before the first op emitted, so they dominate every loop
        self._top = ir.InsertionPoint(self.zero.owner)
        self.zeros = arith.constant(
            self.vector,
            ir.DenseElementsAttr.get_splat(self.vector, ir.FloatAttr.get(self.element, 0.0)),
        )

    def _lane_offsets(self, stride: int) -> ir.Value:
        """[0, stride, 2 stride, ...]: where a gather's lanes are, from its base index."""
        t = ir.VectorType.get([self.lanes], ir.IntegerType.get_signless(32))
        values = [ir.IntegerAttr.get(t.element_type, i * stride) for i in range(self.lanes)]
        return arith.constant(t, ir.DenseElementsAttr.get(values, type=t), ip=self._top)

    def index(self, value: int) -> ir.Value:
        if value not in self._consts:
            self._consts[value] = arith.constant(ir.IndexType.get(), value, ip=self._top)
        return self._consts[value]

    def emit(self) -> None:
        self.b, self.b_index = self.c.b, self.c.index[1]
        if self.c.kernel == "packed":
            # B^T, reused by every trip of the loops around the kernel
            shape = [self.c.extents[self.c.k], self.c.extents[self.c.n]]
            packed = memref.alloc(ir.MemRefType.get(shape, self.element), [], [])
            self._outer_loops(list(self.c.outer), {}, packed)
            memref.dealloc(packed)
        else:
            self._outer_loops(list(self.c.outer), {})

    def _outer_loops(self, dims, ivs, packed=None):
        if not dims:
            if packed is not None:
                self._pack(ivs, packed)
            (self._dot if self.c.kernel == "dot" else self._outer)(ivs)
            return
        d = dims[0]
        loop = scf.ForOp(self.index(0), self.index(self.c.extents[d]), self.index(1))
        with ir.InsertionPoint(loop.body):
            self._outer_loops(dims[1:], {**ivs, d: loop.induction_variable}, packed)
            scf.YieldOp([])

    def _pack(self, ivs, packed):
        """Copies B (lanes along k) to `packed` as [k, n] (lanes along n) for the outer kernel:
        worth it when k is too short to amortize the dot kernel's final reductions."""
        c = self.c
        self.b, self.b_index = c.b, c.index[1]
        k_loop = scf.ForOp(self.index(0), self.index(c.extents[c.k]), self.index(1))
        with ir.InsertionPoint(k_loop.body):
            n_loop = scf.ForOp(self.index(0), self.index(c.extents[c.n]), self.index(1))
            with ir.InsertionPoint(n_loop.body):
                at = {**ivs, c.n: n_loop.induction_variable, c.k: k_loop.induction_variable}
                value = memref.load(c.b, self._at(1, at, {}))
                memref.store(value, packed, [k_loop.induction_variable, n_loop.induction_variable])
                scf.YieldOp([])
            scf.YieldOp([])
        self.b, self.b_index = packed, (((c.k, 1),), ((c.n, 1),))

    # -- indexing ---------------------------------------------------------------------------
    def _at(self, which: int, ivs: dict, offsets: dict) -> list[ir.Value]:
        """The memref indices of operand `which` (0 A, 1 B, 2 C) at loop dims `ivs` + static
        `offsets`."""
        out = []
        for form in self.b_index if which == 1 else self.c.index[which]:
            total = None
            for d, coefficient in form:
                v = ivs[d]
                if offsets.get(d):
                    v = arith.addi(v, self.index(offsets[d]))
                if coefficient != 1:
                    v = arith.muli(v, self.index(coefficient))
                total = v if total is None else arith.addi(total, v)
            out.append(total)
        return out

    def _load_lanes(self, base, indices, width, stride=1):
        if stride != 1:
            mask = vector.constant_mask(self.mask_type, [width])
            return vector.gather(
                self.vector, base, indices, self._lane_offsets(stride), mask, self.zeros
            )
        if width == self.lanes:
            return vector.load(self.vector, base, indices)
        mask = vector.constant_mask(self.mask_type, [width])
        return vector.maskedload(self.vector, base, indices, mask, self.zeros)

    def _store_lanes(self, value, base, indices, width):
        if width == self.lanes:
            vector.store(value, base, indices)
        else:
            vector.maskedstore(base, indices, vector.constant_mask(self.mask_type, [width]), value)

    @staticmethod
    def _split(extent: int, block: int) -> list[tuple[int, int, int]]:
        """(lo, hi, block) ranges: the largest multiple of `block`, then the rest as one."""
        main = extent - extent % block
        out = [(0, main, block)] if main else []
        if extent % block:
            out.append((main, extent, extent % block))
        return out

    def _range_loop(self, lo, hi, step, block_lo=None, block=None):
        """`for i = max(lo, block_lo) to min(hi, block_lo + block) step step`, or lo..hi."""
        if block_lo is None:
            return scf.ForOp(self.index(lo), self.index(hi), self.index(step))
        start = arith.maxsi(block_lo, self.index(lo))
        stop = arith.minsi(arith.addi(block_lo, self.index(block)), self.index(hi))
        return scf.ForOp(start, stop, self.index(step))

    # -- outer-product kernel ---------------------------------------------------------------
    def _outer(self, ivs):
        c = self.c
        M, N, K = c.extents[c.m], c.extents[c.n], c.extents[c.k]
        m_parts = self._split(M, OUTER_ROWS)
        n_parts = self._split(N, OUTER_VECTORS * self.lanes)
        m0 = scf.ForOp(self.index(0), self.index(M), self.index(BLOCK_M))
        with ir.InsertionPoint(m0.body):
            n0 = scf.ForOp(self.index(0), self.index(N), self.index(BLOCK_N))
            with ir.InsertionPoint(n0.body):
                k0 = scf.ForOp(self.index(0), self.index(K), self.index(BLOCK_K))
                with ir.InsertionPoint(k0.body):
                    blocks = (m0.induction_variable, n0.induction_variable, k0.induction_variable)
                    for m_lo, m_hi, rows in m_parts:
                        for n_lo, n_hi, cols in n_parts:
                            self._outer_tile(ivs, blocks, (m_lo, m_hi, rows), (n_lo, n_hi, cols))
                    scf.YieldOp([])
                scf.YieldOp([])
            scf.YieldOp([])

    def _outer_tile(self, ivs, blocks, m_part, n_part):
        c = self.c
        bm, bn, bk = blocks
        rows, cols = m_part[2], n_part[2]
        widths = [min(self.lanes, cols - j) for j in range(0, cols, self.lanes)]
        m_loop = self._range_loop(*m_part, bm, BLOCK_M)
        with ir.InsertionPoint(m_loop.body):
            n_loop = self._range_loop(*n_part, bn, BLOCK_N)
            with ir.InsertionPoint(n_loop.body):
                at = {**ivs, c.m: m_loop.induction_variable, c.n: n_loop.induction_variable}
                accs = [
                    self._load_lanes(c.c, self._at(2, at, {c.m: i, c.n: j * self.lanes}), w)
                    for i in range(rows)
                    for j, w in enumerate(widths)
                ]
                k_loop = scf.ForOp(
                    bk,
                    arith.minsi(arith.addi(bk, self.index(BLOCK_K)), self.index(c.extents[c.k])),
                    self.index(1),
                    accs,
                )
                with ir.InsertionPoint(k_loop.body):
                    at_k = {**at, c.k: k_loop.induction_variable}
                    stride = lane_stride(self.b_index, c.n)
                    bs = [
                        self._load_lanes(
                            self.b, self._at(1, at_k, {c.n: j * self.lanes}), w, stride
                        )
                        for j, w in enumerate(widths)
                    ]
                    out = []
                    for i in range(rows):
                        a = memref.load(c.a, self._at(0, at_k, {c.m: i}))
                        a = vector.broadcast(self.vector, a)
                        for j in range(len(widths)):
                            acc = k_loop.inner_iter_args[i * len(widths) + j]
                            out.append(vector.fma(a, bs[j], acc))
                    scf.YieldOp(out)
                for i in range(rows):
                    for j, w in enumerate(widths):
                        indices = self._at(2, at, {c.m: i, c.n: j * self.lanes})
                        self._store_lanes(k_loop.results[i * len(widths) + j], c.c, indices, w)
                scf.YieldOp([])
            scf.YieldOp([])

    # -- dot kernel ---------------------------------------------------------------------------
    def _dot(self, ivs):
        c = self.c
        N = c.extents[c.n]
        n0 = scf.ForOp(self.index(0), self.index(N), self.index(DOT_BLOCK_N))
        with ir.InsertionPoint(n0.body):
            for m_part in self._split(c.extents[c.m], DOT):
                for n_part in self._split(N, DOT):
                    self._dot_tile(ivs, n0.induction_variable, m_part, n_part)
            scf.YieldOp([])

    def _dot_tile(self, ivs, bn, m_part, n_part):
        c = self.c
        rows, cols = m_part[2], n_part[2]
        K = c.extents[c.k]
        k_main = K - K % self.lanes
        m_loop = self._range_loop(*m_part)
        with ir.InsertionPoint(m_loop.body):
            n_loop = self._range_loop(*n_part, bn, DOT_BLOCK_N)
            with ir.InsertionPoint(n_loop.body):
                at = {**ivs, c.m: m_loop.induction_variable, c.n: n_loop.induction_variable}
                accs = [self.zeros] * (rows * cols)
                if k_main:
                    k_loop = scf.ForOp(
                        self.index(0), self.index(k_main), self.index(self.lanes), accs
                    )
                    with ir.InsertionPoint(k_loop.body):
                        at_k = {**at, c.k: k_loop.induction_variable}
                        scf.YieldOp(self._dot_step(at_k, k_loop.inner_iter_args, rows, cols))
                    accs = list(k_loop.results)
                if K % self.lanes:
                    at_k = {**at, c.k: self.index(k_main)}
                    accs = self._dot_step(at_k, accs, rows, cols, K % self.lanes)
                for i in range(rows):
                    for j in range(cols):
                        indices = self._at(2, at, {c.m: i, c.n: j})
                        old = memref.load(c.c, indices)
                        total = vector.reduction(
                            self.element,
                            _add_kind(),
                            accs[i * cols + j],
                            acc=old,
                            fastmath=_reassoc(),
                        )
                        memref.store(total, c.c, indices)
                scf.YieldOp([])
            scf.YieldOp([])

    def _dot_step(self, at_k, accs, rows, cols, width=None):
        c = self.c
        width = width or self.lanes
        a = [self._load_lanes(c.a, self._at(0, at_k, {c.m: i}), width) for i in range(rows)]
        b = [self._load_lanes(c.b, self._at(1, at_k, {c.n: j}), width) for j in range(cols)]
        return [
            vector.fma(a[i], b[j], accs[i * cols + j]) for i in range(rows) for j in range(cols)
        ]


def lane_stride(forms, d: int) -> int:
    """The coefficient of `d` in the last index (0 when it is not there)."""
    return dict(forms[-1]).get(d, 0)

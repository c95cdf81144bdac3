"""The vector micro-kernels `cpu-vectorize-contractions` emits: loop nests of vector loads,
broadcasts, fmas and reductions for one matched `Contraction` (see `contractions`).

Extents may be dynamic (`?` dims): their trip counts are `memref.dim`s read once before the
nest. A static range the register block does not divide ends in the same kernel with a smaller
static block; a dynamic one ends in rows (or dot-kernel columns) one at a time, and columns of
lanes (or a k tail) masked by `vector.create_mask` of what is left, so no size reads or writes
out of bounds. Narrow inputs (bf16/f16 A and B, the f32 accumulator C of our lowering) are
loaded narrow and widened with `arith.extf`: the fmas and C run in f32.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector


@dataclass(frozen=True)
class Blocking:
    """Register and cache blocks for one vector width. Each cache block is a multiple of its
    register block, so a tile never straddles two cache blocks."""

    vector_bytes: int  # one vector register; lanes = vector_bytes / accumulator element size
    outer_rows: int  # outer-product register block: rows x vectors of columns
    outer_vectors: int
    dot_rows: int  # dot kernel: a rows x cols block of C, one vector of partial sums each
    dot_cols: int
    block_m: int = 48  # outer kernel's cache blocks: C rows, C columns, k
    block_n: int = 128
    block_k: int = 256
    dot_block_n: int = 64  # dot kernel: B rows per cache block


# AVX-512, 32 zmm: 8 x 2 x 16 f32 = 16 accumulators, 2 of B, 1 broadcast of A
AVX512 = Blocking(64, 8, 2, 4, 4, block_m=64)
# AVX2 (and narrower), 16 ymm: 6 x 2 accumulators + 2 of B + 1 broadcast; dot 2 x 4 + 2 + 4
AVX2 = Blocking(32, 6, 2, 2, 4, block_m=48)


def blocking_for(vector_bytes: int) -> Blocking:
    return AVX512 if vector_bytes >= 64 else dataclasses.replace(AVX2, vector_bytes=vector_bytes)


# A dynamic range's remainder: one row a step, or one vector of lanes a step, masked.
ONE_ROW, MASKED = 1, 0


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
    extents: tuple[int | None, ...]  # None: dynamic, read from `sizes`
    kernel: str  # "outer" | "dot" | "packed" (the outer kernel on a copy of B as [k, n])
    outer: tuple[int, ...]  # loops around the kernel
    m: int
    n: int
    k: int
    # per dim, a (memref, axis) whose size is its extent (read for the dynamic ones)
    sizes: tuple[tuple[ir.Value, int], ...] = ()


def accumulator_type(element: ir.Type) -> ir.Type:
    """The type the fmas run in: f32 or f64 as they are, f32 for bf16/f16."""
    return element if isinstance(element, (ir.F32Type, ir.F64Type)) else ir.F32Type.get()


class Emitter:
    """Builds the loop nest of one contraction at the current insertion point."""

    def __init__(self, c: Contraction, types, blocking: Blocking = AVX512):
        self.c = c
        self.blocks = blocking
        self.element = accumulator_type(types[2].element_type)
        self.lanes = blocking.vector_bytes // (4 if isinstance(self.element, ir.F32Type) else 8)
        self.vector = ir.VectorType.get([self.lanes], self.element)
        self.mask_type = ir.VectorType.get([self.lanes], ir.IntegerType.get_signless(1))
        self._consts: dict[int, ir.Value] = {}
        self._extents: dict[int, ir.Value] = {}
        self._zeros: dict[str, ir.Value] = {}
        anchor = arith.constant(self.element, 0.0)
        # constants and memref.dims go before the first op emitted, so they dominate every loop
        self._top = ir.InsertionPoint(anchor.owner)
        self.zeros = self._zeros_of(self.element)

    def _zeros_of(self, element: ir.Type) -> ir.Value:
        key = str(element)
        if key not in self._zeros:
            t = ir.VectorType.get([self.lanes], element)
            splat = ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(element, 0.0))
            self._zeros[key] = arith.constant(t, splat, ip=self._top)
        return self._zeros[key]

    def _lane_offsets(self, stride: int) -> ir.Value:
        """[0, stride, 2 stride, ...]: where a gather's lanes are, from its base index."""
        t = ir.VectorType.get([self.lanes], ir.IntegerType.get_signless(32))
        values = [ir.IntegerAttr.get(t.element_type, i * stride) for i in range(self.lanes)]
        return arith.constant(t, ir.DenseElementsAttr.get(values, type=t), ip=self._top)

    def index(self, value: int) -> ir.Value:
        if value not in self._consts:
            self._consts[value] = arith.constant(ir.IndexType.get(), value, ip=self._top)
        return self._consts[value]

    def _v(self, x: int | ir.Value) -> ir.Value:
        return self.index(x) if isinstance(x, int) else x

    def extent(self, d: int) -> ir.Value:
        """The trip count of dim `d`: a constant, or its memref's size read once at the top."""
        static = self.c.extents[d]
        if static is not None:
            return self.index(static)
        if d not in self._extents:
            base, axis = self.c.sizes[d]
            self._extents[d] = memref.dim(base, self.index(axis), ip=self._top)
        return self._extents[d]

    def _parts(self, d: int, block: int, tail: int) -> list[tuple]:
        """(lo, hi, step) ranges of dim `d`: whole blocks, then the rest. Static: the rest as one
        smaller block. Dynamic: `tail` (ONE_ROW, or MASKED: a vector of lanes a step)."""
        static = self.c.extents[d]
        if static is not None:
            main = static - static % block
            out = [(0, main, block)] if main else []
            return out + ([(main, static, static % block)] if static % block else [])
        extent = self.extent(d)
        main = arith.muli(
            arith.divui(extent, self.index(block), ip=self._top), self.index(block), ip=self._top
        )
        return [(0, main, block), (main, extent, tail)]

    def emit(self) -> None:
        self.b, self.b_index = self.c.b, self.c.index[1]
        if self.c.kernel == "packed":
            # B^T, reused by every trip of the loops around the kernel
            c = self.c
            shape = [c.extents[c.k], c.extents[c.n]]
            dynamic = [self.extent(d) for d, s in zip((c.k, c.n), shape) if s is None]
            shape = [ir.ShapedType.get_dynamic_size() if s is None else s for s in shape]
            packed = memref.alloc(ir.MemRefType.get(shape, self.element), dynamic, [])
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
        loop = scf.ForOp(self.index(0), self.extent(d), self.index(1))
        with ir.InsertionPoint(loop.body):
            self._outer_loops(dims[1:], {**ivs, d: loop.induction_variable}, packed)
            scf.YieldOp([])

    def _pack(self, ivs, packed):
        """Copies B (lanes along k) to `packed` as [k, n] (lanes along n) for the outer kernel:
        worth it when k is too short to amortize the dot kernel's final reductions."""
        c = self.c
        self.b, self.b_index = c.b, c.index[1]
        k_loop = scf.ForOp(self.index(0), self.extent(c.k), self.index(1))
        with ir.InsertionPoint(k_loop.body):
            n_loop = scf.ForOp(self.index(0), self.extent(c.n), self.index(1))
            with ir.InsertionPoint(n_loop.body):
                at = {**ivs, c.n: n_loop.induction_variable, c.k: k_loop.induction_variable}
                value = self._load_scalar(c.b, self._at(1, at, {}))
                memref.store(value, packed, [k_loop.induction_variable, n_loop.induction_variable])
                scf.YieldOp([])
            scf.YieldOp([])
        self.b, self.b_index = packed, (((c.k, 1),), ((c.n, 1),))

    # -- indexing, loads and stores ---------------------------------------------------------
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

    def _mask(self, width: int | ir.Value) -> ir.Value:
        if isinstance(width, int):
            return vector.constant_mask(self.mask_type, [width])
        return vector.create_mask(self.mask_type, [width])  # lanes past `width`: off

    def _load_scalar(self, base, indices) -> ir.Value:
        value = memref.load(base, indices)
        return value if value.type == self.element else arith.extf(self.element, value)

    def _store_scalar(self, value, base, indices) -> None:
        element = ir.MemRefType(base.type).element_type
        memref.store(
            value if element == self.element else arith.truncf(element, value), base, indices
        )

    def _load_lanes(self, base, indices, width, stride=1):
        """`width` lanes (an int, or a runtime count) from `indices` on, widened to f32."""
        element = ir.MemRefType(base.type).element_type
        t = ir.VectorType.get([self.lanes], element)
        if stride != 1:
            value = vector.gather(
                t,
                base,
                indices,
                self._lane_offsets(stride),
                self._mask(width),
                self._zeros_of(element),
            )
        elif isinstance(width, int) and width == self.lanes:
            value = vector.load(t, base, indices)
        else:
            value = vector.maskedload(t, base, indices, self._mask(width), self._zeros_of(element))
        return value if element == self.element else arith.extf(self.vector, value)

    def _store_lanes(self, value, base, indices, width):
        element = ir.MemRefType(base.type).element_type
        if element != self.element:
            value = arith.truncf(ir.VectorType.get([self.lanes], element), value)
        if isinstance(width, int) and width == self.lanes:
            vector.store(value, base, indices)
        else:
            vector.maskedstore(base, indices, self._mask(width), value)

    def _range_loop(self, lo, hi, step, block_lo=None, block=None):
        """`for i = max(lo, block_lo) to min(hi, block_lo + block) step step`, or lo..hi."""
        if block_lo is None:
            return scf.ForOp(self._v(lo), self._v(hi), self.index(step))
        start = arith.maxsi(block_lo, self._v(lo))
        stop = arith.minsi(arith.addi(block_lo, self.index(block)), self._v(hi))
        return scf.ForOp(start, stop, self.index(step))

    # -- outer-product kernel ---------------------------------------------------------------
    def _outer(self, ivs):
        c = self.c
        m_parts = self._parts(c.m, self.blocks.outer_rows, ONE_ROW)
        n_parts = self._parts(c.n, self.blocks.outer_vectors * self.lanes, MASKED)
        m0 = scf.ForOp(self.index(0), self.extent(c.m), self.index(self.blocks.block_m))
        with ir.InsertionPoint(m0.body):
            n0 = scf.ForOp(self.index(0), self.extent(c.n), self.index(self.blocks.block_n))
            with ir.InsertionPoint(n0.body):
                k0 = scf.ForOp(self.index(0), self.extent(c.k), self.index(self.blocks.block_k))
                with ir.InsertionPoint(k0.body):
                    blocks = (m0.induction_variable, n0.induction_variable, k0.induction_variable)
                    for m_part in m_parts:
                        for n_part in n_parts:
                            self._outer_tile(ivs, blocks, m_part, n_part)
                    scf.YieldOp([])
                scf.YieldOp([])
            scf.YieldOp([])

    def _outer_tile(self, ivs, blocks, m_part, n_part):
        c = self.c
        bm, bn, bk = blocks
        rows, cols = m_part[2], n_part[2]
        if cols == MASKED:
            n_part = (n_part[0], n_part[1], self.lanes)
        m_loop = self._range_loop(*m_part, bm, self.blocks.block_m)
        with ir.InsertionPoint(m_loop.body):
            n_loop = self._range_loop(*n_part, bn, self.blocks.block_n)
            with ir.InsertionPoint(n_loop.body):
                if cols == MASKED:  # what is left of the row, past the last whole block
                    widths = [arith.subi(self._v(n_part[1]), n_loop.induction_variable)]
                else:
                    widths = [min(self.lanes, cols - j) for j in range(0, cols, self.lanes)]
                at = {**ivs, c.m: m_loop.induction_variable, c.n: n_loop.induction_variable}
                accs = [
                    self._load_lanes(c.c, self._at(2, at, {c.m: i, c.n: j * self.lanes}), w)
                    for i in range(rows)
                    for j, w in enumerate(widths)
                ]
                k_stop = arith.minsi(
                    arith.addi(bk, self.index(self.blocks.block_k)), self.extent(c.k)
                )
                k_loop = scf.ForOp(bk, k_stop, self.index(1), accs)
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
                        a = self._load_scalar(c.a, self._at(0, at_k, {c.m: i}))
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


def lane_stride(forms, d: int) -> int:
    """The coefficient of `d` in the last index (0 when it is not there)."""
    return dict(forms[-1]).get(d, 0)

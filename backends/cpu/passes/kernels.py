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

from aten_mlir.passes.ir.memory import touches_no_memory

# Stride-2 lanes as two loads and an even-lane shuffle rather than a gather (module switch
# for A/B timing, as im2col_windows.TRANSPOSED_COLS)
EVEN_LANES = True


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
    panel_m: int = 120  # C rows per block when B is copied as panels (the A block in L2)
    dot_block_n: int = 64  # dot kernel: B rows per cache block


# AVX-512, 32 zmm: 8 x 2 x 16 f32 = 16 accumulators, 2 of B, 1 broadcast of A. 256 rows a panel
# block (A's block 256 KB, in a 2 MB L2): B copied half as often as with 128 rows, 2-7% faster
# on mm 512^3 / 1024^3, q @ k.T S=384 and the im2col conv 256ch 14x14 (1 thread, same process).
# 512 columns a block of B (512 KB): each row of the block copied is 2 KB contiguous, not 512 B
# on a page of its own: mm 512^3 / 1024^3 +6%, q @ k.T S=384 +5-10%, mm 2048^3 -2..4%
# Dot kernel 8 x 2 (16 accumulators, 8 rows of A + 2 of B a k step): B's block is read from L2
# once per 8 rows of A, not 4; with its next block prefetched (dot_kernel) x @ W.T at 1 thread,
# same process, % of FMA peak, 4 x 4 -> 8 x 2: [64,1024] @ [1024,1024].T 69.2 -> 72.6,
# [128,768] @ [768,768].T 74.0 -> 77.3, [128,768] @ [3072,768].T 71.2 -> 73.5, GPT-2's logits
# [64,768] @ [50257,768].T 68.4 -> 70.4, [33,1024] @ [1024,1024].T 63.3 -> 67.8
AVX512 = Blocking(64, 8, 2, 8, 2, block_m=64, block_n=512, panel_m=256)
# AVX2 (and narrower), 16 ymm: 6 x 2 accumulators + 2 of B + 1 broadcast; dot 2 x 4 + 2 + 4
AVX2 = Blocking(32, 6, 2, 2, 4, block_m=48)


def blocking_for(vector_bytes: int) -> Blocking:
    return AVX512 if vector_bytes >= 64 else dataclasses.replace(AVX2, vector_bytes=vector_bytes)


# A dynamic range's remainder: one row a step, or one vector of lanes a step, masked.
ONE_ROW, MASKED = 1, 0


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


def zero_fill_before(c: Contraction) -> ir.Operation | None:
    """The `linalg.fill` of +0.0 into exactly C (the op's output) before the contraction, with
    only ops that write no memory between them (a write through a view of C would not name C),
    or None. +0.0 only: a sum started from +0.0 is what the fill and then the kernel give."""
    found = None
    for op in c.op.block.operations:
        op = op.operation
        if op == c.op:
            return found
        if op.name == "linalg.fill" and op.operands[1] == c.op.operands[2]:
            found = op if _is_plus_zero(op.operands[0]) else None
        elif not touches_no_memory(op):
            found = None
    return None


def fill_only_if_k_empty(fill: ir.Operation, c: Contraction) -> None:
    """For a kernel whose first k block writes every element of C from zeros (its zero fill
    folded in) when k is `?`: the fill moves to just before the product, under `scf.if (k ==
    0)`, the one case where no k block runs. A `?` k otherwise kept the fill, a whole pass over
    C (attention's `p @ v`, k the `?` sequence: dyn_attention b2 s33 wrote its output twice)."""
    base, axis = c.sizes[c.k]
    with ir.InsertionPoint(c.op):
        index = ir.IndexType.get()
        k = memref.dim(base, arith.constant(index, axis))
        empty = arith.cmpi(arith.CmpIPredicate.eq, k, arith.constant(index, 0))
        branch = scf.IfOp(empty)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([])
    fill.move_before(branch.then_block.operations[0])


def _is_plus_zero(v: ir.Value) -> bool:
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    value = owner.attributes["value"]
    return isinstance(value, ir.FloatAttr) and str(value)[0] != "-" and value.value == 0.0


def accumulator_type(element: ir.Type) -> ir.Type:
    """The type the fmas run in: f32 or f64 as they are, f32 for bf16/f16."""
    return element if isinstance(element, (ir.F32Type, ir.F64Type)) else ir.F32Type.get()


class TripCounts:
    """Index constants and trip counts of one contraction, emitted once at the top of what is
    built (before the first op, so they dominate every loop): the FMA and AMX kernels' base."""

    def __init__(self, c: Contraction, anchor: ir.Value):
        self.c = c
        self._consts: dict[int, ir.Value] = {}
        self._extents: dict[int, ir.Value] = {}
        self._top = ir.InsertionPoint(anchor.owner)

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


class KernelEmitter(TripCounts):
    """What every micro-kernel builds with: constants, trip counts, ranges, indices, loads and
    stores (widened from narrow types), and the loops around the kernel. A kernel subclass
    defines `_kernel(ivs)`."""

    def __init__(self, c: Contraction, types, blocking: Blocking = AVX512):
        self.blocks = blocking
        self.element = accumulator_type(types[2].element_type)
        self.lanes = blocking.vector_bytes // (4 if isinstance(self.element, ir.F32Type) else 8)
        self.vector = ir.VectorType.get([self.lanes], self.element)
        self.mask_type = ir.VectorType.get([self.lanes], ir.IntegerType.get_signless(1))
        self._zeros: dict[str, ir.Value] = {}
        # C is all zeros before the kernel (its fill folded in): the first k block starts from
        # zeros instead of loading C
        self.c_starts_zero = False
        super().__init__(c, arith.constant(self.element, 0.0))
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
        if self.c.kernel == "packed" and self._copies_b_t():
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

    def _copies_b_t(self) -> bool:
        """A `packed` kernel first copies B^T whole (per trip of the outer loops) as [k, n]."""
        return True

    def _outer_loops(self, dims, ivs, packed=None):
        if not dims:
            if packed is not None:
                self._pack(ivs, packed)
            self._kernel(ivs)
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
        if stride == 2 and EVEN_LANES and isinstance(width, int) and _unit_last_stride(base):
            value = self._load_even_lanes(t, base, indices, width)
        elif stride != 1:
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

    def _load_even_lanes(self, t, base, indices, width: int) -> ir.Value:
        """Lanes 0, 2, 4... of the 2 * width - 1 elements from `indices` on: two contiguous
        (masked) loads and one even-lane shuffle (vpermt2ps), not a gather, which on znver5
        takes about a cycle a lane (a stride-2 conv's image row: the 7x7 stem of dyn_convnet
        spent 19% of b33 in its gathers). The masks read exactly the gather's span."""
        span = 2 * width - 1
        halves = []
        for h in range(2):
            count = min(self.lanes, max(span - h * self.lanes, 0))
            at = list(indices)
            if h:
                at[-1] = arith.addi(at[-1], self.index(self.lanes))
            if count == self.lanes:
                halves.append(vector.load(t, base, at))
            elif count:
                halves.append(
                    vector.maskedload(
                        t, base, at, self._mask(count), self._zeros_of(t.element_type)
                    )
                )
            else:
                halves.append(self._zeros_of(t.element_type))
        return vector.shuffle(halves[0], halves[1], list(range(0, 2 * self.lanes, 2)))

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


def _unit_last_stride(base: ir.Value) -> bool:
    """Whether `base`'s last dim is contiguous (a vector.load's contract)."""
    strides, _ = ir.MemRefType(base.type).get_strides_and_offset()
    return strides[-1] == 1


def lane_stride(forms, d: int) -> int:
    """The coefficient of `d` in the last index (0 when it is not there)."""
    return dict(forms[-1]).get(d, 0)

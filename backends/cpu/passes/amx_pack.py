"""The copies the AMX kernel (`amx`) makes of its operands: tiles laid out one after another.

A tile load reads 16 rows of 64 bytes; rows a row-major matrix's width apart fall in the same
few L1 sets (a 1024-wide bf16 operand: 2 KiB apart), so both copies are blocked, each tile's
1 KiB contiguous:
- row operand `R[r, k]` -> `rows[r / 16][k / 32][r % 16][k % 32]`;
- VNNI operand `V[k, j]` -> `vnni[j / 16][k / 32][k % 32 / 2][2 (j % 16) + k % 2]` (pairs of
  k side by side, what `tdpbf16ps` takes as its second input).
Both are zero past the operand's extents, so padded tiles add nothing. A VNNI operand
contiguous along j is copied 16 columns at a time (`vector.interleave` of two rows of k); one
contiguous along k (a Linear's input) as 16 x 16 blocks of pairs of k, transposed in registers;
anything else element by element.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, memref, scf, vector

from .kernels import Contraction, TripCounts

# one tile: 16 rows of 64 bytes (32 bf16, or 16 f32)
ROWS, DEPTH = 16, 32
# columns of a `[k, j]` operand copied per pass down k, a strip per thread at a time (the
# copy's speed at 1 thread measured the same from 32 columns to the whole width)
VNNI_STRIP = 256


class TileOperands(TripCounts):
    """Index arithmetic on one contraction and the copies of its operands into tiles."""

    def __init__(self, c: Contraction):
        super().__init__(c, arith.constant(ir.IndexType.get(), 0))
        self.bf16 = ir.BF16Type.get()
        self.f32 = ir.F32Type.get()
        # the first k tile of the current head in the copies' buffers (an outer reduction dim
        # folded into k: each head's k tiles follow the previous head's), None: one head
        self.k_tile_base = None

    def k_tile(self, k: ir.Value) -> ir.Value:
        """The buffer's k tile holding k (of the current head)."""
        tile = arith.divui(k, self.index(DEPTH))
        return tile if self.k_tile_base is None else arith.addi(tile, self.k_tile_base)

    def count(self, d: int, to: int) -> int | ir.Value:
        """How many blocks of `to` cover dim `d`."""
        static = self.c.extents[d]
        if static is not None:
            return -(-static // to)
        up = arith.addi(self.extent(d), self.index(to - 1), ip=self._top)
        return arith.divui(up, self.index(to), ip=self._top)

    def padded(self, d: int, to: int) -> int | ir.Value:
        """The extent of dim `d` rounded up to a multiple of `to`."""
        blocks = self.count(d, to)
        if isinstance(blocks, int):
            return blocks * to
        return arith.muli(blocks, self.index(to), ip=self._top)

    def at(self, which: int, ivs: dict) -> list[ir.Value]:
        """The memref indices of operand `which` (0 A, 1 B, 2 C) at loop dims `ivs`."""
        out = []
        for form in self.c.index[which]:
            total = None
            for d, coefficient in form:
                v = ivs[d]
                if coefficient != 1:
                    v = arith.muli(v, self.index(coefficient))
                total = v if total is None else arith.addi(total, v)
            out.append(total)
        return out

    def operand(self, which: int) -> ir.Value:
        return self.c.a if which == 0 else self.c.b

    def loop(self, lo, hi, step=1):
        return scf.ForOp(self._v(lo), self._v(hi), self.index(step))

    def tiles_buffer(self, free: int, to: int, heads: int | None = None) -> ir.Value:
        """[free / 16][k / 32][16][32] bf16, for the operand whose other dim is `free` (padded
        to a multiple of `to`); `heads`: a folded outer reduction dim, its k tiles times its
        extent."""
        blocks = self.count(free, to)
        if isinstance(blocks, int):
            blocks *= to // ROWS
        else:
            blocks = arith.muli(blocks, self.index(to // ROWS), ip=self._top)
        k_tiles = self.count(self.c.k, DEPTH)
        if heads is not None:
            k_tiles = self._times(k_tiles, heads)
        shape = [blocks, k_tiles, ROWS, DEPTH]
        static = [s if isinstance(s, int) else ir.ShapedType.get_dynamic_size() for s in shape]
        dynamic = [s for s in shape if not isinstance(s, int)]
        return memref.alloc(ir.MemRefType.get(static, self.bf16), dynamic, [])

    def _times(self, tiles: int | ir.Value, d: int) -> int | ir.Value:
        e = self.c.extents[d]
        if isinstance(tiles, int) and e is not None:
            return tiles * e
        return arith.muli(self._v(tiles), self.extent(d), ip=self._top)

    def _pads(self, free: int, to: int) -> bool:
        """The copy has zeros past the operand: `free` or k not whole blocks, or dynamic."""
        for d, block in ((free, to), (self.c.k, DEPTH)):
            e = self.c.extents[d]
            if e is None or e % block:
                return True
        return False

    def _fill_zero(self, buffer) -> None:
        linalg.fill(arith.constant(self.bf16, 0.0), outs=[buffer])

    def _split(self, x: ir.Value, by: int) -> tuple[ir.Value, ir.Value]:
        return arith.divui(x, self.index(by)), arith.remui(x, self.index(by))

    def pack_rows(self, ivs, which: int, free: int, buffer, to: int, fill=True) -> None:
        """rows[r / 16][k / 32][r % 16][k % 32] = operand `which` at (r, k)."""
        if fill and self._pads(free, to):
            self._fill_zero(buffer)
        if self._contiguous_along(which, self.c.k, free):
            return self._pack_rows_by_vectors(ivs, which, free, buffer)
        r_loop = self.loop(0, self.extent(free))
        with ir.InsertionPoint(r_loop.body):
            k_loop = self.loop(0, self.extent(self.c.k))
            with ir.InsertionPoint(k_loop.body):
                r, k = r_loop.induction_variable, k_loop.induction_variable
                at = self.at(which, {**ivs, free: r, self.c.k: k})
                value = memref.load(self.operand(which), at)
                r_tile, r_in = self._split(r, ROWS)
                k_in = arith.remui(k, self.index(DEPTH))
                memref.store(value, buffer, [r_tile, self.k_tile(k), r_in, k_in])
                scf.YieldOp([])
            scf.YieldOp([])

    def _contiguous_along(self, which: int, last: int, other: int) -> bool:
        """Operand `which` is `[.., other, .., last]` with unit stride along `last` (`other`
        anywhere before it: attention's q and k are `[b, s, h, d]` views of the QKV
        projection, s before the heads)."""
        forms = self.c.index[which]
        strides, _ = ir.MemRefType(self.operand(which).type).get_strides_and_offset()
        return (
            len(forms) >= 2
            and forms[-1] == ((last, 1),)
            and ((other, 1),) in forms[:-1]
            and strides[-1] == 1
        )

    def _pack_rows_by_vectors(self, ivs, which: int, free: int, buffer) -> None:
        """A tile row (32 of k) a step, masked past k's extent (the masked lanes read as 0)."""
        row = ir.VectorType.get([DEPTH], self.bf16)
        mask_type = ir.VectorType.get([DEPTH], ir.IntegerType.get_signless(1))
        zeros = arith.constant(
            row, ir.DenseElementsAttr.get_splat(row, ir.FloatAttr.get(self.bf16, 0.0))
        )
        k_extent = self.extent(self.c.k)
        r_loop = self.loop(0, self.extent(free))
        with ir.InsertionPoint(r_loop.body):
            k_loop = self.loop(0, k_extent, DEPTH)
            with ir.InsertionPoint(k_loop.body):
                r, k = r_loop.induction_variable, k_loop.induction_variable
                at = self.at(which, {**ivs, free: r, self.c.k: k})
                mask = vector.create_mask(mask_type, [arith.subi(k_extent, k)])
                value = vector.maskedload(row, self.operand(which), at, mask, zeros)
                r_tile, r_in = self._split(r, ROWS)
                vector.store(value, buffer, [r_tile, self.k_tile(k), r_in, self.index(0)])
                scf.YieldOp([])
            scf.YieldOp([])

    def pack_vnni(self, ivs, which: int, free: int, buffer, to: int, fill=True) -> None:
        """vnni[j / 16][k / 32][k % 32 / 2][2 (j % 16) + k % 2] = operand `which` at (k, j)."""
        if fill and self._pads(free, to):
            self._fill_zero(buffer)
        if self._vnni_by_rows(which, free):
            return self._pack_vnni_rows(ivs, which, free, buffer)
        if self._contiguous_along(which, self.c.k, free):
            return self._pack_vnni_columns(ivs, which, free, buffer)
        j_loop = self.loop(0, self.extent(free))
        with ir.InsertionPoint(j_loop.body):
            k_loop = self.loop(0, self.extent(self.c.k))
            with ir.InsertionPoint(k_loop.body):
                j, k = j_loop.induction_variable, k_loop.induction_variable
                value = memref.load(
                    self.operand(which), self.at(which, {**ivs, free: j, self.c.k: k})
                )
                memref.store(value, buffer, self._vnni_at(j, k))
                scf.YieldOp([])
            scf.YieldOp([])

    def _vnni_at(self, j: ir.Value, k: ir.Value) -> list[ir.Value]:
        two = self.index(2)
        j_tile, j_in = self._split(j, ROWS)
        pair, half = self._split(arith.remui(k, self.index(DEPTH)), 2)
        return [j_tile, self.k_tile(k), pair, arith.addi(arith.muli(j_in, two), half)]

    def _vnni_by_rows(self, which: int, free: int) -> bool:
        """The operand is `[.., k, .., j]`, contiguous along j: two rows of 16 interleave into one
        row of a VNNI tile (an odd last row of k with zeros, a short last panel of j masked;
        static or `?` sizes)."""
        return self._contiguous_along(which, free, self.c.k)

    def _pack_vnni_rows(self, ivs, which: int, free: int, buffer) -> None:
        half = ir.VectorType.get([ROWS], self.bf16)
        mask_type = ir.VectorType.get([ROWS], ir.IntegerType.get_signless(1))
        zeros = arith.constant(
            half, ir.DenseElementsAttr.get_splat(half, ir.FloatAttr.get(self.bf16, 0.0))
        )
        k_extent, n_extent = self.extent(self.c.k), self.extent(free)
        whole = self.c.extents[free] is not None and self.c.extents[free] % ROWS == 0

        def rows(k0: ir.Value, pair: bool, j0: ir.Value, j_stop: ir.Value) -> None:
            """Row k0 and (when `pair`) k0 + 1 of columns j0 .. j_stop, interleaved, into
            their tile rows."""
            j_loop = scf.ForOp(j0, j_stop, self.index(ROWS))
            with ir.InsertionPoint(j_loop.body):
                j = j_loop.induction_variable
                mask = None if whole else vector.create_mask(mask_type, [arith.subi(n_extent, j)])

                def load(k):
                    at = self.at(which, {**ivs, free: j, self.c.k: k})
                    if mask is None:
                        return vector.load(half, self.operand(which), at)
                    return vector.maskedload(half, self.operand(which), at, mask, zeros)

                lo = load(k0)
                hi = load(arith.addi(k0, self.index(1))) if pair else zeros
                k_in = arith.remui(k0, self.index(DEPTH))
                at = [arith.divui(j, self.index(ROWS)), self.k_tile(k0)]
                at.append(arith.divui(k_in, self.index(2)))
                vector.store(vector.interleave(lo, hi), buffer, [*at, self.index(0)])
                scf.YieldOp([])

        # strips of columns: each writes its own tiles, so they run on the thread pool
        strip = VNNI_STRIP
        strips = scf.ParallelOp([], [self.index(0)], [n_extent], [self.index(strip)], [])
        body = strips.regions[0].blocks.append(ir.IndexType.get())
        with ir.InsertionPoint(body):
            j0 = body.arguments[0]
            j_stop = arith.minsi(arith.addi(j0, self.index(strip)), n_extent)
            pairs = arith.divui(k_extent, self.index(2))
            p_loop = self.loop(0, pairs)
            with ir.InsertionPoint(p_loop.body):
                rows(arith.muli(p_loop.induction_variable, self.index(2)), True, j0, j_stop)
                scf.YieldOp([])
            odd = self.c.extents[self.c.k]
            if odd is None or odd % 2:  # the last row of an odd k pairs with the buffer's zeros
                last = arith.subi(k_extent, self.index(1))
                is_odd = arith.cmpi(
                    arith.CmpIPredicate.ne, arith.remui(k_extent, self.index(2)), self.index(0)
                )
                branch = scf.IfOp(is_odd)
                with ir.InsertionPoint(branch.then_block):
                    rows(last, False, j0, j_stop)
                    scf.YieldOp([])
            scf.reduce([], 0)

    def _pack_vnni_columns(self, ivs, which: int, free: int, buffer) -> None:
        """`V[j, k]` contiguous along k: 16 rows of j by 32 of k a step. A row's 32 values are
        16 pairs of k, one i32 lane each; the 16 x 16 block of lanes, transposed, is 16 tile
        rows (one pair of k for every j). Rows past j's extent and lanes past k's are zeros."""
        i1, i32 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(32)
        row = ir.VectorType.get([DEPTH], self.bf16)
        lanes = ir.VectorType.get([ROWS], i32)
        block_type = ir.VectorType.get([ROWS, ROWS], i32)
        mask_type = ir.VectorType.get([DEPTH], i1)
        zeros = arith.constant(
            row, ir.DenseElementsAttr.get_splat(row, ir.FloatAttr.get(self.bf16, 0.0))
        )
        empty = arith.constant(
            block_type, ir.DenseElementsAttr.get_splat(block_type, ir.IntegerAttr.get(i32, 0))
        )
        k_extent, n_extent = self.extent(self.c.k), self.extent(free)
        j_loop = self.loop(0, n_extent, ROWS)
        with ir.InsertionPoint(j_loop.body):
            k_loop = self.loop(0, k_extent, DEPTH)
            with ir.InsertionPoint(k_loop.body):
                j, k = j_loop.induction_variable, k_loop.induction_variable
                k_left = arith.subi(k_extent, k)
                block = empty
                for i in range(ROWS):
                    at_j = arith.addi(j, self.index(i))
                    inside = arith.cmpi(arith.CmpIPredicate.ult, at_j, n_extent)
                    # a row past the extent loads nothing, from an in-bounds row
                    count = arith.select(inside, k_left, self.index(0))
                    safe_j = arith.select(inside, at_j, j)
                    mask = vector.create_mask(mask_type, [count])
                    at = self.at(which, {**ivs, free: safe_j, self.c.k: k})
                    value = vector.maskedload(row, self.operand(which), at, mask, zeros)
                    block = vector.insert(vector.bitcast(lanes, value), block, [], [i])
                pairs = vector.transpose(block_type, block, [1, 0])
                tile = [arith.divui(j, self.index(ROWS)), self.k_tile(k)]
                for p in range(ROWS):
                    pair_row = vector.bitcast(row, vector.extract(pairs, [], [p]))
                    vector.store(pair_row, buffer, [*tile, self.index(p), self.index(0)])
                scf.YieldOp([])
            scf.YieldOp([])

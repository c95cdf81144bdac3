"""bf16 products on AMX tiles: the kernel `cpu-vectorize-contractions` emits for a matched
`Contraction` with bf16 A and B and an f32 C when the target has AMX-BF16.

`tdpbf16ps` (`amx.tile_mulf`) adds a 16x32 bf16 "row" tile times a 16x32 bf16 tile in VNNI
layout (pairs of k interleaved: `[k/2][j][2]`) into a 16x16 f32 tile. Either input of the
product may be the row operand; we take the bigger one that has k contiguous (a Linear's weight
`[n, k]`, read in place when its sizes are whole tiles), so only the other one is copied:
- the row operand: tiles loaded in place when it is whole 32 x 32 blocks, else copied to
  blocked zero-padded tiles (`amx_pack`);
- the VNNI operand: copied to blocked zero-padded VNNI tiles (`amx_pack`);
- the product: 2 x 2 f32 tiles (4 of the 8 tile registers, 2 row and 2 VNNI tiles beside
  them) across the k tiles. They start as `tile_zero` when C was zero-filled right before
  (the fill is then dropped), else load from C, and store to C itself when C is `[m, n]` in
  whole blocks with the rows being m (C holds the accumulator's initial value: the kernels
  add into C); else, C contiguous along n, each block's tiles go through a 4-tile scratch
  and are added into C's rows (`amx_result`, transposed when the rows are n, a Linear's
  weight); else through a result buffer added into C element by element. When the zero-filled
  C is only mapped elementwise afterwards (rounded to bf16: a bf16 mm; scaled: attention's
  scores), the rows are written mapped into the generic's output and C, its fill and the
  generic go (`amx_epilogue`).
Zero padding to whole 32 x 32 blocks makes every remainder, static or `?`, exact without
masks in the tile loop. Loops around the kernel (batch, heads) are plain `scf.for`s; the
(column panel, 32 rows) pairs inside are an `scf.parallel` that `cpu-parallelize-loops` runs
on the thread pool (the tile config is loaded per function, so each outlined body has its
own `ldtilecfg`; the tile permission is per process). The nest is `amx_tiles`; its blocking
(column panels, k chunks) was measured on a loaded 2-core machine (the amx and amx2 notes).

Linux grants the tile state per process (`target.request_amx`); `CpuTarget.amx_bf16` asks for
it, and the native loader opens a library with tile instructions only once it is granted.
`ATEN_MLIR_AMX=0` turns the kernel off (the FMA kernels run), for tests and A/B timing.
"""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, memref, scf

from aten_mlir.backends.cpu.target import cpu_target

from .amx_epilogue import epilogue
from .amx_pack import DEPTH, ROWS
from .amx_result import add_result_buffer
from .amx_tiles import BLOCK, TileLoops
from .amx_tiles import flag as _flag
from .kernels import Contraction, zero_fill_before

# below this many multiply-adds the copies and the padding cost more than the FMA kernels
MIN_MACS = 32 * 32 * 32
_GUESS = 64  # a dynamic extent, when judging the size


def enabled() -> bool:
    return os.environ.get("ATEN_MLIR_AMX", "1") != "0"


def amx_emitter(c: Contraction, types, cpu: str = "") -> AmxEmitter | None:
    """The AMX kernel of `c`, or None: the target lacks AMX-BF16, A and B are not bf16 with an
    f32 C, or the product is too small to pay for its copies."""
    if not enabled() or c.op.name == "linalg.conv_2d_nchw_fchw":
        return None
    a, b, out = (ir.MemRefType(v.type).element_type for v in (c.a, c.b, c.c))
    if not (isinstance(a, ir.BF16Type) and isinstance(b, ir.BF16Type)):
        return None
    if not isinstance(out, ir.F32Type):
        return None
    m, n, k = (_GUESS if c.extents[d] is None else c.extents[d] for d in (c.m, c.n, c.k))
    if min(m, n) < ROWS or k < DEPTH // 2 or m * n * k < MIN_MACS:
        return None
    if not cpu_target(cpu or None).amx_bf16:
        return None
    return AmxEmitter(c, types)


def _k_last(forms, k: int, free: int) -> bool:
    """`[.., free, k]`: the operand's rows run along `free`, each contiguous along k."""
    return len(forms) >= 2 and forms[-1] == ((k, 1),) and forms[-2] == ((free, 1),)


def _define_before(alloc: ir.Operation, op: ir.Operation) -> None:
    """Moves `alloc` (operands-free) right before `op` when it comes after it (the kernel at
    `op` writes the buffer); one before `op` stays where its earlier uses can see it."""
    for o in op.block.operations:
        if o.operation == alloc:
            return
        if o.operation == op:
            alloc.move_before(op)
            return


def _unit_stride(v: ir.Value) -> bool:
    strides, _ = ir.MemRefType(v.type).get_strides_and_offset()
    return strides[-1] == 1


class AmxEmitter(TileLoops):
    """Builds the tile loop nest of one bf16 contraction at the current insertion point."""

    def __init__(self, c: Contraction, types):
        super().__init__(c)
        # (operand 0 A / 1 B, its free dim, the memref) for the row and VNNI roles
        self.row, self.vnni = self._roles()
        # an outer reduction dim (the heads of an output projection, `[b, h, s, d] x [n, h,
        # d]`) folded into the tile k loop: its k tiles follow one another in the copies, so
        # C's tiles stay in registers across it (not loaded and stored per head)
        c_dims = {d for form in c.index[2] for d, _ in form}
        sums = [d for d in c.outer if d not in c_dims]
        self.folded = sums[0] if len(sums) == 1 and _flag("FOLD", "1") != "0" else None
        self.rows_in_place = self._rows_in_place()
        self.c_in_place = self._c_in_place()
        # else, C contiguous along n: each block's tiles are added into C after its k loop
        # (the whole k in registers) instead of through a result buffer the size of C
        self.rows_into_c = (
            not self.c_in_place and _k_last(c.index[2], c.n, c.m) and _unit_stride(c.c)
        )
        # C zero-filled right before: the fill is dropped (the kernel writes every element),
        # the tiles start as tile_zero, not loads, and rows go into C stored, not added
        writes_c = (self.c_in_place or self.rows_into_c) and _flag("ZERO_FILL", "1") != "0"
        self.zero_fill = zero_fill_before(c) if writes_c and self._no_outer_sums() else None

    def _roles(self):
        """The row operand: the bigger input contiguous along k (read in place when it can
        be), else A."""
        c = self.c
        a, b = (0, c.m, c.a), (1, c.n, c.b)
        fits = [x for x in (a, b) if _k_last(c.index[x[0]], c.k, x[1]) and _unit_stride(x[2])]
        if not fits:
            return a, b
        row = max(fits, key=lambda x: _GUESS if c.extents[x[1]] is None else c.extents[x[1]])
        return row, (b if row is a else a)

    def _whole(self, d: int, block: int) -> bool:
        e = self.c.extents[d]
        return e is not None and e % block == 0

    def _rows_in_place(self) -> bool:
        """The row operand is `[.., r, k]` with whole blocks of rows and k: tiles load from it."""
        which, free, base = self.row
        k_last = _k_last(self.c.index[which], self.c.k, free) and _unit_stride(base)
        whole = self._whole(free, BLOCK) and self._whole(self.c.k, DEPTH)
        return _flag("ROWS_IN_PLACE", "1") != "0" and k_last and whole

    def _c_in_place(self) -> bool:
        """C is `[.., m, n]` with whole blocks, and the rows are m: result tiles load and
        store in C itself."""
        c = self.c
        return (
            _flag("C_IN_PLACE", "1") != "0"
            and self.row[0] == 0
            and _k_last(c.index[2], c.n, c.m)
            and _unit_stride(c.c)
            and self._whole(c.m, BLOCK)
            and self._whole(c.n, BLOCK)
        )

    def _no_outer_sums(self) -> bool:
        """Every loop around the kernel is one of C's dims (none adds into C across trips)."""
        c_dims = {d for form in self.c.index[2] for d, _ in form}
        return all(d in c_dims or d == self.folded for d in self.c.outer)

    # -- the nest ------------------------------------------------------------------------------
    def emit(self) -> None:
        block = ir.InsertionPoint.current.block
        if block != self.c.op.operation.block:
            # a branch of another kernel's test (narrow_dot's few `?` rows): the other branch
            # adds into the zero-filled C too, so the fill stays and the tiles start from C
            self.zero_fill = None
        # C zero-filled then only mapped elementwise (rounded to bf16): the kernel writes the
        # mapped rows
        self.rounding = None
        if self.zero_fill is not None and _flag("ROUND", "1") != "0":
            self.rounding = epilogue(self.c, block)
        if self.rounding is not None:
            _define_before(self.rounding.d.owner.operation, self.c.op.operation)
            self.c_in_place, self.rows_into_c = False, True
        self.zero_start = self.zero_fill is not None or not self.c_in_place
        row_dim, vnni_dim = self.row[1], self.vnni[1]
        self.vnni_buffer = self.tiles_buffer(vnni_dim, BLOCK, self.folded)
        self.rows_buffer = None
        if not self.rows_in_place:
            self.rows_buffer = self.tiles_buffer(row_dim, BLOCK, self.folded)
        self.out = None
        if not (self.c_in_place or self.rows_into_c):
            # [r / 16][v / 16][16][16]: each result tile's 1 KiB contiguous
            shape = [self.count(row_dim, BLOCK), self.count(vnni_dim, BLOCK), ROWS, ROWS]
            shape = [
                s * 2 if isinstance(s, int) else arith.muli(s, self.index(2), ip=self._top)
                for s in shape[:2]
            ] + shape[2:]
            static = [s if isinstance(s, int) else ir.ShapedType.get_dynamic_size() for s in shape]
            dynamic = [s for s in shape if not isinstance(s, int)]
            self.out = memref.alloc(ir.MemRefType.get(static, self.f32), dynamic, [])
        loops = [d for d in self.c.outer if d != self.folded]
        # an operand indexed by none of the loops is copied once, before them (the weight of
        # an output projection, not once per batch)
        self.hoisted = {w for w in (0, 1) if not self._dims(w) & set(loops)}
        self._pack(self.hoisted, {})
        self._outer_loops(loops, {})
        if self.zero_fill is not None:
            self.zero_fill.erase()
        if self.rounding is not None:
            self.rounding.generic.erase()
        for buffer in (self.vnni_buffer, self.rows_buffer, self.out):
            if buffer is not None:
                memref.dealloc(buffer)

    def _outer_loops(self, dims, ivs):
        """The loops around the kernel (batch, heads, outer reductions: the kernel adds)."""
        if dims:
            loop = scf.ForOp(self.index(0), self.extent(dims[0]), self.index(1))
            with ir.InsertionPoint(loop.body):
                self._outer_loops(dims[1:], {**ivs, dims[0]: loop.induction_variable})
                scf.YieldOp([])
            return
        self._pack({0, 1} - self.hoisted, ivs)
        self._tiles(ivs)
        if self.out is not None:
            add_result_buffer(self, ivs)

    def _dims(self, which: int) -> set[int]:
        return {d for form in self.c.index[which] for d, _ in form}

    def _pack(self, which: set[int], ivs) -> None:
        """Copies the operands in `which` (0 A, 1 B) that the kernel reads from buffers; with
        a folded dim, head after head (the zero padding filled once)."""
        copies = []
        if self.vnni[0] in which:
            copies.append((self.pack_vnni, self.vnni, self.vnni_buffer))
        if self.rows_buffer is not None and self.row[0] in which:
            copies.append((self.pack_rows, self.row, self.rows_buffer))
        if self.folded is None:
            for pack, (w, free, _), buffer in copies:
                pack(ivs, w, free, buffer, BLOCK)
            return
        for _, (_, free, _), buffer in copies:
            if self._pads(free, BLOCK):
                self._fill_zero(buffer)
        heads = self.loop(0, self.extent(self.folded))
        with ir.InsertionPoint(heads.body):
            h = heads.induction_variable
            self.k_tile_base = arith.muli(h, self._v(self.count(self.c.k, DEPTH)))
            for pack, (w, free, _), buffer in copies:
                pack({**ivs, self.folded: h}, w, free, buffer, BLOCK, fill=False)
            self.k_tile_base = None
            scf.YieldOp([])

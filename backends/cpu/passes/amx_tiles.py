"""The tile loops of the AMX kernel (`amx`): (column panel, 32 rows) pairs as an
`scf.parallel`, in each a run of 2 x 2 result tiles carried in tile registers across the k
tiles (`tdpbf16ps`), then stored into C, or through a scratch into C's rows (`amx_result`).
`TileLoops` is the part of `AmxEmitter` that emits them; the emitter chooses the operands'
roles and copies (`amx`, `amx_pack`)."""

from __future__ import annotations

import os

from mlir import ir
from mlir.dialects import arith, memref, scf

from .amx_pack import DEPTH, ROWS, TileOperands
from .amx_result import ResultRows

# the result is computed 2 x 2 tiles at a time
BLOCK = 2 * ROWS
# columns of the result per pass over the rows: their VNNI tiles (K x 256 bf16, 512 KiB at
# K = 1024) stay in L2 while every block of rows goes by
PANEL = 256
# k per pass over a panel (the result tiles are loaded and stored once per chunk): chunks of
# 256 with the row tiles copied and the result in an L1 accumulator per panel measured
# 15-20% slower than the whole k at 1024^3 (amx2 note)
DEPTHS = 1024


def flag(name: str, default: str) -> str:
    # layout experiments, read per compile (A/B timing in one process)
    return os.environ.get(f"ATEN_MLIR_AMX_{name}", default)


def _segments(*sizes: int) -> ir.Attribute:
    # the ops' optional stride operand (and, for the store, a mask) left out
    return ir.DenseI32ArrayAttr.get(list(sizes))


class TileLoops(TileOperands):
    """Tile loads, stores and the loop nest over them; the subclass sets the operands'
    roles (`row`, `vnni`), their buffers and how C is written."""

    def _tile_type(self, element) -> ir.Type:
        cols = ROWS if element == self.f32 else DEPTH
        return ir.Type.parse(f"!amx.tile<{ROWS}x{cols}x{element}>")

    def _load(self, base, indices, element) -> ir.Value:
        return ir.Operation.create(
            "amx.tile_load",
            results=[self._tile_type(element)],
            operands=[base, *indices],
            attributes={"operandSegmentSizes": _segments(1, len(indices), 0)},
        ).result

    def _store(self, base, indices, tile) -> None:
        ir.Operation.create(
            "amx.tile_store",
            operands=[base, *indices, tile],
            attributes={"operandSegmentSizes": _segments(1, len(indices), 1, 0)},
        )

    def _row_tile(self, ivs, r, k) -> ir.Value:
        """The row operand's 16 x 32 tile at (r, k) (of the head `self.k_tile_base` is at)."""
        if self.rows_buffer is None:
            which, free, base = self.row
            return self._load(base, self.at(which, {**ivs, free: r, self.c.k: k}), self.bf16)
        at = [arith.divui(r, self.index(ROWS)), self.k_tile(k)]
        return self._load(self.rows_buffer, [*at, self.index(0), self.index(0)], self.bf16)

    def _vnni_tile(self, v, k) -> ir.Value:
        at = [arith.divui(v, self.index(ROWS)), self.k_tile(k)]
        return self._load(self.vnni_buffer, [*at, self.index(0), self.index(0)], self.bf16)

    def _result_at(self, ivs, r, v) -> tuple[ir.Value, list[ir.Value]]:
        if self.out is None:
            return self.c.c, self.at(2, {**ivs, self.c.m: r, self.c.n: v})
        at = [arith.divui(r, self.index(ROWS)), arith.divui(v, self.index(ROWS))]
        return self.out, [*at, self.index(0), self.index(0)]

    def _tiles(self, ivs) -> None:
        """result += rows x vnni: panels of PANEL columns (their VNNI tiles stay in L2 while
        the rows go by), blocks of 32 rows, chunks of DEPTHS along k, blocks of 2 x 2 tiles.
        (panel, rows) is an `scf.parallel`: each pair writes its own result tiles, and
        `cpu-parallelize-loops` shares the pairs out in order, a thread's run of rows within
        one panel (it cannot prove the AMX ops' accesses disjoint for an `scf.for`)."""
        vp = self.padded(self.vnni[1], BLOCK)
        kp = self.padded(self.c.k, DEPTH)
        step = int(flag("PANEL", str(PANEL)))
        lower, upper = [self.index(0)] * 2, [self._v(vp), self._v(self.padded(self.row[1], BLOCK))]
        serial = flag("THREADS", "1") == "0"
        if not serial:
            pairs = scf.ParallelOp([], lower, upper, [self.index(step), self.index(BLOCK)], [])
            body = pairs.regions[0].blocks.append(*[ir.IndexType.get()] * 2)
            p0, r0 = body.arguments
        else:  # for A/B timing: the same nest as two scf.for
            panels = self.loop(0, vp, step)
            with ir.InsertionPoint(panels.body):
                r_loop = self.loop(0, upper[1], BLOCK)
                scf.YieldOp([])
            body, p0, r0 = r_loop.body, panels.induction_variable, r_loop.induction_variable
        with ir.InsertionPoint(body):
            p_stop = arith.minsi(arith.addi(p0, self.index(step)), self._v(vp))
            depths = int(flag("DEPTHS", str(DEPTHS)))
            into_c = None
            if self.rows_into_c or self.folded is not None:  # the whole k per block
                depths = kp if isinstance(kp, int) else 1 << 40  # k_stop: min(k0 + 2^40, kp)
            if self.rows_into_c:  # a 2 x 2 tiles' scratch per thread
                t = ir.MemRefType.get([4, ROWS, ROWS], self.f32)
                rows = ResultRows(self, ivs, self.zero_fill is not None, self.rounding)
                into_c = (rows, memref.alloc(t, [], []))

            def chunk(k0, first: bool) -> None:
                k_stop = arith.minsi(arith.addi(k0, self.index(depths)), self._v(kp))
                v_loop = scf.ForOp(p0, p_stop, self.index(BLOCK))
                with ir.InsertionPoint(v_loop.body):
                    zero = first and self.zero_start
                    v0 = v_loop.induction_variable
                    self._block(ivs, r0, v0, (k0, k_stop), zero, into_c)
                    scf.YieldOp([])

            # the first chunk peeled: its result tiles may start at zero
            chunk(self.index(0), True)
            if into_c is None and (not isinstance(kp, int) or kp > depths):
                chunks = self.loop(depths, kp, depths)
                with ir.InsertionPoint(chunks.body):
                    chunk(chunks.induction_variable, False)
                    scf.YieldOp([])
            if into_c is not None:
                memref.dealloc(into_c[1])
            scf.YieldOp([]) if serial else scf.reduce([], 0)

    def _block(self, ivs, r0, v0, k_range, zero: bool, into_c=None) -> None:
        """2 x 2 result tiles at (r0, v0), loaded (`zero`: zeroed), added k_range's
        products, stored (`into_c`: to a scratch, then added into C)."""

        def at(r, v):
            return self._result_at(ivs, r, v)

        acc_type = self._tile_type(self.f32)
        corners = [
            (arith.addi(r0, self.index(i * ROWS)), arith.addi(v0, self.index(j * ROWS)))
            for i in range(2)
            for j in range(2)
        ]
        if zero:
            accs = [
                ir.Operation.create("amx.tile_zero", results=[acc_type]).result for _ in corners
            ]
        else:
            accs = [self._load(*at(r, v), self.f32) for r, v in corners]

        def k_steps(ivs, accs):
            k_loop = scf.ForOp(*k_range, self.index(DEPTH), accs)
            with ir.InsertionPoint(k_loop.body):
                k = k_loop.induction_variable
                rows = [self._row_tile(ivs, corners[2 * i][0], k) for i in range(2)]
                cols = [self._vnni_tile(corners[j][1], k) for j in range(2)]
                out = []
                for i in range(2):
                    for j in range(2):
                        acc = k_loop.inner_iter_args[2 * i + j]
                        operands = [rows[i], cols[j], acc]
                        op = ir.Operation.create("amx.tile_mulf", [acc_type], operands)
                        out.append(op.result)
                scf.YieldOp(out)
            return k_loop.results

        if self.folded is None:
            results = k_steps(ivs, accs)
        else:  # the heads around the k steps, the tiles carried through both
            heads = scf.ForOp(self.index(0), self.extent(self.folded), self.index(1), accs)
            with ir.InsertionPoint(heads.body):
                h = heads.induction_variable
                self.k_tile_base = arith.muli(h, self._v(self.count(self.c.k, DEPTH)))
                scf.YieldOp(k_steps({**ivs, self.folded: h}, heads.inner_iter_args))
                self.k_tile_base = None
            results = heads.results
        if into_c is not None:
            rows, scratch = into_c
            for t, tile in enumerate(results):
                self._store(scratch, [self.index(t), self.index(0), self.index(0)], tile)
            for t, (r, v) in enumerate(corners):
                rows.add(scratch, t, r, v)
            return
        for (r, v), tile in zip(corners, results):
            self._store(*at(r, v), tile)

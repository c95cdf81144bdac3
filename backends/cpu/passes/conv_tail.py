"""The last block of a `?` batch (`conv_batch`): the batch mod G images left after the whole
blocks, a run-time count in [0, G), as ONE block. Blocks of 8, 4, 2, 1 images each streamed the
whole filter through register tiles with mostly empty lanes (a 256->256 3x3 conv on 2x2
outputs at batch 7: three passes, dynamic 1.13x the static compile, 1.0x as one block)."""

from __future__ import annotations

from dataclasses import replace

from mlir import ir
from mlir.dialects import arith, memref, scf

from .conv_blocks import ImageBlocks


class TailBlock(ImageBlocks):
    """`count` images from `first` on. Its columns run in whole vectors up to G*P: the outer
    kernel's `?` column tail is then whole register blocks and at most one tile one vector
    wide, never a masked step; the columns past the images are zeros, their results never
    read. The copy and C are allocated that many columns wide (a batch of 1 copies 16 columns
    per filter row, not G*P)."""

    def __init__(self, op, types, blocking, g, first, count):
        # (values the kernel uses as trip counts are built here, before its top insertion point)
        index = lambda v: arith.constant(ir.IndexType.get(), v)  # noqa: E731
        pixels = types[2].shape[2] * types[2].shape[3]
        self.used = arith.muli(count, index(pixels))
        lanes = blocking.vector_bytes // 4
        whole = arith.muli(
            arith.divui(arith.addi(self.used, index(lanes - 1)), index(lanes)), index(lanes)
        )
        self.columns = arith.minui(whole, index(g * pixels))
        super().__init__(op, types, blocking, g, first, arith.minui(count, index(1)))
        self.count = count
        self.c = replace(self.c, extents=(None, self.c.extents[1], None, self.c.extents[3]))
        self._extents[2] = self.columns

    def _images(self) -> ir.Value:
        return self.count

    def _buffers(self) -> tuple[ir.Value, ir.Value]:
        c, dynamic = self.c, ir.ShapedType.get_dynamic_size()
        packed_type = ir.MemRefType.get([c.extents[c.k], dynamic], self.element)
        c_type = ir.MemRefType.get([c.extents[1], dynamic], self.block_c_type.element_type)
        columns = [self.columns]
        return memref.alloc(packed_type, columns, []), memref.alloc(c_type, columns, [])

    def _pack(self, ivs, packed):
        super()._pack(ivs, packed)
        # zeros in the columns past the images, up to the whole vectors the kernel reads
        rows = scf.ForOp(self.index(0), self.index(self.c.extents[self.c.k]), self.index(1))
        with ir.InsertionPoint(rows.body):
            cols = scf.ForOp(self.used, self.columns, self.index(self.lanes))
            with ir.InsertionPoint(cols.body):
                j = cols.induction_variable
                left = arith.subi(self.columns, j)
                self._store_lanes(self.zeros, packed, [rows.induction_variable, j], left)
                scf.YieldOp([])
            scf.YieldOp([])

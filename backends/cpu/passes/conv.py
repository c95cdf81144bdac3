"""Convolutions whose output rows are narrower than a vector: the image copied as im2col, one
row per (channel, window position), then the outer-product kernel over all output pixels.

The outer kernel puts its lanes along a single output row; a 4-wide row in 16 lanes wastes 3/4
of every fma (ResNet's last stages). Copying the image of one batch element to `[C*KH*KW,
OH*OW]` (each row a short contiguous or strided run of the image) makes the filter, viewed as
`[F, C*KH*KW]`, times that copy one plain matrix product with lanes along all output pixels.
"""

from __future__ import annotations

from contextlib import ExitStack

from mlir import ir
from mlir.dialects import arith, memref, scf

from . import conv_columns
from .kernels import AVX512, Blocking, Contraction, KernelEmitter, accumulator_type
from .outer_kernel import OuterKernel

CONV = "linalg.conv_2d_nchw_fchw"
# A conv with output rows of a vector or more still takes im2col when its reduction (C*KH*KW)
# is this short and it has this many filters: the direct kernel then sums only KW taps between
# loads and stores of its accumulators (at 4 KiB strides), while the copy costs 1/F of the
# product. 1 thread, batch 16 of 32x32, F=32: C=3 2.24 -> 0.25 ms, C=8 1.96 -> 0.49, C=16
# 1.71 -> 0.91, C=32 1.53 -> 1.95 (the direct kernel wins); 3->16 on 112x112 0.22 -> 0.28.
WIDE_IM2COL_MAX_K = 160
WIDE_IM2COL_MIN_F = 32
# ...and when its rows are ragged (OW not a multiple of the register tile's columns: the direct
# kernel's last tile of every row is masked, 56 = 32 + 24 on ResNet's 56x56 stage) with a
# reduction up to this long. 1 thread, same process, copy/direct: 64->64 3x3 56x56 b1 0.91x,
# b8 0.89x, 40-wide rows 0.88x, 64->128 on 100-wide rows 0.87x, 32->64 (K 288) 56x56 1.01x;
# rows of 32 (32->32) and 64 (48->64) are whole tiles and lose on the copy (1.12x, 1.06x).
# 0: off
RAGGED_IM2COL_MAX_K = 576
# Filters from which the outer kernel copies the im2col copy again as panels (else it reads
# the copy in place): the panel copy of [C*KH*KW, OH*OW] pays over many rows only (1 thread,
# same process, panels/in place: 128->128 3x3 28x28 1.39/1.24 ms, 512->128 1x1 28x28
# 0.61/0.55, 512->512 3x3 7x7 1.63/1.53, 256 3x3 14x14 1.29/1.27; 256->1024 1x1 14x14
# 0.51/0.53; resnet50 b1 48.6/47.4 ms)
IM2COL_PANEL_MIN_ROWS = 1024
# An im2col copy larger than this is made (and multiplied) in blocks of output rows of at
# least IM2COL_BLOCK_COLUMNS columns (`rows_per_block`); 0 / a huge value: off
IM2COL_BLOCK_BYTES = 1 << 20
IM2COL_BLOCK_COLUMNS = 512


def identity_layout(t: ir.MemRefType) -> bool:
    strides, offset = t.get_strides_and_offset()
    expected, step = [], 1
    for size in reversed(t.shape):
        expected.insert(0, step)
        step *= size
    return offset == 0 and strides == expected


def _attr(op: ir.Operation, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def im2col_emitter(
    op: ir.Operation, types: list[ir.MemRefType], blocking: Blocking = AVX512, emitter=None
) -> KernelEmitter | None:
    """The emitter of conv `op` as the outer kernel on an im2col copy; None when the conv is
    better left to the direct kernel (output rows of at least a vector, unless its reduction is
    short) or cannot be viewed so (a filter or output not in identity layout)."""
    if op.name != CONV:
        return None
    image, weight, out = types
    wide = not isinstance(accumulator_type(out.element_type), ir.F32Type)
    lanes = blocking.vector_bytes // (8 if wide else 4)
    n, f, oh, ow = out.shape
    channels, kh, kw = weight.shape[1:]
    if any(ir.ShapedType.is_dynamic_size(s) for s in (f, oh, ow, channels, kh, kw)):
        return None  # only the batch may be dynamic: the copy's shape is static
    tile = blocking.outer_vectors * lanes
    k = channels * kh * kw
    short = k <= WIDE_IM2COL_MAX_K or (ow % tile and k <= RAGGED_IM2COL_MAX_K)
    if ow >= tile and not (short and f >= WIDE_IM2COL_MIN_F):
        return None  # the direct kernel
    if not all(map(identity_layout, (weight, out))):
        return None  # (conv_blocks.ImageBlocks takes an output of any layout)
    n = None if ir.ShapedType.is_dynamic_size(n) else n
    return (emitter or Im2colEmitter)(op, types, (n, f, oh * ow, channels * kh * kw), blocking)


def rows_per_block(oh: int, ow: int, k: int) -> int:
    """R, the output rows copied and multiplied at a time: all OH when the whole copy fits
    IM2COL_BLOCK_BYTES, else the fewest rows dividing OH (blocks all whole) of at least
    IM2COL_BLOCK_COLUMNS columns. Each block is copied just before its product reads it, from
    L2, not written out to L3 whole first (the ResNet stem's 7.4 MB copy [147, 112*112]); a
    block of fewer columns would stream the filter again for too little work."""
    if k * oh * ow * 4 <= IM2COL_BLOCK_BYTES:  # (f32's bytes: the bound is a rough one)
        return oh
    least = min(IM2COL_BLOCK_COLUMNS, oh * ow)
    return next(r for r in range(1, oh + 1) if oh % r == 0 and r * ow >= least)


class Im2colEmitter(OuterKernel):
    """The `packed` outer kernel whose pack step is im2col of a block of R output rows of one
    batch element (`rows_per_block`); its dims are 0 batch, 1 row block, 2 filter (m), 3 output
    pixel in the block (n), 4 (channel, kh, kw) (k)."""

    PANELS_FROM_ROWS = False  # its pack is im2col, into [k, n]
    left = 0  # columns past the 3-vector tiles run as dot products (conv_columns)

    def _on_panels_path(self) -> bool:
        rows = self.c.extents[self.c.m]  # the filters: never `?`
        if self.left:
            return False  # (conv_columns' tiles read the copy in place)
        return rows >= IM2COL_PANEL_MIN_ROWS and super()._on_panels_path()

    def __init__(self, op: ir.Operation, types: list[ir.MemRefType], extents, blocking: Blocking):
        image, weight, out = op.operands
        n, f, p, k = extents
        element = types[0].element_type
        out_element = types[2].element_type
        batch = ir.ShapedType.get_dynamic_size() if n is None else n
        flat_weight = memref.collapse_shape(
            ir.MemRefType.get([f, k], element), weight, [[0], [1, 2, 3]]
        )
        flat_out = memref.collapse_shape(
            ir.MemRefType.get([batch, f, p], out_element), out, [[0], [1], [2, 3]]
        )
        oh, ow = types[2].shape[2:]
        self.block_rows = rows_per_block(oh, ow, k)
        columns = self.block_rows * ow
        extents = (n, oh // self.block_rows, f, columns, k)
        # B's index is the packed copy's, set by each pack
        index = (
            (((2, 1),), ((4, 1),)),
            (),
            (((0, 1),), ((2, 1),), ((1, columns), (3, 1))),
        )
        # (only the batch may be `?`: the other sizes are never read)
        sizes = ((flat_out, 0), (flat_out, 2), (flat_weight, 0), (flat_out, 2), (flat_weight, 1))
        contraction = Contraction(
            op, flat_weight, image, flat_out, index, extents, "packed", (0, 1), 2, 3, 4, sizes
        )
        super().__init__(contraction, types, blocking)
        self.image = image
        self.window = types[1].shape[1:]
        self.out_rows = types[2].shape[2:]
        self.strides, self.dilations = _attr(op, "strides"), _attr(op, "dilations")
        self.columns = columns
        self.left = conv_columns.left_columns(self, columns)

    def emit(self) -> None:
        if not self.left:
            return super().emit()
        self.tail = conv_columns.alloc_tail(self)
        super().emit()
        memref.dealloc(self.tail)

    def _in_place(self, ivs):
        if not self.left:
            return super()._in_place(ivs)
        conv_columns.in_place(self, ivs, self.columns)

    def _pack(self, ivs, packed):
        first = arith.muli(ivs[1], self.index(self.block_rows))
        self._pack_image(ivs[0], packed, None, first, self.block_rows)
        self.b, self.b_index = packed, (((4, 1),), ((3, 1),))
        if self.left:
            conv_columns.copy_tail(self, packed, self.columns)

    def _pack_image(self, b, packed, column, first_row=None, rows=None):
        """packed[(ch*KH + y)*KW + x, column + r*OW : ...+OW] = image[b, ch, (first_row + r)*sh
        + y*dh, x*dw ::sw] for r < rows (column None: 0; first_row None: all OH rows)."""
        channels, kh, kw = self.window
        oh, ow = self.out_rows
        oh = oh if rows is None else rows
        (sh, sw), (dh, dw) = self.strides, self.dilations
        with ExitStack() as nest:
            loops = []
            for extent in (channels, kh, kw, oh):
                loops.append(scf.ForOp(self.index(0), self.index(extent), self.index(1)))
                nest.enter_context(ir.InsertionPoint(loops[-1].body))
            ch, y, x, r = (loop.induction_variable for loop in loops)
            row = arith.addi(
                arith.muli(arith.addi(arith.muli(ch, self.index(kh)), y), self.index(kw)), x
            )
            image_r = r if first_row is None else arith.addi(first_row, r)
            at_y = arith.addi(arith.muli(image_r, self.index(sh)), arith.muli(y, self.index(dh)))
            at_x = arith.muli(x, self.index(dw))
            at_p = arith.muli(r, self.index(ow))
            at_p = at_p if column is None else arith.addi(at_p, column)
            for j in range(0, ow, self.lanes):
                width = min(self.lanes, ow - j)
                x_j = arith.addi(at_x, self.index(j * sw)) if j else at_x
                value = self._load_lanes(self.image, [b, ch, at_y, x_j], width, sw)
                p_j = arith.addi(at_p, self.index(j)) if j else at_p
                self._store_lanes(value, packed, [row, p_j], width)
            for loop in reversed(loops):
                with ir.InsertionPoint(loop.body):
                    scf.YieldOp([])

"""Convolutions on im2col with several images per product: the copy is `[C*KH*KW, G*OH*OW]`
for a block of G images, so the filter `[F, C*KH*KW]` is streamed once per block, not once per
image, and the kernel's lanes run along G*OH*OW columns instead of a 4- or 16-pixel image
(ResNet's late stages: 2x2 and 4x4 outputs). The product goes to a `[F, G*OH*OW]` buffer that
is then added into the output's G images (their columns are not one run in NCHW). The batch
past the last whole block (a static remainder, or any `?` batch) runs the one-image kernel, so
batch 1 is unchanged and no block reads past the batch.
"""

from __future__ import annotations

from dataclasses import replace

from mlir import ir
from mlir.dialects import arith, memref, scf

from .conv import CONV, Im2colEmitter, identity_layout, im2col_emitter
from .kernels import AVX512, Blocking, Contraction, KernelEmitter, accumulator_type
from .outer_kernel import OuterKernel

# Columns (images x output pixels) a block aims at: the copy [C*KH*KW, cols] stays in L2
BLOCK_COLUMNS = 64


def images_per_block(batch: int | None, pixels: int) -> int:
    """G: images per product, 1 when one image already fills BLOCK_COLUMNS (or batch 1)."""
    g = max(1, BLOCK_COLUMNS // pixels)
    return g if batch is None else min(g, batch)


def batched_im2col_emitter(
    op: ir.Operation, types: list[ir.MemRefType], blocking: Blocking = AVX512
) -> KernelEmitter | None:
    """`conv.im2col_emitter`, with blocks of images when an image has few output pixels, or
    when the output is a view (the interior of the next conv's padded input), which the plain
    im2col kernel cannot write as one matrix."""
    if op.name != CONV:
        return None
    image, weight, out = types
    n, f, oh, ow = out.shape
    channels, kh, kw = weight.shape[1:]
    if any(ir.ShapedType.is_dynamic_size(s) for s in (f, oh, ow, channels, kh, kw)):
        return None  # only the batch may be dynamic: the copy's shape is static
    wide = not isinstance(accumulator_type(out.element_type), ir.F32Type)
    lanes = blocking.vector_bytes // (8 if wide else 4)
    strides, _ = out.get_strides_and_offset()
    if ow >= blocking.outer_vectors * lanes:
        return im2col_emitter(op, types, blocking)
    if not identity_layout(weight) or strides[-1] != 1:
        return None
    n = None if ir.ShapedType.is_dynamic_size(n) else n
    g = images_per_block(n, oh * ow)
    if g < 2 and identity_layout(out):
        return im2col_emitter(op, types, blocking)
    return _Batched(op, types, blocking, g, n)


def _levels(n: int, g: int) -> list[tuple[int, int]]:
    """(images per block, blocks) of a static batch in the order they run: whole blocks of g,
    then one block of the rest (each block streams the whole filter: one pass for the rest,
    not one per power of two)."""
    return [(g, n // g)] + ([(n % g, 1)] if n % g else [])


class _Batched:
    """The batch as whole blocks of G images, then one block of the rest (`_levels`; for a `?`
    batch a block of a run-time count, `conv_tail.TailBlock`)."""

    def __init__(self, op, types, blocking, g, n):
        from .conv_tail import TailBlock  # (it extends ImageBlocks, below)

        self.c_starts_zero = False  # the output's fill stays: the blocks add into it
        self.parts = []
        if n is not None:
            first = 0
            for images, blocks in _levels(n, g):
                self.parts.append(ImageBlocks(op, types, blocking, images, first, blocks))
                first += images * blocks
            return
        index = lambda v: arith.constant(ir.IndexType.get(), v)  # noqa: E731
        size = memref.dim(op.operands[2], index(0))
        blocks = arith.divui(size, index(g))
        self.parts.append(ImageBlocks(op, types, blocking, g, index(0), blocks))
        if g > 1:
            first = arith.muli(blocks, index(g))
            self.parts.append(TailBlock(op, types, blocking, g, first, arith.subi(size, first)))

    def emit(self) -> None:
        for part in self.parts:
            part.emit()


class ImageBlocks(Im2colEmitter):
    """The `packed` outer kernel over `blocks` blocks of G images from image `first` on (ints,
    or run-time values); dims 0 image block, 1 filter (m), 2 column g*OH*OW + pixel (n), 3
    (channel, kh, kw) (k). C is a [F, G*OH*OW] buffer added into the output's G images."""

    def __init__(self, op, types, blocking: Blocking, g: int, first, blocks):
        image, weight, out = op.operands
        n, f, oh, ow = types[2].shape
        channels, kh, kw = types[1].shape[1:]
        p, k = oh * ow, channels * kh * kw
        element, out_element = types[0].element_type, types[2].element_type
        flat_weight = memref.collapse_shape(
            ir.MemRefType.get([f, k], element), weight, [[0], [1, 2, 3]]
        )
        self.out = out
        # C and the copy are allocated per block (`_outer_loops`): the blocks stay independent
        self.block_c_type = ir.MemRefType.get([f, g * p], out_element)
        self.block_c = out  # until a block allocates its own
        dynamic = not isinstance(blocks, int)
        extents = (None if dynamic else blocks, f, g * p, k)
        index = ((((1, 1),), ((3, 1),)), (), (((1, 1),), ((2, 1),)))
        sizes = ((out, 0), (flat_weight, 0), (self.block_c, 1), (flat_weight, 1))
        contraction = Contraction(
            op, flat_weight, image, self.block_c, index, extents, "packed", (0,), 1, 2, 3, sizes
        )
        OuterKernel.__init__(self, contraction, types, blocking)
        self.image = image
        self.window = types[1].shape[1:]
        self.out_rows = types[2].shape[2:]
        self.strides, self.dilations = _attr(op, "strides"), _attr(op, "dilations")
        self.g, self.pixels = g, p
        self.c_starts_zero = True  # each block's product overwrites block_c
        self.first = self.index(first) if isinstance(first, int) else first
        if dynamic:
            self._extents[0] = blocks

    def emit(self) -> None:
        self.b, self.b_index = self.c.b, self.c.index[1]
        self._outer_loops(list(self.c.outer), {})

    def _outer_loops(self, dims, ivs, packed=None):
        if dims:
            return super()._outer_loops(dims, ivs)
        c = self.c
        packed_type = ir.MemRefType.get([c.extents[c.k], c.extents[c.n]], self.element)
        packed = memref.alloc(packed_type, [], [])
        self.block_c = memref.alloc(self.block_c_type, [], [])
        self.c = replace(c, c=self.block_c)
        self._pack(ivs, packed)
        self._kernel(ivs)
        memref.dealloc(packed)
        memref.dealloc(self.block_c)

    def _image(self, block, g):
        """The image of block `block`'s g-th column block."""
        return arith.addi(self.first, arith.addi(arith.muli(block, self.index(self.g)), g))

    def _images(self) -> ir.Value:
        """Images in each block (a run-time count in `conv_tail.TailBlock`)."""
        return self.index(self.g)

    def _pack(self, ivs, packed):
        loop = scf.ForOp(self.index(0), self._images(), self.index(1))
        with ir.InsertionPoint(loop.body):
            g = loop.induction_variable
            image = self._image(ivs[0], g)
            self._pack_image(image, packed, arith.muli(g, self.index(self.pixels)))
            scf.YieldOp([])
        self.b, self.b_index = packed, (((3, 1),), ((2, 1),))

    def _kernel(self, ivs):
        super()._kernel(ivs)
        self._add_block(ivs[0])

    def _add_block(self, block):
        """out[block*G + g, f, r, :] += block_c[f, g*P + r*OW : ... + OW]."""
        f = self.c.extents[1]
        oh, ow = self.out_rows
        g_loop = scf.ForOp(self.index(0), self._images(), self.index(1))
        with ir.InsertionPoint(g_loop.body):
            g = g_loop.induction_variable
            image = self._image(block, g)
            column = arith.muli(g, self.index(self.pixels))
            f_loop = scf.ForOp(self.index(0), self.index(f), self.index(1))
            with ir.InsertionPoint(f_loop.body):
                row = f_loop.induction_variable
                r_loop = scf.ForOp(self.index(0), self.index(oh), self.index(1))
                with ir.InsertionPoint(r_loop.body):
                    r = r_loop.induction_variable
                    at_r = arith.addi(column, arith.muli(r, self.index(ow)))
                    for j in range(0, ow, self.lanes):
                        width = min(self.lanes, ow - j)
                        at = arith.addi(at_r, self.index(j)) if j else at_r
                        value = self._load_lanes(self.block_c, [row, at], width)
                        out_at = [image, row, r, self.index(j)]
                        total = arith.addf(value, self._load_lanes(self.out, out_at, width))
                        self._store_lanes(total, self.out, out_at, width)
                    scf.YieldOp([])
                scf.YieldOp([])
            scf.YieldOp([])


def _attr(op: ir.Operation, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]

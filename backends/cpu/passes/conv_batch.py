"""Convolutions on im2col with several images per product: the copy is `[C*KH*KW, G*OH*OW]`
for a block of G images, so the filter `[F, C*KH*KW]` is streamed once per block, not once per
image, and the kernel's lanes run along G*OH*OW columns instead of a 4- or 16-pixel image
(ResNet's late stages: 2x2 and 4x4 outputs). The product goes to a `[F, G*OH*OW]` buffer that
is then added into the output's G images (their columns are not one run in NCHW). The batch
past the last whole block runs as one block of the rest (`conv_tail` for a `?` batch), so no
block reads past the batch. The kernel over blocks is `conv_blocks.ImageBlocks`.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from .conv import CONV, identity_layout, im2col_emitter
from .conv_blocks import ImageBlocks
from .conv_tail import TailBlock
from .kernels import AVX512, Blocking, KernelEmitter, accumulator_type

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

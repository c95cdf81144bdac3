"""One outer kernel over blocks of G images of a convolution on im2col (`conv_batch`): the
copy `[C*KH*KW, G*OH*OW]` of each block, its product into a `[F, G*OH*OW]` buffer, and that
buffer added into the output's G images."""

from __future__ import annotations

from dataclasses import replace

from mlir import ir
from mlir.dialects import arith, memref, scf

from .conv import Im2colEmitter
from .kernels import Blocking, Contraction
from .outer_kernel import OuterKernel


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
        packed, self.block_c = self._buffers()
        self.c = replace(self.c, c=self.block_c)
        self._pack(ivs, packed)
        self._kernel(ivs)
        memref.dealloc(packed)
        memref.dealloc(self.block_c)

    def _buffers(self) -> tuple[ir.Value, ir.Value]:
        """(the block's im2col copy, its C), allocated per block."""
        c = self.c
        packed_type = ir.MemRefType.get([c.extents[c.k], c.extents[c.n]], self.element)
        return memref.alloc(packed_type, [], []), memref.alloc(self.block_c_type, [], [])

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

"""bf16 convolutions on AMX tiles: the image of each batch element copied as im2col, then the
AMX kernel (`amx`) on the product `out[f, p] += W[f, k] x col[k, p]`.

The filter viewed as `[F, C*KH*KW]` is the row operand, k contiguous, read in place; the copy
`col[C*KH*KW, OH*OW]` (one row per (channel, window position), each a run of the image's rows)
is contiguous along the output pixels, which the kernel's VNNI copy interleaves two rows of k
at a time; the output `[F, OH*OW]` of one image takes the result tiles (in place when F and
OH*OW are whole 32 blocks, else through the kernel's scratch rows). The FMA kernels keep the
convolutions this does not take (other types, dynamic sizes but the batch, a view as output).
"""

from __future__ import annotations

from contextlib import ExitStack

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from aten_mlir.backends.cpu.target import cpu_target

from .amx import MIN_MACS, AmxEmitter, enabled
from .amx_pack import DEPTH, ROWS
from .conv import CONV, identity_layout
from .kernels import Contraction

# output pixels copied per vector: one tile row of bf16
LANES = DEPTH


def _attr(op: ir.Operation, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def amx_conv_emitter(op: ir.Operation, types: list[ir.MemRefType], cpu: str = ""):
    """The AMX kernel of conv `op` on im2col, or None (not bf16 x bf16 -> f32, a dynamic size
    other than the batch, a filter or output not in identity layout, too small, no AMX)."""
    if op.name != CONV or not enabled():
        return None
    image, weight, out = types
    if not all(isinstance(t.element_type, ir.BF16Type) for t in (image, weight)):
        return None
    if not isinstance(out.element_type, ir.F32Type):
        return None
    n, f, oh, ow = out.shape
    channels, kh, kw = weight.shape[1:]
    if any(ir.ShapedType.is_dynamic_size(s) for s in (f, oh, ow, channels, kh, kw)):
        return None
    if not (identity_layout(weight) and identity_layout(out)):
        return None
    if image.get_strides_and_offset()[0][-1] != 1:
        return None
    k, p = channels * kh * kw, oh * ow
    if min(f, p) < ROWS or k < ROWS or f * p * k < MIN_MACS:
        return None
    if not cpu_target(cpu or None).amx_bf16:
        return None
    n = None if ir.ShapedType.is_dynamic_size(n) else n
    return AmxConv(op, types, (n, f, p, k))


class AmxConv(AmxEmitter):
    """Dims 0 batch (the loop around the kernel), 1 filter (m, the row operand's rows), 2
    output pixel (n), 3 (channel, kh, kw) (k)."""

    def __init__(self, op: ir.Operation, types, extents):
        image, weight, out = op.operands
        n, f, p, k = extents
        bf16, f32 = ir.BF16Type.get(), ir.F32Type.get()
        batch = ir.ShapedType.get_dynamic_size() if n is None else n
        flat_weight = memref.collapse_shape(
            ir.MemRefType.get([f, k], bf16), weight, [[0], [1, 2, 3]]
        )
        flat_out = memref.collapse_shape(
            ir.MemRefType.get([batch, f, p], f32), out, [[0], [1], [2, 3]]
        )
        # a 1 x 1 window at stride 1 on an image in identity layout: the image is its own
        # im2col, `[N, C, H*W]`
        self.in_place = (
            types[1].shape[2:] == [1, 1]
            and _attr(op, "strides") == [1, 1]
            and identity_layout(types[0])
        )
        if self.in_place:
            self.col = memref.collapse_shape(
                ir.MemRefType.get([batch, k, p], bf16), image, [[0], [1], [2, 3]]
            )
            col_index = (((0, 1),), ((3, 1),), ((2, 1),))
        else:  # one image's im2col, rewritten per batch element before the kernel copies it
            self.col = memref.alloc(ir.MemRefType.get([k, p], bf16), [], [])
            col_index = (((3, 1),), ((2, 1),))
        index = ((((1, 1),), ((3, 1),)), col_index, (((0, 1),), ((1, 1),), ((2, 1),)))
        sizes = ((flat_out, 0), (flat_weight, 0), (flat_out, 2), (flat_weight, 1))
        c = Contraction(
            op, flat_weight, self.col, flat_out, index, extents, "packed", (0,), 1, 2, 3, sizes
        )
        super().__init__(c, types)
        self.image = image
        self.window = types[1].shape[1:]
        self.out_rows = types[2].shape[2:]
        self.strides, self.dilations = _attr(op, "strides"), _attr(op, "dilations")

    def emit(self) -> None:
        super().emit()
        if not self.in_place:
            memref.dealloc(self.col)

    def _dims(self, which: int) -> set[int]:
        # the copy changes with the image: never hoisted out of the batch loop
        dims = super()._dims(which)
        return dims | {0} if which == 1 else dims

    def _outer_loops(self, dims, ivs):
        if not dims and not self.in_place:
            self._im2col(ivs[0])
        super()._outer_loops(dims, ivs)

    def _im2col(self, b: ir.Value) -> None:
        """col[(ch*KH + y)*KW + x, r*OW + j] = image[b, ch, r*sh + y*dh, x*dw + j*sw]; the
        channels are an `scf.parallel` (each writes its own rows)."""
        channels, kh, kw = self.window
        oh, ow = self.out_rows
        (sh, sw), (dh, dw) = self.strides, self.dilations
        bf16 = ir.BF16Type.get()
        t = ir.VectorType.get([LANES], bf16)
        i1 = ir.IntegerType.get_signless(1)
        zeros = arith.constant(t, ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(bf16, 0.0)))
        strided = None
        if sw != 1:
            offsets_type = ir.VectorType.get([LANES], ir.IndexType.get())
            strided = arith.constant(
                offsets_type,
                ir.DenseElementsAttr.get(
                    [ir.IntegerAttr.get(ir.IndexType.get(), i * sw) for i in range(LANES)],
                    type=offsets_type,
                ),
            )
        channel_loop = scf.ParallelOp(
            [], [self.index(0)], [self.index(channels)], [self.index(1)], []
        )
        body = channel_loop.regions[0].blocks.append(ir.IndexType.get())
        with ExitStack() as nest:
            nest.enter_context(ir.InsertionPoint(body))
            ch = body.arguments[0]
            loops = []
            for extent in (kh, kw, oh):
                loops.append(scf.ForOp(self.index(0), self.index(extent), self.index(1)))
                nest.enter_context(ir.InsertionPoint(loops[-1].body))
            y, x, r = (loop.induction_variable for loop in loops)
            row = arith.addi(
                arith.muli(arith.addi(arith.muli(ch, self.index(kh)), y), self.index(kw)), x
            )
            at_y = arith.addi(arith.muli(r, self.index(sh)), arith.muli(y, self.index(dh)))
            at_x = arith.muli(x, self.index(dw))
            at_p = arith.muli(r, self.index(ow))
            for j in range(0, ow, LANES):
                width = min(LANES, ow - j)
                x_j = arith.addi(at_x, self.index(j * sw)) if j else at_x
                p_j = arith.addi(at_p, self.index(j)) if j else at_p
                at = [b, ch, at_y, x_j]
                mask = None
                if width < LANES:
                    mask = vector.create_mask(ir.VectorType.get([LANES], i1), [self.index(width)])
                if strided is not None:
                    if mask is None:
                        mask = vector.create_mask(
                            ir.VectorType.get([LANES], i1), [self.index(LANES)]
                        )
                    value = vector.gather(t, self.image, at, strided, mask, zeros)
                elif mask is None:
                    value = vector.load(t, self.image, at)
                else:
                    value = vector.maskedload(t, self.image, at, mask, zeros)
                if mask is None or width == LANES:
                    vector.store(value, self.col, [row, p_j])
                else:
                    vector.maskedstore(self.col, [row, p_j], mask, value)
            for loop in reversed(loops):
                with ir.InsertionPoint(loop.body):
                    scf.YieldOp([])
        with ir.InsertionPoint(body):
            scf.reduce([], 0)

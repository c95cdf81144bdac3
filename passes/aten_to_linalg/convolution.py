"""Convolutions -> linalg convolutions on a zero-padded input (bias in the accumulator).

2d with groups 1 is `linalg.conv_2d_nchw_fchw` (a 1x1 stride-1 conv of one image over many
pixels: `linalg.matmul` on [F, C] x [C, H*W] views); 1d with groups 1 is the 2d conv of a
unit-height image; the others (3d, grouped) are one `linalg.generic` over channel dims split
into (group, channel). The CPU kernels take those two forms: the named 1d, 3d and grouped 2d ops
had none and ran as scalar loops (Conv3d 38x eager, a 4-group Conv2d 26x). A transposed
convolution is the convolution of the zero-dilated, padded input with the flipped kernel whose
in/out channels are swapped per group. f16/bf16 accumulate in f32 (the named ops cast their
operands to the accumulator type).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg

from . import convolution_tensors as T
from .builder import PARALLEL, REDUCTION, convert, is_float, tensor_type
from .convolution_phases import transposed_by_phases
from .elementwise_core import elementwise
from .registry import register_lowering

_SPATIAL_RANKS = (1, 2, 3)


def conv_out_size(rw, i, k, s, p, d) -> T.Size:
    """floor((i + 2p - d(k-1) - 1) / s) + 1, torch's output size."""
    span = T.sub(rw, T.add(rw, i, 2 * p), T.add(rw, T.mul(rw, d, T.sub(rw, k, 1)), 1))
    return T.add(rw, T.floordiv(rw, span, s), 1)


def conv_nd(rw, x, w, init, stride, dilation, groups) -> ir.Value:
    """Accumulates the (unpadded) convolution of `x` [N, C, I...] with `w` [F, C/g, K...] into
    `init` [N, F, O...]."""
    n = len(stride)
    if n == 1 and groups == 1:
        return _conv_1d_as_2d(rw, x, w, init, stride, dilation)
    if groups == 1 and n == 2 and _pointwise_wide(x, w, init, stride):
        return _pointwise_as_matmul(rw, x, w, init)
    if groups == 1 and n == 2:
        with rw.at():
            return linalg.conv_2d_nchw_fchw(x, w, outs=[init], strides=stride, dilations=dilation)
    xs, ws, os_ = rw.sizes(x), rw.sizes(w), rw.sizes(init)
    cg = T.floordiv(rw, xs[1], groups)
    fg = T.floordiv(rw, ws[0], groups)
    xg = T.expand(
        rw, x, [[0], [1, 2], *[[d + 1] for d in range(2, n + 2)]], [xs[0], groups, cg, *xs[2:]]
    )
    wg = T.expand(rw, w, [[0, 1], *[[d + 1] for d in range(1, n + 2)]], [groups, fg, *ws[1:]])
    og = T.expand(
        rw, init, [[0], [1, 2], *[[d + 1] for d in range(2, n + 2)]], [os_[0], groups, fg, *os_[2:]]
    )
    out = _grouped_generic(rw, xg, wg, og, stride, dilation)
    return T.collapse(rw, out, [[0], [1, 2], *[[d + 1] for d in range(2, n + 2)]])


# Output pixels (H*W, static) from which a 1x1 stride-1 conv of one image is written as the
# product W[F, C] @ X[C, H*W]: one product over all pixels, not one per output row of W pixels
# (1 thread, same process: 256->64 1x1 on 56x56 0.65 -> 0.51 ms, 512->128 on 28x28 0.50 ->
# 0.45; 14x14 even, 0.95-1.01); a product over few pixels keeps the conv form (7x7: the
# kernels read the filter in place there, 0.62 vs 0.78 ms as a product)
POINTWISE_PRODUCT_MIN_PIXELS = 512


def _pointwise_wide(x, w, init, stride) -> bool:
    """One image (static batch 1), a 1x1 window at stride 1 (dilation does not matter) over
    at least POINTWISE_PRODUCT_MIN_PIXELS static pixels, each of which is an output pixel (a
    transposed conv's cropped input can be longer than its output)."""
    xt, wt, ot = tensor_type(x), tensor_type(w), tensor_type(init)
    if any(wt.is_dynamic_dim(d) or wt.get_dim_size(d) != 1 for d in (2, 3)):
        return False
    if any(s != 1 for s in stride) or any(xt.is_dynamic_dim(d) for d in (0, 2, 3)):
        return False
    if xt.shape[2:] != ot.shape[2:]:
        return False
    return (
        xt.get_dim_size(0) == 1
        and xt.get_dim_size(2) * xt.get_dim_size(3) >= POINTWISE_PRODUCT_MIN_PIXELS
    )


def _pointwise_as_matmul(rw, x, w, init) -> ir.Value:
    """out[0, f, p] += w[f, c] * x[0, c, p] as linalg.matmul on views [F, C], [C, H*W], [F, H*W]
    (a named op: elementwise fusion leaves it a product)."""
    image, filters = [[0, 1], [2, 3]], [[0], [1, 2, 3]]
    x2, o2, w2 = T.collapse(rw, x, image), T.collapse(rw, init, image), T.collapse(rw, w, filters)
    with rw.at():
        out = linalg.matmul(w2, x2, outs=[o2])
    return T.expand(rw, out, image, rw.sizes(init))


def _conv_1d_as_2d(rw, x, w, init, stride, dilation) -> ir.Value:
    """[N, C, L] * [F, C, K] as [N, C, 1, L] * [F, C, 1, K] -> [N, F, 1, O] (views, no copy)."""
    unit = [[0], [1], [2, 3]]
    xs, ws, os_ = rw.sizes(x), rw.sizes(w), rw.sizes(init)
    x2 = T.expand(rw, x, unit, [xs[0], xs[1], 1, xs[2]])
    w2 = T.expand(rw, w, unit, [ws[0], ws[1], 1, ws[2]])
    o2 = T.expand(rw, init, unit, [os_[0], os_[1], 1, os_[2]])
    with rw.at():
        out = linalg.conv_2d_nchw_fchw(
            x2, w2, outs=[o2], strides=[1, *stride], dilations=[1, *dilation]
        )
    return T.collapse(rw, out, unit)


def _grouped_generic(rw, xg, wg, og, stride, dilation):
    """out[n,g,f,o..] += x[n,g,c,o*s+k*d..] * w[g,f,c,k..] (loops n,g,f,o.., c,k..)."""
    n = len(stride)
    rank = 3 + n + 1 + n
    o = [T.dim(3 + i) for i in range(n)]
    c = T.dim(3 + n)
    k = [T.dim(4 + n + i) for i in range(n)]
    xin = [o[i] * stride[i] + k[i] * dilation[i] for i in range(n)]
    maps = [
        T.amap(rank, [T.dim(0), T.dim(1), c, *xin]),
        T.amap(rank, [T.dim(1), T.dim(2), c, *k]),
        T.amap(rank, [T.dim(0), T.dim(1), T.dim(2), *o]),
    ]
    acc = tensor_type(og).element_type

    add, mul = (arith.addf, arith.mulf) if is_float(acc) else (arith.addi, arith.muli)

    def body(a, b, out):
        return add(out, mul(convert(a, acc), convert(b, acc)))

    iters = [PARALLEL] * (3 + n) + [REDUCTION] * (1 + n)
    return rw.generic([xg, wg], [og], maps, iters, body)[0]


def bias_init(rw, bias, shape, acc) -> ir.Value:
    """The accumulator [N, F, O...]: `bias` broadcast along the channel dim, or zeros."""
    if bias is None:
        return T.full(rw, shape, acc, 0)
    rank = len(shape)
    init = T.empty(rw, shape, acc)
    maps = [T.amap(rank, [T.dim(1)]), T.identity(rank)]
    return rw.generic([bias], [init], maps, [PARALLEL] * rank, lambda b, _: convert(b, acc))[0]


def flip_transpose_weight(rw, w, groups) -> ir.Value:
    """[G*C, F, K...] (a transposed conv's weight) -> [G*F, C, K...] flipped along K."""
    ws = rw.sizes(w)
    n = len(ws) - 2
    ks = ws[2:]
    c = T.floordiv(rw, ws[0], groups)
    wg = T.expand(rw, w, [[0, 1], *[[d + 1] for d in range(1, n + 2)]], [groups, c, *ws[1:]])
    rank = n + 3
    e = tensor_type(w).element_type
    init = T.empty(rw, [groups, ws[1], c, *ks], e)
    flipped = [ir.AffineConstantExpr.get(ks[i] - 1) - T.dim(3 + i) for i in range(n)]
    maps = [T.amap(rank, [T.dim(0), T.dim(2), T.dim(1), *flipped]), T.identity(rank)]
    out = rw.generic([wg], [init], maps, [PARALLEL] * rank, lambda a, _: a)[0]
    return T.collapse(rw, out, [[0, 1], *[[d] for d in range(2, rank)]])


def dilate_pad(rw, x, stride, low, high) -> ir.Value:
    """`x` [N, C, I...] with s-1 zeros between spatial elements and `low`/`high` zeros around."""
    xs = rw.sizes(x)
    if all(s == 1 for s in stride):
        return T.pad(rw, x, [0, 0, *low], [0, 0, *high], 0)
    spatial = [
        T.add(rw, T.add(rw, T.add(rw, T.mul(rw, T.sub(rw, i, 1), s), 1), lo), hi)
        for i, s, lo, hi in zip(xs[2:], stride, low, high)
    ]
    zeros = T.full(rw, [xs[0], xs[1], *spatial], tensor_type(x).element_type, 0)
    return T.place(rw, x, zeros, [0, 0, *low], [1, 1, *stride])


def transposed_as_conv(rw, x, w, stride, padding, dilation, output_padding, groups):
    """(input, weight) of the ordinary stride-1 convolution computing the transposed one, and the
    per-dim offset to start reading that input at (when padding exceeds the kernel's reach)."""
    ks = [tensor_type(w).get_dim_size(d) for d in range(2, tensor_type(w).rank)]
    reach = [d * (k - 1) for k, d in zip(ks, dilation)]
    low = [r - p for r, p in zip(reach, padding)]
    # output_padding may be an index value (the backward of a dynamically sized conv).
    high = [T.smax(rw, T.add(rw, op, r - p), 0) for r, p, op in zip(reach, padding, output_padding)]
    xp = dilate_pad(rw, x, stride, [max(v, 0) for v in low], high)
    return xp, flip_transpose_weight(rw, w, groups), [max(-v, 0) for v in low]


def convolution(
    rw, x, w, bias, stride, padding, dilation, transposed, output_padding, groups, out_sizes
) -> ir.Value:
    """The convolution of batched `x` in the accumulator type, of sizes `out_sizes`."""
    n = len(stride)
    acc = T.f32_if_reduced(tensor_type(x).element_type)
    crop = [0] * n
    if transposed and any(s > 1 for s in stride):
        return transposed_by_phases(
            rw, x, w, stride, padding, dilation, groups, out_sizes,
            lambda sizes: bias_init(rw, bias, sizes, acc), conv_nd,
        )  # fmt: skip
    if transposed:
        x, w, crop = transposed_as_conv(rw, x, w, stride, padding, dilation, output_padding, groups)
        stride = [1] * n
    else:
        x = T.pad(rw, x, [0, 0, *padding], [0, 0, *padding], 0)
    if any(crop):  # start reading where the wanted outputs start (a view: no copy)
        xs = rw.sizes(x)
        x = T.extract_slice(
            rw, x, [0, 0, *crop], [xs[0], xs[1], *[T.sub(rw, i, c) for i, c in zip(xs[2:], crop)]]
        )
    return conv_nd(rw, x, w, bias_init(rw, bias, out_sizes, acc), stride, dilation, groups)


def _numeric(t: ir.Type) -> bool:
    """A float, or a signed integer wider than bool (torch's CPU convolution runs int8..int64)."""
    if is_float(t):
        return True
    return isinstance(t, ir.IntegerType) and t.is_signless and ir.IntegerType(t).width > 1


@register_lowering("aten.convolution")
def lower_convolution(op, rw):
    """aten.convolution -> linalg.conv_*d_nc*_fc* / conv_2d_ngchw_gfchw / generic, linalg.copy"""
    a = rw.args
    x, w, bias = a["input"], a["weight"], a.get("bias")
    result = rw.result_type()
    if not all(_numeric(t) for t in (result.element_type, tensor_type(x).element_type)):
        return None  # bool, unsigned and complex: torch's CPU convolutions reject them
    wt = tensor_type(w)
    n = wt.rank - 2
    stride, padding, dilation = (_expand_list(a[k], n) for k in ("stride", "padding", "dilation"))
    output_padding = _expand_list(a.get("output_padding") or [0], n)
    groups, transposed = a["groups"], a["transposed"]
    if n not in _SPATIAL_RANKS or any(
        not isinstance(v, int) for v in (*stride, *padding, *dilation)
    ):
        return None
    if transposed and any(wt.is_dynamic_dim(d) for d in range(2, wt.rank)):
        return None  # the flipped kernel's affine map needs static kernel sizes
    if tensor_type(x).rank != n + 2:
        return None  # torch's meta rejects unbatched inputs here (F.conv* adds the batch dim)
    xs, ws = rw.sizes(x), rw.sizes(w)

    def size(d):
        if d == 0:
            return xs[0]
        if d == 1:
            return T.mul(rw, ws[1], groups) if transposed else ws[0]
        i = d - 2
        if transposed:
            span = T.add(rw, T.mul(rw, T.sub(rw, xs[d], 1), stride[i]), 1 + output_padding[i])
            reach = T.mul(rw, dilation[i], T.sub(rw, ws[d], 1))
            return T.sub(rw, T.add(rw, span, reach), 2 * padding[i])
        return conv_out_size(rw, xs[d], ws[d], stride[i], padding[i], dilation[i])

    sizes = T.result_sizes(rw, 0, size)
    out = convolution(
        rw, x, w, bias, stride, padding, dilation, transposed, output_padding, groups, sizes
    )
    if tensor_type(out).element_type != result.element_type:
        out = elementwise(rw, [out], lambda v: v)
    return out


def _expand_list(values, n):
    values = list(values)
    return values * n if len(values) == 1 else values

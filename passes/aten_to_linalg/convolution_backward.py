"""convolution_backward -> convolutions (grad_input), a generic correlation (grad_weight) and a
sum (grad_bias).

grad_input of a convolution is the transposed convolution of grad_output with the same weight
(and the other way round), so it reuses the forward lowering. grad_weight correlates one
operand with the padded other: gw[g, a, b, k] = sum_{n, o} A[n, g, a, o] * B[n, g, b, o*s + k*d]
with (A, B) = (grad_output, input) for a convolution and (input, grad_output) for a transposed
one. Results masked out by output_mask are left as `tensor.empty` (nothing reads them).
"""

from __future__ import annotations

from mlir.dialects import arith

from . import convolution_tensors as T
from .builder import PARALLEL, REDUCTION, convert, is_float, tensor_type
from .convolution import convolution
from .registry import register_lowering


def _round(rw, v, e, sizes):
    """`v` (accumulated in f32 for reduced floats) as element type `e`."""
    if tensor_type(v).element_type == e:
        return v
    rank = len(sizes)
    init = T.empty(rw, sizes, e)
    return rw.generic(
        [v], [init], [T.identity(rank)] * 2, [PARALLEL] * rank, lambda x, _: convert(x, e)
    )[0]


def weight_grad(rw, a, b, groups, stride, dilation, ksizes, acc):
    """gw[g*A + i, j, k..] = sum_{n, o} a[n, g*A + i, o] * b[n, g*B + j, o*s + k*d] (b padded)."""
    n = len(stride)
    asz, bsz = rw.sizes(a), rw.sizes(b)
    ca, cb = T.floordiv(rw, asz[1], groups), T.floordiv(rw, bsz[1], groups)
    split = [[0], [1, 2], *[[d + 1] for d in range(2, n + 2)]]
    ag = T.expand(rw, a, split, [asz[0], groups, ca, *asz[2:]])
    bg = T.expand(rw, b, split, [bsz[0], groups, cb, *bsz[2:]])
    # Loops: g, i, j, k... (parallel), batch, o... (reduction).
    rank = 3 + n + 1 + n
    k = [T.dim(3 + i) for i in range(n)]
    batch = T.dim(3 + n)
    o = [T.dim(4 + n + i) for i in range(n)]
    maps = [
        T.amap(rank, [batch, T.dim(0), T.dim(1), *o]),
        T.amap(
            rank,
            [batch, T.dim(0), T.dim(2), *[o[i] * stride[i] + k[i] * dilation[i] for i in range(n)]],
        ),
        T.amap(rank, [T.dim(0), T.dim(1), T.dim(2), *k]),
    ]
    init = T.full(rw, [groups, ca, cb, *ksizes], acc, 0)

    def body(x, y, s):
        return arith.addf(s, arith.mulf(convert(x, acc), convert(y, acc)))

    iters = [PARALLEL] * (3 + n) + [REDUCTION] * (1 + n)
    out = rw.generic([ag, bg], [init], maps, iters, body)[0]
    return T.collapse(rw, out, [[0, 1], *[[d] for d in range(2, n + 3)]])


def bias_grad(rw, go, acc):
    """sum of `go` [N, C, O...] over all dims but C."""
    rank = tensor_type(go).rank
    c = rw.size(go, 1)
    init = T.full(rw, [c], acc, 0)
    maps = [
        T.amap(rank, [T.dim(1), T.dim(0), *[T.dim(d) for d in range(2, rank)]]),
        T.amap(rank, [T.dim(0)]),
    ]
    iters = [PARALLEL] + [REDUCTION] * (rank - 1)
    return rw.generic([go], [init], maps, iters, lambda x, s: arith.addf(s, convert(x, acc)))[0]


@register_lowering("aten.convolution_backward")
def lower_convolution_backward(op, rw):
    """aten.convolution_backward -> linalg.conv_* (grad_input), linalg.generic (weight, bias)"""
    a = rw.args
    go, x, w = a["grad_output"], a["input"], a["weight"]
    e = tensor_type(go).element_type
    if not all(is_float(tensor_type(v).element_type) for v in (go, x, w)):
        return None
    wt = tensor_type(w)
    n = wt.rank - 2
    if tensor_type(x).rank != n + 2 or any(wt.is_dynamic_dim(d) for d in range(2, wt.rank)):
        return None  # kernel sizes shape the padding and the flipped kernel's map
    stride, padding, dilation = (_expand(a[k], n) for k in ("stride", "padding", "dilation"))
    groups, transposed = a["groups"], a["transposed"]
    mask = list(a["output_mask"])
    acc = T.f32_if_reduced(e)
    xs, ws, gs = rw.sizes(x), rw.sizes(w), rw.sizes(go)
    ks = ws[2:]
    results = []
    if mask[0]:
        if transposed:
            gi = convolution(rw, go, w, None, stride, padding, dilation, False, [0] * n, groups, xs)
        else:
            # The output_padding that makes the transposed convolution as large as the input.
            extra = [
                T.sub(rw, i, T.add(rw, T.mul(rw, T.sub(rw, o, 1), s), 1 - 2 * p + d * (k - 1)))
                for i, o, k, s, p, d in zip(xs[2:], gs[2:], ks, stride, padding, dilation)
            ]
            gi = convolution(rw, go, w, None, stride, padding, dilation, True, extra, groups, xs)
        results.append(_round(rw, gi, e, xs))
    else:
        results.append(rw.empty(rw.result_type(0), xs))
    if mask[1]:
        if transposed:
            gp = T.pad(rw, go, [0, 0, *padding], [0, 0, *padding], 0)
            gw = weight_grad(rw, x, gp, groups, stride, dilation, ks, acc)
        else:
            xp = T.pad(rw, x, [0, 0, *padding], [0, 0, *padding], 0)
            gw = weight_grad(rw, go, xp, groups, stride, dilation, ks, acc)
        results.append(_round(rw, gw, e, ws))
    else:
        results.append(rw.empty(rw.result_type(1), ws))
    bias_sizes = [gs[1]]
    if mask[2]:
        results.append(_round(rw, bias_grad(rw, go, acc), e, bias_sizes))
    else:
        results.append(rw.empty(rw.result_type(2), bias_sizes))
    return results


def _expand(values, n):
    values = list(values)
    return values * n if len(values) == 1 else values

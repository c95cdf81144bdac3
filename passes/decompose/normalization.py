"""Normalization layers -> core aten: the composite norms stop at `native_layer_norm`,
`native_group_norm` and `_native_batch_norm_legit*`, which are core; rms_norm and the training
form of functional batch norm are spelled out in elementwise ops as ATen's composites do."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from .common import _UPCAST, dtype, has_runtime, tensor_of, to_dtype
from .registry import register_decomposition
from .views import reshape, view


@register_decomposition("aten.layer_norm")
def decompose_layer_norm(op, rewriter):
    """aten.layer_norm -> aten.native_layer_norm (its first result)"""
    a = rewriter.args
    x, shape = a["input"], a["normalized_shape"]
    results = None
    if has_runtime(shape):  # a symbolic normalized shape: meta inference cannot run
        outer = rewriter.sizes(x)[: ir.RankedTensorType(x.type).rank - len(shape)]
        stat = tensor_of(op, outer + [1] * len(shape), dtype(x))
        results = [op.results[0].type, stat, stat]
    norm = rewriter.build(
        "aten.native_layer_norm", x, shape, a["weight"], a["bias"], a["eps"], results=results
    )
    return norm.results[0]


@register_decomposition("aten.group_norm")
def decompose_group_norm(op, rewriter):
    """aten.group_norm -> aten.native_group_norm (its first result; N, C, HxW from the input)"""
    a = rewriter.args
    x, groups = a["input"], a["num_groups"]
    sizes = rewriter.sizes(x)
    hxw = 1
    for s in sizes[2:]:
        hxw = rewriter.index_arith(arith.MulIOp, hxw, s)
    n, c = sizes[0], sizes[1]
    results = None
    if has_runtime([n, c, hxw]):
        stat = tensor_of(op, [n, groups], dtype(x))
        results = [op.results[0].type, stat, stat]
    norm = rewriter.build(
        "aten.native_group_norm",
        *(x, a["weight"], a["bias"], n, c, hxw, groups, a["eps"]),
        results=results,
    )
    return norm.results[0]


@register_decomposition("aten.instance_norm")
def decompose_instance_norm(op, rewriter):
    """aten.instance_norm -> aten.group_norm (one group per channel) when it uses the
    input's statistics, else aten._native_batch_norm_legit_no_training (the running ones).
    The running-stat update of the first form is a side effect export does not keep."""
    a = rewriter.args
    x = a["input"]
    if not a["use_input_stats"]:
        if a["running_mean"] is None or a["running_var"] is None:
            return None
        norm = rewriter.build(
            "aten._native_batch_norm_legit_no_training",
            *(x, a["weight"], a["bias"], a["running_mean"], a["running_var"]),
            *(a["momentum"], a["eps"]),
        )
        return norm.results[0]
    channels = rewriter.size(x, 1)
    if not isinstance(channels, int):
        return None  # the group count is an int attribute of native_group_norm
    if dtype(x) == torch.float16 and isinstance(rewriter.size(x, 0), int):
        return _instance_norm_as_batch_norm(rewriter, x, a)
    return rewriter.aten("aten.group_norm", x, channels, a["weight"], a["bias"], a["eps"])


def _instance_norm_as_batch_norm(rewriter, x, a):
    """ATen's instance_norm: batch norm of the (1, N*C, ...) view, weight and bias repeated N
    times. In half its statistics round to half (batch norm's parameter type), which
    group norm's do not: the same values as eager need the same op."""
    sizes = rewriter.sizes(x)
    n, c = sizes[0], sizes[1]
    nc = rewriter.index_arith(arith.MulIOp, n, c)
    flat = reshape(rewriter, x, [1, nc, *sizes[2:]])
    weight, bias = (
        None if v is None else rewriter.aten("aten.repeat", v, [n])
        for v in (a["weight"], a["bias"])
    )
    norm = rewriter.build(
        "aten._native_batch_norm_legit.no_stats", flat, weight, bias, True, a["momentum"], a["eps"]
    )
    return view(rewriter, norm.results[0], sizes, results=[x.type])


@register_decomposition("aten.rms_norm")
def decompose_rms_norm(op, rewriter):
    """aten.rms_norm -> aten.pow.Tensor_Scalar, aten.mean.dim, aten.add.Scalar, aten.rsqrt,
    aten.mul.Tensor (+ aten._to_copy around it for half types), as ATen's composite: computed in
    the opmath type, eps defaulting to that type's machine epsilon."""
    a = rewriter.args
    x, weight, eps = a["input"], a["weight"], a["eps"]
    rank = ir.RankedTensorType(x.type).rank
    dims = list(range(rank - len(a["normalized_shape"]), rank))
    compute = _UPCAST.get(dtype(x), dtype(x))
    if eps is None:
        eps = torch.finfo(torch.float32 if compute == torch.float32 else torch.float64).eps
    up = to_dtype(rewriter, x, compute)
    mean_square = rewriter.aten(
        "aten.mean.dim", rewriter.aten("aten.pow.Tensor_Scalar", up, 2), dims, True
    )
    rstd = rewriter.aten("aten.rsqrt", rewriter.aten("aten.add.Scalar", mean_square, eps))
    out = rewriter.aten("aten.mul.Tensor", up, rstd)
    if weight is not None:
        out = rewriter.aten("aten.mul.Tensor", out, weight)
    return to_dtype(rewriter, out, dtype(op.results[0]))


@register_decomposition("aten._native_batch_norm_legit_functional")
def decompose_native_batch_norm_legit_functional(op, rewriter):
    """aten._native_batch_norm_legit_functional -> aten._native_batch_norm_legit_no_training
    (inference; running stats pass through) or aten._native_batch_norm_legit.no_stats,
    aten.var.correction, aten.mul.Scalar, aten.add.Tensor, aten.squeeze.dims (training: the
    running-stat update with the unbiased variance, as ATen's CPU kernel), with aten._to_copy
    and (reduced floats) aten.mean.dim for the float32 running statistics of bf16/f16 inputs"""
    a = rewriter.args
    x, rm, rv, momentum, eps = (
        a[k] for k in ("input", "running_mean", "running_var", "momentum", "eps")
    )
    if not a["training"]:
        norm = rewriter.build(
            "aten._native_batch_norm_legit_no_training",
            *(x, a["weight"], a["bias"], rm, rv, momentum, eps),
            results=[r.type for r in op.results[:3]],  # meta and CPU kernels differ: [C] / [0]
        )
        # torch's functional op returns reduced-float running statistics widened to float32
        return [
            *norm.results,
            *(
                to_dtype(rewriter, v, dtype(r))
                for v, r in ((rm, op.results[3]), (rv, op.results[4]))
            ),
        ]
    norm = rewriter.build(
        "aten._native_batch_norm_legit.no_stats",
        *(x, a["weight"], a["bias"], True, momentum, eps),
        results=[r.type for r in op.results[:3]],  # bf16 input: bf16 statistics, as eager's
    )
    rank = ir.RankedTensorType(x.type).rank
    dims = [0] + list(range(2, rank))
    # The running statistics are updated in the type torch's functional op returns them in
    # (float32 for a bf16/f16 input: it casts back afterwards), from the batch mean and the
    # unbiased variance in that type, not from the statistics rounded to the input's type.
    wide = dtype(op.results[3])
    mean = norm.results[1]
    if dtype(mean) != wide:
        mean = rewriter.aten("aten.mean.dim", to_dtype(rewriter, x, wide), dims)
    var = rewriter.aten("aten.var.correction", to_dtype(rewriter, x, wide), dims, correction=1)
    updated = []
    for running, batch in ((rm, mean), (rv, var)):
        running = to_dtype(rewriter, running, wide)
        kept = rewriter.aten("aten.mul.Scalar", running, 1 - momentum)
        updated.append(
            rewriter.aten(
                "aten.add.Tensor", kept, rewriter.aten("aten.mul.Scalar", batch, momentum)
            )
        )
    return [*norm.results, *updated]


@register_decomposition("aten._batch_norm_with_update_functional")
def decompose_batch_norm_with_update_functional(op, rewriter):
    """aten._batch_norm_with_update_functional -> aten._native_batch_norm_legit_functional
    (training), aten.full (the reserve: empty, uint8, as ATen's CPU kernel returns it)"""
    a = rewriter.args
    types = [r.type for r in op.results]
    norm = rewriter.build(
        "aten._native_batch_norm_legit_functional",
        *(a["input"], a["weight"], a["bias"], a["running_mean"], a["running_var"]),
        *(True, a["momentum"], a["eps"]),
        results=types[:3] + types[4:],
    )
    reserve_type = ir.RankedTensorType(types[3])
    if reserve_type.has_static_shape is False or reserve_type.shape != [0]:
        return None  # a backend's non-empty reserve (cuDNN, MIOpen) has no equivalent here
    reserve = rewriter.aten("aten.full", [0], 0, dtype=dtype(op.results[3]))
    out, mean, rstd, new_mean, new_var = norm.results
    return [out, mean, rstd, reserve, new_mean, new_var]

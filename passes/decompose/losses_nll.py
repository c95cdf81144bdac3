"""Cross entropy and negative log likelihood -> core aten, along ATen's own chain in
`LossNLL.cpp`: `cross_entropy_loss -> _log_softmax + nll_loss_nd -> nll_loss / nll_loss2d ->
nll_loss_forward / nll_loss2d_forward -> gather, where, sum`, their backward as a scatter. Also the
multilabel margin loss."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, to_dtype
from .losses_common import MEAN, NONE, SUM, apply_reduction, class_weight, is_float, rank
from .losses_common import zeros_like as _zeros
from .registry import register_decomposition
from .views import reshape


def _class_dim(x: ir.Value) -> int:
    return 0 if rank(x) == 1 else 1


@register_decomposition("aten.cross_entropy_loss")
def decompose_cross_entropy_loss(op, rewriter):
    """aten.cross_entropy_loss -> aten._log_softmax, aten.nll_loss_nd (class indices); with
    label smoothing also aten.sum.dim_IntList, aten.where.self, aten.index.Tensor,
    aten.mul.Scalar, aten.add.Tensor; class probabilities (target shaped as the input) ->
    aten.mul.Tensor, aten.sum.dim_IntList, aten.neg, aten.mean, as ATen's three cases"""
    a = rewriter.args
    x, target, weight, reduction = a["self"], a["target"], a["weight"], a["reduction"]
    if rank(x) == 0:
        return None  # ATen rejects it
    class_dim = _class_dim(x)
    logp = rewriter.aten("aten._log_softmax", x, class_dim, False)
    if rank(target) == rank(x) and is_float(target):
        return _prob_target(rewriter, logp, target, weight, reduction, a["label_smoothing"])
    nll = rewriter.aten("aten.nll_loss_nd", logp, target, weight, reduction, a["ignore_index"])
    if a["label_smoothing"] <= 0:
        return nll
    return _label_smoothing(rewriter, logp, nll, a)


def _n_classes(rewriter, logp: ir.Value) -> int | None:
    n = rewriter.size(logp, _class_dim(logp))
    return n if isinstance(n, int) else None


def _prob_target(rewriter, logp, target, weight, reduction, smoothing):
    """-(logp * target * weight) summed over the classes; mean divides by the number of
    samples (numel / C), computed as the mean of the per-sample sums (also NaN when empty)."""
    class_dim = _class_dim(logp)
    if smoothing > 0:
        n_classes = _n_classes(rewriter, logp)
        if n_classes is None:
            return None  # the smoothing term needs C as a number
        target = rewriter.aten("aten.mul.Scalar", target, 1 - smoothing)
        target = rewriter.aten("aten.add.Scalar", target, smoothing / n_classes)
    prod = rewriter.aten("aten.mul.Tensor", logp, target)
    if weight is not None:
        w = class_weight(rewriter, weight, rank(logp), class_dim)
        prod = rewriter.aten("aten.mul.Tensor", prod, w)
    if reduction == SUM:
        return rewriter.aten("aten.neg", rewriter.aten("aten.sum.dim_IntList", prod, None))
    per_sample = rewriter.aten("aten.neg", rewriter.aten("aten.sum.dim_IntList", prod, [class_dim]))
    return rewriter.aten("aten.mean", per_sample) if reduction == MEAN else per_sample


def _label_smoothing(rewriter, logp, nll, a):
    """ATen's `cross_entropy_loss_label_smoothing`: (1 - s) * nll + s / C * smooth, where smooth
    is the (weighted) -sum of log-probabilities over the classes, 0 where the target is
    ignored, reduced like the nll term (mean: over the weights of the kept targets)."""
    target, weight, reduction = a["target"], a["weight"], a["reduction"]
    smoothing, class_dim = a["label_smoothing"], _class_dim(logp)
    n_classes = _n_classes(rewriter, logp)
    if n_classes is None:
        return None  # s / C needs C as a number
    terms = logp
    if weight is not None:
        w = class_weight(rewriter, weight, rank(logp), class_dim)
        terms = rewriter.aten("aten.mul.Tensor", logp, w)
    smooth = rewriter.aten("aten.neg", rewriter.aten("aten.sum.dim_IntList", terms, [class_dim]))
    ignored = rewriter.aten("aten.eq.Scalar", target, a["ignore_index"])
    smooth = rewriter.aten("aten.where.self", ignored, _zeros(rewriter, smooth), smooth)
    if reduction == MEAN:
        kept = _kept_weight(rewriter, target, weight, ignored)
        total = rewriter.aten("aten.sum.dim_IntList", smooth, None)
        smooth = rewriter.aten("aten.div.Tensor", total, kept)
    elif reduction == SUM:
        smooth = rewriter.aten("aten.sum.dim_IntList", smooth, None)
    nll = rewriter.aten("aten.mul.Scalar", nll, 1 - smoothing)
    smooth = rewriter.aten("aten.mul.Scalar", smooth, smoothing / n_classes)
    return rewriter.aten("aten.add.Tensor", nll, smooth)


def _kept_weight(rewriter, target, weight, ignored):
    """The sum of the weights of the targets not ignored (their count without weights)."""
    if weight is None:
        return rewriter.aten(
            "aten.sum.dim_IntList", rewriter.aten("aten.logical_not", ignored), None
        )
    index = to_dtype(rewriter, target, torch.int64)
    index = rewriter.aten("aten.where.self", ignored, _zeros(rewriter, index), index)
    picked = rewriter.aten("aten.index.Tensor", weight, [index])
    picked = rewriter.aten("aten.where.self", ignored, _zeros(rewriter, picked), picked)
    return rewriter.aten("aten.sum.dim_IntList", picked, None)


@register_decomposition("aten.nll_loss_nd")
def decompose_nll_loss_nd(op, rewriter):
    """aten.nll_loss_nd -> aten.nll_loss (1-D, 2-D input), aten.nll_loss2d (4-D), else
    aten.view (to [N, C, 1, rest] and back, after aten.clone if not viewable), aten.nll_loss2d"""
    a = rewriter.args
    x, target = a["self"], a["target"]
    rest = (a["weight"], a["reduction"], a["ignore_index"])
    if rank(x) in (1, 2):
        return rewriter.aten("aten.nll_loss", x, target, *rest)
    if rank(x) == 4:
        return rewriter.aten("aten.nll_loss2d", x, target, *rest)
    if rank(x) == 0:
        return None  # ATen rejects it
    sizes = rewriter.sizes(x)
    n, c, inner = sizes[0], sizes[1], 1
    for s in sizes[2:]:
        inner = rewriter.index_arith(arith.MulIOp, inner, s)
    x4 = reshape(rewriter, x, [n, c, 1, inner])
    t3 = reshape(rewriter, target, [n, 1, inner])
    out = rewriter.aten("aten.nll_loss2d", x4, t3, *rest, results=_nll2d_type(op, x4, a))
    if a["reduction"] != NONE:
        return out
    return reshape(rewriter, out, [n, *sizes[2:]], results=[op.results[0].type])


def _nll2d_type(op, x4: ir.Value, a):
    if a["reduction"] != NONE:
        return [op.results[0].type]
    shape = ir.RankedTensorType(x4.type).shape
    with op.location:
        elem = ir.RankedTensorType(op.results[0].type).element_type
        return [ir.RankedTensorType.get([shape[0], shape[2], shape[3]], elem)]


def _register_forward_stop(op_name: str, target: str) -> None:
    """`nll_loss` / `nll_loss2d` -> their `_forward` op (its output, not the total weight)."""

    def rule(op, rewriter):
        a = rewriter.args
        args = (a["self"], a["target"], a["weight"], a["reduction"], a["ignore_index"])
        return rewriter.build(target, *args).results[0]

    rule.__name__ = "decompose_" + op_name.removeprefix("aten.")
    rule.__doc__ = f"{op_name} -> {target} (its output)"
    register_decomposition(op_name)(rule)


_register_forward_stop("aten.nll_loss", "aten.nll_loss_forward")
_register_forward_stop("aten.nll_loss2d", "aten.nll_loss2d_forward")


def _nll_forward(op, rewriter, class_dim: int):
    """-input[target] (times weight[target]), 0 where target == ignore_index; reduced to the
    sum or the sum over the total weight of the kept targets (NaN when there is none), as
    ATen's CPU kernels. The total weight is 0 for an unreduced batch, as there."""
    a = rewriter.args
    x, target, weight, reduction = a["self"], a["target"], a["weight"], a["reduction"]
    if weight is not None:
        x = rewriter.aten("aten.mul.Tensor", x, class_weight(rewriter, weight, rank(x), class_dim))
    kept = rewriter.aten("aten.ne.Scalar", target, a["ignore_index"])
    index = to_dtype(rewriter, target, torch.int64)  # uint8 targets are class indices too
    index = rewriter.aten("aten.where.self", kept, index, _zeros(rewriter, index))
    picked = rewriter.aten(
        "aten.gather", x, class_dim, rewriter.aten("aten.unsqueeze", index, class_dim)
    )
    picked = rewriter.aten("aten.neg", rewriter.aten("aten.squeeze.dims", picked, [class_dim]))
    loss = rewriter.aten("aten.where.self", kept, picked, _zeros(rewriter, picked))
    elem = dtype(op.results[1])
    if reduction == NONE and rank(x) > 1:
        total = rewriter.aten("aten.full", [], 0, dtype=elem)
        return [loss, total]
    if weight is None:
        total = rewriter.aten("aten.sum.dim_IntList", kept, None, dtype=elem)
    else:
        picked_w = rewriter.aten("aten.index.Tensor", weight, [index])
        picked_w = rewriter.aten("aten.where.self", kept, picked_w, _zeros(rewriter, picked_w))
        total = rewriter.aten("aten.sum.dim_IntList", picked_w, None)
    out = rewriter.aten("aten.sum.dim_IntList", loss, None)
    if reduction == MEAN:
        out = rewriter.aten("aten.div.Tensor", out, total)
    return [out, total]


@register_decomposition("aten.nll_loss_forward")
def decompose_nll_loss_forward(op, rewriter):
    """aten.nll_loss_forward -> aten.ne.Scalar, aten.where.self, aten.gather, aten.neg,
    aten.sum.dim_IntList, aten.div.Tensor (+ aten.mul.Tensor, aten.index.Tensor with a weight)"""
    return _nll_forward(op, rewriter, _class_dim(rewriter.args["self"]))


@register_decomposition("aten.nll_loss2d_forward")
def decompose_nll_loss2d_forward(op, rewriter):
    """aten.nll_loss2d_forward -> aten.ne.Scalar, aten.where.self, aten.gather, aten.neg,
    aten.sum.dim_IntList, aten.div.Tensor (+ aten.mul.Tensor, aten.index.Tensor with a weight)"""
    return _nll_forward(op, rewriter, 1)


def _nll_backward(op, rewriter, class_dim: int):
    """Zeros but, at each kept target's class, -grad_output (over the total weight under mean)
    times weight[target], as ATen's nll_loss_backward kernels write it. A scatter, whose
    targets are clamped into the class dim: ATen's kernel (the fallback otherwise) writes
    wherever an out-of-range target points, and crashed the process on 1 << 40."""
    a = rewriter.args
    g, x, target, weight = a["grad_output"], a["self"], a["target"], a["weight"]
    if not is_float(x):
        return None
    kept = rewriter.aten("aten.ne.Scalar", target, a["ignore_index"])
    index = to_dtype(rewriter, target, torch.int64)
    index = rewriter.aten("aten.where.self", kept, index, _zeros(rewriter, index))
    if a["reduction"] == MEAN:
        g = rewriter.aten("aten.div.Tensor", g, a["total_weight"])
    grad = rewriter.aten("aten.neg", g)
    zeros = _zeros(rewriter, to_dtype(rewriter, kept, dtype(x)))  # the target's shape
    if weight is not None:
        grad = rewriter.aten(
            "aten.mul.Tensor", grad, rewriter.aten("aten.index.Tensor", weight, [index])
        )
    value = rewriter.aten("aten.where.self", kept, grad, zeros)  # ignored: 0 even if grad is inf
    return rewriter.aten(
        "aten.scatter.src",
        _zeros(rewriter, x),
        class_dim,
        rewriter.aten("aten.unsqueeze", index, class_dim),
        rewriter.aten("aten.unsqueeze", value, class_dim),
        results=[op.results[0].type],
    )


@register_decomposition("aten.nll_loss_backward")
def decompose_nll_loss_backward(op, rewriter):
    """aten.nll_loss_backward -> aten.ne.Scalar, aten.where.self, aten.neg, aten.scatter.src
    (+ aten.div.Tensor under mean, aten.index.Tensor with a weight)"""
    return _nll_backward(op, rewriter, _class_dim(rewriter.args["self"]))


@register_decomposition("aten.nll_loss2d_backward")
def decompose_nll_loss2d_backward(op, rewriter):
    """aten.nll_loss2d_backward -> aten.ne.Scalar, aten.where.self, aten.neg, aten.scatter.src
    (+ aten.div.Tensor under mean, aten.index.Tensor with a weight)"""
    return _nll_backward(op, rewriter, 1)


@register_decomposition("aten.multilabel_margin_loss")
def decompose_multilabel_margin_loss(op, rewriter):
    """aten.multilabel_margin_loss -> aten.multilabel_margin_loss_forward (its output)"""
    a = rewriter.args
    out = rewriter.build(
        "aten.multilabel_margin_loss_forward", a["self"], a["target"], a["reduction"]
    )
    return out.results[0]


@register_decomposition("aten.multilabel_margin_loss_forward")
def decompose_multilabel_margin_loss_forward(op, rewriter):
    """aten.multilabel_margin_loss_forward -> aten.lt.Scalar, aten.cumsum, aten.eq.Scalar,
    aten.where.self, aten.scatter_add, aten.gather, aten.unsqueeze, aten.neg, aten.add.Scalar,
    aten.add.Tensor, aten.gt.Scalar, aten.logical_and, aten.sum.dim_IntList, aten.div.Scalar,
    aten.mean. The targets of a row are its entries before the first negative one; the loss sums
    1 - x[target] + x[other] over the targets and the non-target classes where it is > 0 (so a
    NaN term is skipped, as in ATen's loop), over C."""
    a = rewriter.args
    x, target, reduction = a["self"], a["target"], a["reduction"]
    n_classes = rewriter.size(x, -1) if rank(x) else 1
    if not isinstance(n_classes, int):
        return None  # the division by C takes a number
    x2, t2 = x, target
    for _ in range(2 - rank(x)):  # ATen treats 0-D and 1-D inputs as one row
        x2 = rewriter.aten("aten.unsqueeze", x2, 0)
        t2 = rewriter.aten("aten.unsqueeze", t2, 0)
    negative = rewriter.aten("aten.lt.Scalar", t2, 0)
    valid = rewriter.aten("aten.eq.Scalar", rewriter.aten("aten.cumsum", negative, 1), 0)
    index = rewriter.aten("aten.where.self", valid, t2, _zeros(rewriter, t2))
    counts = rewriter.aten(
        "aten.scatter_add", _zeros(rewriter, t2), 1, index, to_dtype(rewriter, valid, torch.int64)
    )
    is_target = rewriter.aten("aten.gt.Scalar", counts, 0)
    picked = rewriter.aten("aten.gather", x2, 1, index)
    # z[n, j, d] = (1 - x[n, target_j]) + x[n, d]
    one_minus = rewriter.aten("aten.add.Scalar", rewriter.aten("aten.neg", picked), 1)
    first = rewriter.aten("aten.unsqueeze", one_minus, 2)
    z = rewriter.aten("aten.add.Tensor", first, rewriter.aten("aten.unsqueeze", x2, 1))
    counted = rewriter.aten(
        "aten.logical_and",
        rewriter.aten("aten.unsqueeze", valid, 2),
        rewriter.aten("aten.unsqueeze", rewriter.aten("aten.logical_not", is_target), 1),
    )
    counted = rewriter.aten("aten.logical_and", counted, rewriter.aten("aten.gt.Scalar", z, 0))
    z = rewriter.aten("aten.where.self", counted, z, _zeros(rewriter, z))
    loss = rewriter.aten(
        "aten.div.Scalar", rewriter.aten("aten.sum.dim_IntList", z, [1, 2]), n_classes
    )
    is_target = to_dtype(rewriter, is_target, dtype(op.results[1]))
    if rank(x) < 2:
        # ATen's meta function types an unreduced single row [1], its CPU kernel returns []
        if rank(op.results[0]) == 0:
            loss = rewriter.aten("aten.squeeze.dims", loss, [0])
        is_target = reshape(rewriter, is_target, rewriter.sizes(target))
    return [apply_reduction(rewriter, loss, reduction), is_target]

"""Attention -> core aten: softmax overloads stop at `_softmax`/`_log_softmax`, and
scaled_dot_product_attention takes ATen's math path (`_scaled_dot_product_attention_math`) with
`bmm` on flattened batch dims, the boolean/causal masks made additive, and ATen's "safe"
softmax (a fully masked row gives zeros, as the eager CPU kernels do, not NaN).
"""

from __future__ import annotations

import math

import torch
from mlir import ir
from mlir.dialects import arith

from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition


def _softmax(core_name, op, rewriter):
    a = rewriter.args
    x = a["self"] if a["dtype"] is None else to_dtype(rewriter, a["self"], a["dtype"])
    return rewriter.aten(core_name, x, a["dim"], False)


@register_decomposition("aten.softmax.int")
def decompose_softmax(op, rewriter):
    """aten.softmax.int -> aten._softmax (after aten._to_copy when a dtype is given)"""
    return _softmax("aten._softmax", op, rewriter)


@register_decomposition("aten.log_softmax.int")
def decompose_log_softmax(op, rewriter):
    """aten.log_softmax.int -> aten._log_softmax (after aten._to_copy when a dtype is given)"""
    return _softmax("aten._log_softmax", op, rewriter)


@register_decomposition("aten._softmax_backward_data")
def decompose_softmax_backward_data(op, rewriter):
    """aten._softmax_backward_data -> aten.mul.Tensor, aten.sum.dim_IntList, aten.sub.Tensor
    (+ aten._to_copy to the input dtype): y * (g - sum(g * y, dim))"""
    a = rewriter.args
    grad, out, dim = a["grad_output"], a["output"], a["dim"]
    dot = rewriter.aten(
        "aten.sum.dim_IntList", rewriter.aten("aten.mul.Tensor", grad, out), [dim], True
    )
    grad_input = rewriter.aten("aten.mul.Tensor", out, rewriter.aten("aten.sub.Tensor", grad, dot))
    return to_dtype(rewriter, grad_input, dtype(op.results[0]))


def _reshape(op, rewriter, x: ir.Value, name: str, sizes: list) -> ir.Value:
    """`aten.view`/`aten.expand` to `sizes` (ints or runtime index values)."""
    runtime = any(isinstance(s, ir.Value) for s in sizes)
    results = [tensor_of(op, sizes, dtype(x))] if runtime else None
    return rewriter.aten(name, x, sizes, results=results)


def _broadcast_dim(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b) if 1 in (a, b) else a
    if isinstance(a, int):
        return b if a == 1 else a
    return a if b == 1 or not isinstance(b, int) else b


def _product(rewriter, sizes):
    total = 1
    for s in sizes:
        total = rewriter.index_arith(arith.MulIOp, total, s)
    return total


def _batched(op, rewriter, x: ir.Value, batch: list, flat) -> ir.Value:
    """`x` [*b, M, K] broadcast to `batch` and flattened to [prod(batch), M, K]."""
    sizes = rewriter.sizes(x)
    if sizes[:-2] != batch:
        x = _reshape(op, rewriter, x, "aten.expand", batch + sizes[-2:])
    if len(batch) == 1:
        return x
    # reshape's copy: q/k/v are often transposes, and expanded ones have no flat view either.
    x = rewriter.aten("aten.clone", x, memory_format=torch.contiguous_format)
    return _reshape(op, rewriter, x, "aten.view", [flat] + sizes[-2:])


def _repeat_kv_heads(op, rewriter, x: ir.Value, groups: int) -> ir.Value:
    """[..., H, S, E] -> [..., H * groups, S, E], each head repeated `groups` times in place
    (repeat_interleave on dim -3, as ATen's GQA preprocessing)."""
    sizes = rewriter.sizes(x)
    wide = rewriter.aten("aten.unsqueeze", x, -3)
    wide = _reshape(op, rewriter, wide, "aten.expand", sizes[:-2] + [groups] + sizes[-2:])
    wide = rewriter.aten("aten.clone", wide, memory_format=torch.contiguous_format)
    heads = rewriter.index_arith(arith.MulIOp, sizes[-3], groups)
    return _reshape(op, rewriter, wide, "aten.view", sizes[:-3] + [heads] + sizes[-2:])


def _causal_mask(op, rewriter, q: ir.Value, k: ir.Value) -> ir.Value:
    """The boolean [L, S] lower triangle (column <= row), ATen's `ones(L, S).tril()`."""
    positions = []
    for value in (q, k):
        n = rewriter.size(value, -2)
        results = [tensor_of(op, [n], torch.int64)] if isinstance(n, ir.Value) else None
        positions.append(
            rewriter.aten("aten.arange.start_step", 0, n, 1, dtype=torch.int64, results=results)
        )
    rows = rewriter.aten("aten.unsqueeze", positions[0], 1)
    return rewriter.aten("aten.ge.Tensor", rows, positions[1])


def _additive_mask(rewriter, mask: ir.Value, elem: torch.dtype) -> ir.Value:
    """A boolean mask as 0 (attend) / -inf (masked) in `elem`, ATen's convert_boolean_attn_mask."""
    if dtype(mask) != torch.bool:
        return mask
    zero = rewriter.aten("aten.scalar_tensor", 0.0, dtype=elem)
    neg_inf = rewriter.aten("aten.scalar_tensor", -math.inf, dtype=elem)
    return rewriter.aten("aten.where.self", mask, zero, neg_inf)


def _safe_softmax(rewriter, scores: ir.Value) -> ir.Value:
    """softmax over the last dim with rows that are all -inf giving 0 (ATen `_safe_softmax`)."""
    probs = rewriter.aten("aten._softmax", scores, -1, False)
    live = rewriter.aten("aten.ne.Scalar", scores, -math.inf)
    any_live = rewriter.aten("aten.any.dim", live, -1, True)
    zeros = rewriter.aten("aten.full_like", probs, 0)
    return rewriter.aten("aten.where.self", any_live, probs, zeros)


def _lift(rewriter, t, rank: int, target: int):
    for _ in range(target - rank):
        t = rewriter.aten("aten.unsqueeze", t, 0)
    return t


def _sdpa_inputs(op, rewriter):
    """(q, k, v, scale) after GQA head repetition, or None when the rule does not apply."""
    a = rewriter.args
    q, k, v = a["query"], a["key"], a["value"]
    ranks = [ir.RankedTensorType(t.type).rank for t in (q, k, v)]
    if min(ranks) < 3:
        return None
    # Batch dims broadcast from the right, as in ATen's math path: lift the lower-rank operands.
    q, k, v = (_lift(rewriter, t, r, max(ranks)) for t, r in zip((q, k, v), ranks))
    if a["is_causal"] and a["attn_mask"] is not None:
        return None  # an error in ATen
    scale = a["scale"]
    if scale is None:
        head_dim = rewriter.size(q, -1)
        if not isinstance(head_dim, int):
            return None
        scale = 1.0 / math.sqrt(head_dim)
    if a.get("enable_gqa", True):  # the CPU flash op has no flag: its heads tell
        hq, hk = rewriter.size(q, -3), rewriter.size(k, -3)
        if not (isinstance(hq, int) and isinstance(hk, int)):
            return None
        if hq != hk:
            k = _repeat_kv_heads(op, rewriter, k, hq // hk)
            v = _repeat_kv_heads(op, rewriter, v, hq // hk)
    return q, k, v, scale


@register_decomposition("aten.scaled_dot_product_attention")
def decompose_scaled_dot_product_attention(op, rewriter):
    """aten.scaled_dot_product_attention -> aten.permute, aten.expand, aten.clone, aten.view,
    aten.bmm,
    aten.mul.Scalar, aten.arange.start_step, aten.unsqueeze, aten.ge.Tensor, aten.scalar_tensor,
    aten.where.self, aten.add.Tensor, aten._softmax, aten.ne.Scalar, aten.any.dim,
    aten.full_like, aten.native_dropout.

    The math path: dropout(softmax(q @ k^T * scale + mask)) @ v."""
    done = _attention(op, rewriter, rewriter.args["dropout_p"])
    return None if done is None else done[0]


@register_decomposition("aten._scaled_dot_product_flash_attention_for_cpu")
def decompose_flash_attention_cpu(op, rewriter):
    """aten._scaled_dot_product_flash_attention_for_cpu -> aten.permute, aten.expand, aten.clone,
    aten.view, aten.bmm, aten.mul.Scalar, aten.arange.start_step, aten.unsqueeze, aten.ge.Tensor,
    aten.scalar_tensor, aten.where.self, aten.add.Tensor, aten._softmax, aten.ne.Scalar,
    aten.any.dim, aten.full_like, aten.logsumexp, aten._to_copy (no dropout)

    The math path with the true `logsumexp` of the scaled, masked scores. A rule of ours keeps
    torch's table from decomposing the op while AOTAutograd traces (`backends/dynamo.py`): that
    one leaves the probabilities in the logsumexp slot, which the eager backward kernel would
    read if its own rule ever declined."""
    if rewriter.args["dropout_p"]:
        return None  # the backward must see eager's own dropout mask
    done = _attention(op, rewriter, 0.0)
    if done is None:
        return None
    out, scores = done
    wide = to_dtype(rewriter, scores, dtype(op.results[1]))  # f32 for bf16 inputs, as eager's
    return [out, rewriter.aten("aten.logsumexp", wide, [-1], False)]


def _attention(op, rewriter, dropout_p):
    """(dropout(softmax(q @ k^T * scale + mask)) @ v in [N, L, H, E] memory for rank 4, the
    scaled masked scores), or None when the rule does not apply."""
    inputs = _sdpa_inputs(op, rewriter)
    if inputs is None:
        return None
    q, k, v, scale = inputs
    rank = ir.RankedTensorType(q.type).rank
    q_sizes, k_sizes = rewriter.sizes(q), rewriter.sizes(k)
    batch = [_broadcast_dim(a, b) for a, b in zip(q_sizes[:-2], k_sizes[:-2])]
    flat = _product(rewriter, batch)
    key_t = rewriter.aten("aten.permute", k, list(range(rank - 2)) + [rank - 1, rank - 2])
    scores = rewriter.aten(
        "aten.bmm",
        _batched(op, rewriter, q, batch, flat),
        _batched(op, rewriter, key_t, batch, flat),
        results=[tensor_of(op, [flat, q_sizes[-2], k_sizes[-2]], dtype(q))],
    )
    scores = _reshape(op, rewriter, scores, "aten.view", batch + [q_sizes[-2], k_sizes[-2]])
    scores = rewriter.aten("aten.mul.Scalar", scores, scale)
    mask = rewriter.args["attn_mask"]
    if rewriter.args["is_causal"]:
        mask = _causal_mask(op, rewriter, q, k)
    if mask is not None:
        mask = _additive_mask(rewriter, mask, dtype(q))
        scores = rewriter.aten("aten.add.Tensor", scores, mask)
        probs = _safe_softmax(rewriter, scores)
    else:
        probs = rewriter.aten("aten._softmax", scores, -1, False)
    if dropout_p:
        # ATen's math path drops attention weights (scaled by 1 / (1 - p)) before `@ v`.
        probs = rewriter.build("aten.native_dropout", probs, dropout_p, True)
        probs = probs.results[0]
    v_sizes = rewriter.sizes(v)
    out = rewriter.aten(
        "aten.bmm",
        _batched(op, rewriter, probs, batch, flat),
        _batched(op, rewriter, v, batch, flat),
        results=[tensor_of(op, [flat, q_sizes[-2], v_sizes[-1]], dtype(q))],
    )
    out = rewriter.aten(
        "aten.view", out, batch + [q_sizes[-2], v_sizes[-1]], results=[op.results[0].type]
    )
    if rank != 4:
        return out, scores
    # Values are done; this only gives the result the [N, L, H, E] memory layout the eager CPU
    # kernel gives for transposed projections (HF models), so that the program's later `view`
    # (export traced it on that layout) stays valid when run eagerly. torch's own decomposition
    # of the CPU flash kernel does the same (L-major, which breaks that view).
    swapped = rewriter.aten("aten.permute", out, [0, 2, 1, 3])
    swapped = rewriter.aten("aten.clone", swapped, memory_format=torch.contiguous_format)
    return rewriter.aten("aten.permute", swapped, [0, 2, 1, 3]), scores

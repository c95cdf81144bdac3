"""The CPU flash attention's backward -> core aten, the math of its gradient: AOTAutograd's
backward of `scaled_dot_product_attention` on CPU holds
`_scaled_dot_product_flash_attention_for_cpu_backward` whole (its forward was decomposed, its
derivative was not). With P = softmax(q k^T * scale + mask) recomputed:
dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)), dQ = dS K * scale, dK = dS^T Q * scale.
Grouped heads (GQA: `enable_gqa`, k and v with fewer heads than q, as LLaMA's attention in
transformers calls it) repeat k and v per group and sum each group's dK and dV back.

The rule must take every case it can: the eager kernel it would otherwise fall back to reads
the saved `logsumexp`, and torch's forward decomposition puts the probabilities in that slot
(a silently wrong gradient).
"""

from __future__ import annotations

import math

from .attention import (
    _additive_mask,
    _batched,
    _broadcast_dim,
    _causal_mask,
    _product,
    _repeat_kv_heads,
    _reshape,
    _safe_softmax,
)
from .common import dtype, tensor_of, to_dtype
from .registry import register_decomposition


def _bmm(op, rewriter, a, b, batch, flat, sizes):
    """`a @ b` over the broadcast batch dims, as [*batch, *sizes]."""
    product = rewriter.aten(
        "aten.bmm",
        _batched(op, rewriter, a, batch, flat),
        _batched(op, rewriter, b, batch, flat),
        results=[tensor_of(op, [flat, *sizes], dtype(a))],
    )
    return _reshape(op, rewriter, product, "aten.view", batch + sizes)


def _transposed(rewriter, x, rank):
    return rewriter.aten("aten.permute", x, list(range(rank - 2)) + [rank - 1, rank - 2])


def _head_groups(q_sizes, k_sizes, v_sizes) -> int | None:
    """How many q heads share one k/v head: 1 when the batch dims agree, the ratio when only the
    head dim (-3) differs and divides (GQA), else None."""
    static = [
        [d if isinstance(d, int) else None for d in t[:-2]] for t in (q_sizes, k_sizes, v_sizes)
    ]
    differs = {i for t in static[1:] for i, (x, y) in enumerate(zip(static[0], t)) if x != y}
    if not differs:
        return 1
    head = len(static[0]) - 1
    if differs != {head} or None in (q := static[0][head], k := static[1][head], static[2][head]):
        return None
    if static[2][head] != k or q % k:
        return None
    return q // k


def _group_sum(op, rewriter, grad, groups: int):
    """[..., H * groups, S, E] -> [..., H, S, E]: the gradients of one repeated head summed."""
    sizes = rewriter.sizes(grad)
    heads = sizes[-3] // groups
    split = _reshape(op, rewriter, grad, "aten.view", sizes[:-3] + [heads, groups] + sizes[-2:])
    return rewriter.aten("aten.sum.dim_IntList", split, [len(sizes) - 2], False)


@register_decomposition("aten._scaled_dot_product_flash_attention_for_cpu_backward")
def decompose_flash_attention_cpu_backward(op, rewriter):
    """aten._scaled_dot_product_flash_attention_for_cpu_backward -> aten.bmm, aten.permute,
    aten.expand, aten.clone, aten.view, aten.mul.Scalar, aten.add.Tensor, aten.sub.Tensor,
    aten._softmax, aten.ne.Scalar, aten.any.dim, aten.full_like, aten.where.self,
    aten.mul.Tensor, aten.sum.dim_IntList, aten.unsqueeze, aten._to_copy (no dropout: its mask
    is not saved)"""
    a = rewriter.args
    if a["dropout_p"]:
        return None
    grad, q, k, v, out = (a[n] for n in ("grad_out", "query", "key", "value", "out"))
    rank = len(rewriter.sizes(q))
    if rank < 3 or any(len(rewriter.sizes(t)) != rank for t in (k, v, grad, out)):
        return None
    q_sizes, k_sizes, v_sizes = rewriter.sizes(q), rewriter.sizes(k), rewriter.sizes(v)
    groups = _head_groups(q_sizes, k_sizes, v_sizes)
    if groups is None:
        return None
    if groups > 1:
        k, v = (_repeat_kv_heads(op, rewriter, t, groups) for t in (k, v))
        k_sizes, v_sizes = rewriter.sizes(k), rewriter.sizes(v)
    scale = a["scale"]
    if scale is None:
        head_dim = q_sizes[-1]
        if not isinstance(head_dim, int):
            return None
        scale = 1.0 / math.sqrt(head_dim)
    batch = [_broadcast_dim(x, y) for x, y in zip(q_sizes[:-2], k_sizes[:-2])]
    flat = _product(rewriter, batch)
    length, source = q_sizes[-2], k_sizes[-2]
    scores = _bmm(op, rewriter, q, _transposed(rewriter, k, rank), batch, flat, [length, source])
    scores = rewriter.aten("aten.mul.Scalar", scores, scale)
    mask = a["attn_mask"]
    if a["is_causal"]:
        mask = _causal_mask(op, rewriter, q, k)
    if mask is not None:
        scores = rewriter.aten("aten.add.Tensor", scores, _additive_mask(rewriter, mask, dtype(q)))
    # The probabilities are recomputed whole, not from the saved `logsumexp`: torch's own
    # decomposition of the forward saves the probabilities in that slot instead.
    if mask is not None:
        probs = _safe_softmax(rewriter, scores)
    else:
        probs = rewriter.aten("aten._softmax", scores, -1, False)
    grad_v = _bmm(
        op, rewriter, _transposed(rewriter, probs, rank), grad, batch, flat, [source, v_sizes[-1]]
    )
    grad_p = _bmm(op, rewriter, grad, _transposed(rewriter, v, rank), batch, flat, [length, source])
    row = rewriter.aten(
        "aten.sum.dim_IntList", rewriter.aten("aten.mul.Tensor", grad, out), [-1], True
    )
    grad_s = rewriter.aten("aten.mul.Tensor", probs, rewriter.aten("aten.sub.Tensor", grad_p, row))
    grad_q = _bmm(op, rewriter, grad_s, k, batch, flat, [length, q_sizes[-1]])
    grad_k = _bmm(
        op, rewriter, _transposed(rewriter, grad_s, rank), q, batch, flat, [source, k_sizes[-1]]
    )
    grad_q = rewriter.aten("aten.mul.Scalar", grad_q, scale)
    grad_k = rewriter.aten("aten.mul.Scalar", grad_k, scale)
    if groups > 1:
        grad_k, grad_v = (_group_sum(op, rewriter, g, groups) for g in (grad_k, grad_v))
    return [to_dtype(rewriter, g, dtype(r)) for g, r in zip((grad_q, grad_k, grad_v), op.results)]

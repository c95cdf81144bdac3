"""`nn.TransformerEncoderLayer`'s inference fast path -> core aten. In eval mode without grad
(`torch.no_grad()`, what `torch.compile` of a served encoder sees) the layer calls
`aten._transformer_encoder_layer_fwd`, one op for the whole layer; this is its math: multi-head
self-attention (one packed qkv projection, `scaled_dot_product_attention`, the output
projection) and the feed-forward block, each with its residual and layer norm, before
(`norm_first`) or after.
"""

from __future__ import annotations

import torch

from .common import dtype, tensor_of
from .registry import register_decomposition


def _attention(op, rw, x, heads: int):
    """x [B, L, E] -> self-attention output [B, L, E] (before the output projection)."""
    a = rw.args
    batch, length, embed = rw.sizes(x)
    head_dim = embed // heads
    qkv = rw.aten("aten.linear", x, a["qkv_weight"], a["qkv_bias"])
    split = [batch, length, 3, heads, head_dim]
    qkv = rw.aten("aten.view", qkv, split, results=[tensor_of(op, split, dtype(x))])
    qkv = rw.aten("aten.permute", qkv, [2, 0, 3, 1, 4])  # [3, B, H, L, D]
    q, k, v = (rw.aten("aten.select.int", qkv, 0, i) for i in range(3))
    out = rw.aten("aten.scaled_dot_product_attention", q, k, v)
    out = rw.aten("aten.permute", out, [0, 2, 1, 3])  # [B, L, H, D]
    out = rw.aten("aten.clone", out, memory_format=torch.contiguous_format)
    return rw.aten("aten.view", out, [batch, length, embed], results=[x.type])


def _norm(rw, x, k: int):
    a = rw.args
    embed = rw.size(x, -1)
    return rw.aten(
        "aten.layer_norm", x, [embed], a[f"norm_weight_{k}"], a[f"norm_bias_{k}"], a["eps"]
    )


def _feed_forward(rw, x):
    a = rw.args
    hidden = rw.aten("aten.linear", x, a["ffn_weight_1"], a["ffn_bias_1"])
    hidden = rw.aten("aten.gelu", hidden) if a["use_gelu"] else rw.aten("aten.relu", hidden)
    return rw.aten("aten.linear", hidden, a["ffn_weight_2"], a["ffn_bias_2"])


@register_decomposition("aten._transformer_encoder_layer_fwd")
def decompose_transformer_encoder_layer_fwd(op, rewriter):
    """aten._transformer_encoder_layer_fwd -> aten.linear, aten.view, aten.permute,
    aten.select.int, aten.scaled_dot_product_attention, aten.clone, aten.add.Tensor,
    aten.layer_norm, aten.gelu / aten.relu (no mask: a masked call stays whole)"""
    rw = rewriter
    a = rw.args
    src = a["src"]
    if a["mask"] is not None or len(rw.sizes(src)) != 3:
        return None
    heads = a["num_heads"]
    embed = rw.size(src, -1)
    if not isinstance(embed, int) or embed % heads:
        return None

    def attention(x):
        projected = rw.aten("aten.linear", _attention(op, rw, x, heads), a["proj_weight"])
        return rw.aten("aten.add.Tensor", projected, a["proj_bias"])

    if a["norm_first"]:
        x = rw.aten("aten.add.Tensor", src, attention(_norm(rw, src, 1)))
        return rw.aten("aten.add.Tensor", x, _feed_forward(rw, _norm(rw, x, 2)))
    x = _norm(rw, rw.aten("aten.add.Tensor", src, attention(src)), 1)
    return _norm(rw, rw.aten("aten.add.Tensor", x, _feed_forward(rw, x)), 2)

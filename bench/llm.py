"""LLM blocks at real sizes, written here so the KV cache is a plain input tensor (Hugging Face's
cache objects are not program inputs an exported graph can take):

- `LlamaLayer`: one LLaMA decoder layer (RMSNorm, rotary embeddings, multi-head attention,
  SiLU-gated MLP) at the 7B dims by default; `forward(x)` is prefill (causal), `forward(x, k, v)`
  one decode step over a cache of k.shape[2] positions, returning the new token's k and v too.
- `GPT2Decode`: GPT-2 small's decode step (embeddings, 12 pre-norm blocks, tied LM head): token
  ids [batch, 1] and the stacked caches [layers, batch, heads, positions, 64] -> logits and the
  new keys and values. Random weights (the layout of `GPT2LMHeadModel`, not its checkpoint).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class RMSNorm(nn.Module):
    def __init__(self, width: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, width=4096, heads=32, hidden=11008, positions=2048, base=10000.0):
        super().__init__()
        self.heads, head = heads, width // heads
        self.norm1, self.norm2 = RMSNorm(width), RMSNorm(width)
        self.q, self.k, self.v, self.o = (nn.Linear(width, width, bias=False) for _ in range(4))
        self.gate = nn.Linear(width, hidden, bias=False)
        self.up = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)
        inv = 1.0 / base ** (torch.arange(0, head, 2).float() / head)
        angles = torch.outer(torch.arange(positions).float(), inv)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def _heads(self, t, b, s):
        return t.reshape(b, s, self.heads, -1).transpose(1, 2)

    def forward(self, x, k_cache=None, v_cache=None):
        b, s, w = x.shape
        start = 0 if k_cache is None else k_cache.shape[2]
        h = self.norm1(x)
        q, k, v = (self._heads(p(h), b, s) for p in (self.q, self.k, self.v))
        cos, sin = self.cos[start : start + s], self.sin[start : start + s]
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        if k_cache is None:
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # one new token attends to the whole cache and itself: no mask
            keys, values = torch.cat((k_cache, k), dim=2), torch.cat((v_cache, v), dim=2)
            a = F.scaled_dot_product_attention(q, keys, values)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, w))
        h = self.norm2(x)
        x = x + self.down(F.silu(self.gate(h)) * self.up(h))
        return x if k_cache is None else (x, k, v)


class _GPT2Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc, self.fc_proj = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x, past_k, past_v):
        b, s, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(w, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        keys, values = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
        a = F.scaled_dot_product_attention(q, keys, values)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, w))
        x = x + self.fc_proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x, k, v


class GPT2Decode(nn.Module):
    def __init__(self, layers=12, width=768, heads=12, vocab=50257, positions=1024):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(positions, width)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.blocks = nn.ModuleList(_GPT2Block(width, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)

    def forward(self, ids, past_k, past_v):
        position = past_k.shape[3]
        x = self.wte(ids) + self.wpe.weight[position : position + ids.shape[1]]
        keys, values = [], []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, past_k[i], past_v[i])
            keys.append(k)
            values.append(v)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # the LM head is tied to wte
        return logits, torch.stack(keys), torch.stack(values)


def gpt2_cache(batch: int = 1, positions: int = 256, layers=12, heads=12, head=64):
    shape = (layers, batch, heads, positions, head)
    return torch.randn(shape), torch.randn(shape)

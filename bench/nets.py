"""The small networks of the bench (an MLP, a pre-norm transformer layer, single ops), shared by
the static, dynamic and bf16 sets."""

from __future__ import annotations

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, width: int = 1024, depth: int = 3):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = nn.functional.gelu(layer(x))
        return x


class NormGeluResidual(nn.Module):
    def __init__(self, width: int = 768):
        super().__init__()
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + nn.functional.gelu(self.norm(x))


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class Attention(nn.Module):
    def forward(self, q, k, v):
        return nn.functional.scaled_dot_product_attention(q, k, v)


class Matmul(nn.Module):
    def forward(self, a, b):
        return a @ b


class TransformerLayer(nn.Module):
    """Pre-norm encoder layer: LayerNorm, fused QKV projection, sdpa, output projection,
    LayerNorm, GELU MLP; input [batch, seq, width]."""

    def __init__(self, width: int = 512, heads: int = 8, hidden: int = 2048):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(w, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, w // self.heads).transpose(1, 2) for t in (q, k, v))
        a = nn.functional.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, w))
        return x + self.down(nn.functional.gelu(self.up(self.norm2(x))))

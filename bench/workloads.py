"""The CPU benchmark workloads: name -> (builder, kind, work).

A builder returns (module in eval mode, example inputs). `kind` says which rate the report
gives: "flops" (GFLOP/s from `work`, the multiply-adds x 2) or "bytes" (GB/s from the bytes of
inputs and outputs, which `work` computes from them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn


@dataclass(frozen=True)
class Workload:
    name: str
    build: Callable[[], tuple[nn.Module, tuple]]
    kind: str  # "flops" | "bytes" | "time"
    flops: float = 0.0


class _MLP(nn.Module):
    def __init__(self, width: int = 1024):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = nn.functional.gelu(layer(x))
        return x


class _NormGeluResidual(nn.Module):
    def __init__(self, width: int = 768):
        super().__init__()
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + nn.functional.gelu(self.norm(x))


class _Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class _Attention(nn.Module):
    def forward(self, q, k, v):
        return nn.functional.scaled_dot_product_attention(q, k, v)


class _Matmul(nn.Module):
    def forward(self, a, b):
        return a @ b


def _seeded(build):
    def wrapped():
        torch.manual_seed(0)
        return build()

    return wrapped


def _zoo(name: str):
    def build():
        from tests.models.model_zoo import MODEL_ZOO

        model, inputs, _ = MODEL_ZOO[name].build()
        return model.eval(), inputs

    return build


def _gpt2_small(seq_len: int = 64):
    """GPT-2 small as released (`GPT2Config()`: 12 layers, 768 wide, 12 heads, vocab 50257)
    with random weights, batch 1: the model the compile-time target of issue #6 is stated for."""

    def build():
        from transformers import GPT2Config, GPT2LMHeadModel

        from tests.models.model_zoo import HFOutput

        config = GPT2Config(attn_implementation="sdpa")
        model = HFOutput(GPT2LMHeadModel(config), "logits").eval()
        return model, (torch.randint(0, config.vocab_size, (1, seq_len)),)

    return _seeded(build)


def _matmul(n: int) -> Workload:
    def build():
        return _Matmul(), (torch.randn(n, n), torch.randn(n, n))

    return Workload(f"matmul{n}", _seeded(build), "flops", 2.0 * n**3)


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        Workload(
            "mlp",
            _seeded(lambda: (_MLP().eval(), (torch.randn(64, 1024),))),
            "flops",
            3 * 2.0 * 64 * 1024 * 1024,
        ),
        Workload(
            "ln_gelu_residual",
            _seeded(lambda: (_NormGeluResidual().eval(), (torch.randn(8, 512, 768),))),
            "bytes",
        ),
        Workload("softmax", _seeded(lambda: (_Softmax(), (torch.randn(1024, 1024),))), "bytes"),
        Workload(
            "attention",
            _seeded(lambda: (_Attention(), tuple(torch.randn(2, 8, 256, 64) for _ in range(3)))),
            "flops",
            2 * 2.0 * 2 * 8 * 256 * 256 * 64,
        ),
        _matmul(512),
        _matmul(1024),
        Workload("bert", _zoo("bert"), "time"),
        Workload("llama", _zoo("llama"), "time"),
        Workload("gpt2", _zoo("gpt2"), "time"),
        Workload("resnet", _zoo("resnet"), "time"),
        Workload("gpt2_small", _gpt2_small(), "time"),
        Workload(
            "lstm",  # 2 layers, input and hidden 256, seq 32, batch 8: gate products x 2 layers
            _seeded(lambda: (nn.LSTM(256, 256, num_layers=2).eval(), (torch.randn(32, 8, 256),))),
            "flops",
            2 * 2.0 * 32 * 8 * (256 + 256) * 4 * 256,
        ),
    ]
}


def io_bytes(inputs, outputs) -> int:
    """Bytes of the tensors a memory-bound workload must read and write once."""
    leaves = torch.utils._pytree.tree_leaves((inputs, outputs))
    return sum(t.numel() * t.element_size() for t in leaves if isinstance(t, torch.Tensor))

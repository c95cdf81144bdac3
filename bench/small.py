"""The small static float32 workloads (the bench's original set): single ops and small models
whose ratios are sensitive to dispatch overhead and fusion."""

from __future__ import annotations

import torch
from torch import nn

from . import nets
from .workload import Workload, seeded


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

    return seeded(build)


def _matmul(n: int) -> Workload:
    def build():
        return nets.Matmul(), (torch.randn(n, n), torch.randn(n, n))

    return Workload(f"matmul{n}", seeded(build), "flops", 2.0 * n**3)


WORKLOADS = [
    Workload(
        "mlp",
        seeded(lambda: (nets.MLP().eval(), (torch.randn(64, 1024),))),
        "flops",
        3 * 2.0 * 64 * 1024 * 1024,
    ),
    Workload(
        "ln_gelu_residual",
        seeded(lambda: (nets.NormGeluResidual().eval(), (torch.randn(8, 512, 768),))),
        "bytes",
    ),
    Workload("softmax", seeded(lambda: (nets.Softmax(), (torch.randn(1024, 1024),))), "bytes"),
    Workload(
        "attention",
        seeded(lambda: (nets.Attention(), tuple(torch.randn(2, 8, 256, 64) for _ in range(3)))),
        "flops",
        2 * 2.0 * 2 * 8 * 256 * 256 * 64,
    ),
    _matmul(512),
    _matmul(1024),
    Workload("bert", _zoo("bert"), "time"),
    Workload("llama", _zoo("llama"), "time"),
    Workload("gpt2", _zoo("gpt2"), "time"),
    Workload("resnet", _zoo("resnet"), "time"),
    Workload("gpt2_small", _gpt2_small(), "flops"),
    Workload(
        "lstm",  # 2 layers, input and hidden 256, seq 32, batch 8: gate products x 2 layers
        seeded(lambda: (nn.LSTM(256, 256, num_layers=2).eval(), (torch.randn(32, 8, 256),))),
        "flops",
        2 * 2.0 * 32 * 8 * (256 + 256) * 4 * 256,
    ),
]

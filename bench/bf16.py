"""The bfloat16 workloads: the MLP, attention, a transformer layer and a conv net (plus the 1024^3
matmul the issue's bf16 target is stated for), against eager bf16 (oneDNN, AMX where present) and
Inductor bf16. Rates are judged against the bf16 matmul rate measured in the same run."""

from __future__ import annotations

import torch

from . import cnn, nets
from .workload import Workload, seeded, to_bf16


def _bf16(name, build, flops: float = 0.0) -> Workload:
    return Workload(name, seeded(to_bf16(build)), "flops", flops, group="bf16")


WORKLOADS = [
    _bf16("bf16_mlp", lambda: (nets.MLP().eval(), (torch.randn(64, 1024),))),
    _bf16(
        "bf16_matmul1024",
        lambda: (nets.Matmul(), (torch.randn(1024, 1024), torch.randn(1024, 1024))),
        2.0 * 1024**3,
    ),
    _bf16(
        "bf16_attention",
        lambda: (nets.Attention(), tuple(torch.randn(2, 8, 256, 64) for _ in range(3))),
    ),
    _bf16("bf16_layer", lambda: (nets.TransformerLayer().eval(), (torch.randn(4, 128, 512),))),
    _bf16("bf16_convnet", lambda: (cnn.resnet18(), (torch.randn(1, 3, 112, 112),))),
]

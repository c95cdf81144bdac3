"""The dynamic-shape workloads: each exported once with `Dim`s on batch (and sequence), timed at
3 sizes from that one compile, next to a static compile at each size (the dynamic cost) and
Inductor's `torch.compile(dynamic=True)`. Every set of sizes has one that is a multiple of no
vector width or block (33, 77, 61)."""

from __future__ import annotations

import torch
from torch.export import Dim

from . import cnn, nets
from .workload import Dynamic, Workload, seeded


def _batch_seq(max_batch: int = 256, max_seq: int = 512):
    return Dim("batch", min=1, max=max_batch), Dim("seq", min=1, max=max_seq)


def _mlp() -> Workload:
    def sizes():
        return [(f"b{b}", (torch.randn(b, 1024),)) for b in (1, 33, 200)]

    return Workload(
        "dyn_mlp",
        seeded(lambda: (nets.MLP().eval(), (torch.randn(8, 1024),))),
        "flops",
        group="dynamic",
        dynamic=Dynamic(lambda: ({0: Dim("batch", min=1, max=1024)},), seeded(sizes)),
    )


def _attention() -> Workload:
    def sizes():
        return [
            (f"b{b} s{s}", tuple(torch.randn(b, 8, s, 64) for _ in range(3)))
            for b, s in ((1, 77), (2, 33), (4, 200))
        ]

    def shapes():
        batch, seq = _batch_seq()
        return tuple({0: batch, 2: seq} for _ in range(3))

    return Workload(
        "dyn_attention",
        seeded(lambda: (nets.Attention(), tuple(torch.randn(2, 8, 16, 64) for _ in range(3)))),
        "flops",
        group="dynamic",
        dynamic=Dynamic(shapes, seeded(sizes)),
    )


def _layer() -> Workload:
    def sizes():
        return [(f"b{b} s{s}", (torch.randn(b, s, 512),)) for b, s in ((1, 77), (3, 33), (4, 200))]

    def shapes():
        batch, seq = _batch_seq()
        return ({0: batch, 1: seq},)

    return Workload(
        "dyn_layer",
        seeded(lambda: (nets.TransformerLayer().eval(), (torch.randn(2, 16, 512),))),
        "flops",
        group="dynamic",
        dynamic=Dynamic(shapes, seeded(sizes)),
    )


def _encoder_layer() -> Workload:
    """torch's own `nn.TransformerEncoderLayer` (nn.MultiheadAttention): its q/k/v heads views
    and batched products see the batch of two tensors, one size only through export's symbol."""

    def build():
        layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0, batch_first=True)
        return layer.eval(), (torch.randn(2, 16, 256),)

    def sizes():
        return [(f"b{b} s{s}", (torch.randn(b, s, 256),)) for b, s in ((1, 77), (3, 33), (4, 128))]

    def shapes():
        batch, seq = _batch_seq()
        return ({0: batch, 1: seq},)

    return Workload(
        "dyn_encoder_layer",
        seeded(build),
        "flops",
        group="dynamic",
        dynamic=Dynamic(shapes, seeded(sizes)),
    )


def _convnet() -> Workload:
    def build():
        return cnn.resnet18((32, 64, 128, 256), classes=10), (torch.randn(2, 3, 64, 64),)

    def sizes():
        return [(f"b{b}", (torch.randn(b, 3, 64, 64),)) for b in (1, 7, 33)]

    return Workload(
        "dyn_convnet",
        seeded(build),
        "flops",
        group="dynamic",
        dynamic=Dynamic(lambda: ({0: Dim("batch", min=1, max=256)},), seeded(sizes)),
    )


def _zoo(name: str) -> Workload:
    """A test-zoo token model with batch and sequence dynamic (its max_position is 64)."""

    def build():
        from tests.models.model_zoo import MODEL_ZOO

        model, inputs, _ = MODEL_ZOO[name].build()
        return model.eval(), inputs

    def shapes():
        from tests.models.model_zoo import MODEL_ZOO

        return MODEL_ZOO[name].build(dynamic_batch=True, dynamic_seq=True).dynamic_shapes

    def sizes():
        from tests.models.model_zoo import MODEL_ZOO

        make = MODEL_ZOO[name].make_inputs
        cases = ((1, 7), (3, 33), (8, 61))
        return [(f"b{b} s{s}", make(batch=b, seed=b, seq=s)) for b, s in cases]

    return Workload(f"dyn_{name}", build, "time", group="dynamic", dynamic=Dynamic(shapes, sizes))


WORKLOADS = [
    _mlp(),
    _attention(),
    _layer(),
    _encoder_layer(),
    _convnet(),
    _zoo("bert"),
    _zoo("gpt2"),
]

"""Training-step workloads: one SGD step (forward, loss, backward, optimizer) of a CNN with batch
norm, a 2-layer transformer language model and an MLP, timed eagerly, with Inductor
(`torch.compile` default) and with `torch.compile(backend="aten_mlir")`, each on its own copy of
the model. The compile time is that of the first step (forward and backward graphs, cold). The
check compares each compiled first step's loss with eager's (same weights, same batch)."""

from __future__ import annotations

import copy
import os
import time

import torch
from torch import nn

from .workload import Workload, seeded


class _TinyLM(nn.Module):
    def __init__(self, vocab=1000, width=256, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(
            width, heads, 4 * width, dropout=0.0, batch_first=True, activation="gelu"
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens))).flatten(0, 1)


def _cnn():
    def block(c_in, c_out, stride):
        return nn.Sequential(
            nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()
        )

    model = nn.Sequential(
        block(3, 32, 1), block(32, 64, 2), nn.MaxPool2d(2), block(64, 128, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
    )  # fmt: skip
    return model, (torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,)))


def _transformer():
    return _TinyLM(), (torch.randint(0, 1000, (4, 128)), torch.randint(0, 1000, (4 * 128,)))


def _mlp():
    model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.LayerNorm(1024), nn.Linear(1024, 10))
    return model, (torch.randn(128, 512), torch.randint(0, 10, (128,)))


WORKLOADS = [
    Workload("train_cnn", seeded(_cnn), "time", group="training"),
    Workload("train_transformer", seeded(_transformer), "time", group="training"),
    Workload("train_mlp", seeded(_mlp), "time", group="training"),
]


class Step:
    """One training step of its own copy of the model, compiled by `compile_model` (or eager)."""

    def __init__(self, model, compile_model=None):
        self.model = copy.deepcopy(model).train()
        self.forward = compile_model(self.model) if compile_model else self.model
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        self.loss = nn.CrossEntropyLoss()

    def __call__(self, x, target):
        with torch.enable_grad():  # the timer runs under no_grad
            self.optimizer.zero_grad(set_to_none=True)
            loss = self.loss(self.forward(x), target)
            loss.backward()
            self.optimizer.step()
        return loss.detach()


def _ours(model):
    from aten_mlir.backends.dynamo import aten_mlir_backend

    # as run_one.py: the run's cache folder (empty for a cold compile), else no cache at all
    cache = os.environ.get("ATEN_MLIR_BENCH_CACHE")
    options = {"cache_dir": cache} if cache else {"cache": False}
    return torch.compile(model, backend=aten_mlir_backend, options=options)


def _inductor(model):
    return torch.compile(model, backend="inductor")


COMPILERS = {"aten_mlir": _ours, "inductor": _inductor}


def prepare_training(work, model, inputs, args, case_type, short):
    """The row's runners (eager and each compiler's step) after each compiled first step (its
    compile time) was checked against eager's first-step loss."""
    row = {"errors": {}, "compile_s": {}}
    # dynamo's and AOTAutograd's one-time start-up is shared: not in either compile time
    torch.compile(lambda x: x.sin() * 2, backend="aot_eager")(torch.ones(2, requires_grad=True))
    eager = Step(model)
    expected = eager(*inputs)
    runners = {"eager": eager}
    for name, compile_model in COMPILERS.items():
        start = time.perf_counter()
        try:
            step = Step(model, compile_model)
            loss = step(*inputs)
        except Exception as error:  # noqa: BLE001 - reported per compiler
            row["errors"][name] = short(error)
            continue
        row["compile_s"][name] = time.perf_counter() - start
        relative = float((loss - expected).abs() / expected.abs().clamp_min(1e-30))
        row.setdefault("rel_error", {})[name] = relative
        if not relative <= 1e-4:
            row.setdefault("mismatch", []).append(name)
        runners[name] = step
    if args.mode != "full":
        runners = {"eager": eager}
    return [case_type(row, runners, inputs)]

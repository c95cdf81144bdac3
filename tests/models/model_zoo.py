"""Small, deterministic models for end-to-end tests: random weights built from configs, no download.

Each `ZooEntry` builds a fresh model (same weights every time: a fixed seed under a forked RNG) and
inputs for any batch size and seed:

    entry = MODEL_ZOO["bert"]
    model, example_inputs, dynamic_shapes = entry.build()                 # static shapes
    model, example_inputs, dynamic_shapes = entry.build(dynamic_batch=True)
    model, example_inputs, dynamic_shapes = entry.build(dynamic_batch=True, dynamic_seq=True)
    ep = torch.export.export(model, example_inputs, dynamic_shapes=dynamic_shapes, strict=False)
    fresh = entry.make_inputs(batch=3, seed=1)
    fresh = entry.make_inputs(batch=3, seed=1, seq=9)                     # token models only

The Hugging Face models are wrapped so they take plain tensors and return one tensor (logits or
the last hidden state); `transformers` is imported inside the builders since it takes seconds.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import torch
from mlir import ir
from torch import nn

VOCAB = 128
SEQ_LEN = 16
MAX_SEQ_LEN = 64  # the transformers' max_position_embeddings / n_positions
IMAGE_SIZE = 32
WEIGHT_SEED = 0


class ModelCase(NamedTuple):
    model: nn.Module
    example_inputs: tuple
    dynamic_shapes: tuple | None


@dataclass(frozen=True)
class ZooEntry:
    name: str
    build_model: Callable[[], nn.Module]  # deterministic: the same weights on every call
    make_inputs: Callable[..., tuple]  # make_inputs(batch=..., seed=...) -> user inputs
    key_ops: frozenset[str] = field(default_factory=frozenset)  # aten ops its IR must contain
    batch: int = 2  # the example batch size
    has_seq: bool = False  # inputs are [batch, seq] and make_inputs takes `seq=`

    def build(
        self, *, dynamic_batch: bool = False, dynamic_seq: bool = False, seed: int = 0
    ) -> ModelCase:
        """The model, example inputs and, if asked, `dynamic_shapes` with a symbolic batch dim
        and (token models) a symbolic sequence dim (dim 1 of every input)."""
        inputs = self.make_inputs(batch=self.batch, seed=seed)
        dynamic_shapes = None
        if dynamic_batch or dynamic_seq:
            dims = {}
            if dynamic_batch:
                dims[0] = torch.export.Dim("batch", min=1, max=64)
            if dynamic_seq:
                assert self.has_seq, f"{self.name} has no sequence dim"
                dims[1] = torch.export.Dim("seq", min=1, max=MAX_SEQ_LEN)
            dynamic_shapes = tuple(dict(dims) for _ in inputs)
        return ModelCase(self.build_model(), inputs, dynamic_shapes)


def _seeded(build: Callable[[], nn.Module]) -> Callable[[], nn.Module]:
    """Runs `build` under a forked RNG seeded with `WEIGHT_SEED`, so weights never depend on
    (or disturb) the caller's random state."""

    @functools.wraps(build)
    def wrapped() -> nn.Module:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(WEIGHT_SEED)
            return build()

    return wrapped


# -- Hugging Face transformers -------------------------------------------------------------------


class HFOutput(nn.Module):
    """Calls a Hugging Face model with token ids (and an attention mask if given) and returns one
    field of its output, so the exported program takes and returns plain tensors."""

    def __init__(self, model: nn.Module, output: str):
        super().__init__()
        self.model = model
        self.output = output

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        return getattr(self.model(input_ids=input_ids, attention_mask=attention_mask), self.output)


def _token_ids(batch: int, seed: int, seq: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (batch, seq), generator=gen)


def token_inputs(*, batch: int = 2, seed: int = 0, seq: int = SEQ_LEN) -> tuple[torch.Tensor]:
    return (_token_ids(batch, seed, seq),)


def token_and_mask_inputs(
    *, batch: int = 2, seed: int = 0, seq: int = SEQ_LEN
) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and an attention mask whose rows have different amounts of right padding
    (every row keeps at least half its tokens, so none is fully masked)."""
    gen = torch.Generator().manual_seed(seed + 1)
    lengths = torch.randint((seq + 1) // 2, seq + 1, (batch, 1), generator=gen)
    mask = (torch.arange(seq) < lengths).to(torch.int64)
    return _token_ids(batch, seed, seq), mask


# Inside the small vocabulary (the defaults, e.g. GPT-2's 50256, are not). No pad token: random
# ids would then count as padding and transformers warns that no attention mask was given.
_SPECIAL_TOKENS = dict(bos_token_id=1, eos_token_id=2)


@_seeded
def bert() -> nn.Module:
    """BERT encoder (no pooler) -> last_hidden_state; takes input_ids and attention_mask."""
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=64,
        attn_implementation="sdpa",
        pad_token_id=0,
    )
    model = BertModel(config, add_pooling_layer=False)
    return HFOutput(model, "last_hidden_state").eval()


@_seeded
def llama() -> nn.Module:
    """Llama causal LM with grouped-query attention (4 heads, 2 kv heads) -> logits."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        attn_implementation="sdpa",
        **_SPECIAL_TOKENS,
    )
    return HFOutput(LlamaForCausalLM(config), "logits").eval()


@_seeded
def gpt2() -> nn.Module:
    """GPT-2 LM head model on the sdpa attention path -> logits."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=VOCAB,
        n_positions=64,
        n_embd=64,
        n_layer=2,
        n_head=4,
        attn_implementation="sdpa",
        **_SPECIAL_TOKENS,
    )
    return HFOutput(GPT2LMHeadModel(config), "logits").eval()


# -- a ResNet-style CNN --------------------------------------------------------------------------


def _conv_bn(c_in: int, c_out: int, kernel: int, stride: int) -> nn.Sequential:
    conv = nn.Conv2d(c_in, c_out, kernel, stride=stride, padding=kernel // 2, bias=False)
    return nn.Sequential(conv, nn.BatchNorm2d(c_out))


class BasicBlock(nn.Module):
    """ResNet basic block: two 3x3 conv-bn, a 1x1 conv-bn downsample when the shape changes."""

    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.conv1 = _conv_bn(c_in, c_out, 3, stride)
        self.conv2 = _conv_bn(c_out, c_out, 3, 1)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = _conv_bn(c_in, c_out, 1, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = torch.relu(self.conv1(x))
        return torch.relu(self.conv2(out) + identity)


class SmallResNet(nn.Module):
    """Stem (conv-bn-relu, max pool), three stages of basic blocks, global average pool, linear."""

    def __init__(self, num_classes: int = 10, widths: tuple[int, ...] = (16, 32, 64)):
        super().__init__()
        self.stem = nn.Sequential(
            *_conv_bn(3, widths[0], 3, 1), nn.ReLU(), nn.MaxPool2d(3, stride=2, padding=1)
        )
        blocks, c_in = [], widths[0]
        for i, width in enumerate(widths):
            blocks.append(BasicBlock(c_in, width, stride=1 if i == 0 else 2))
            c_in = width
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(c_in, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.blocks(self.stem(x)))
        return self.head(torch.flatten(x, 1))


def _randomize_batch_norm(model: nn.Module) -> None:
    """Gives every BatchNorm non-trivial affine parameters and running statistics, so eval-mode
    normalization is not close to the identity and a wrong statistic shows up in the output."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)


def image_inputs(*, batch: int = 2, seed: int = 0) -> tuple[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, 3, IMAGE_SIZE, IMAGE_SIZE, generator=gen),)


@_seeded
def resnet() -> nn.Module:
    """SmallResNet in eval mode (BatchNorm reads its running statistics)."""
    model = SmallResNet()
    _randomize_batch_norm(model)
    return model.eval()


@_seeded
def resnet_train() -> nn.Module:
    """SmallResNet in train mode: BatchNorm normalizes with batch statistics and updates its
    running_mean / running_var / num_batches_tracked buffers (buffer mutation)."""
    model = SmallResNet()
    _randomize_batch_norm(model)
    return model.train()


_ATTENTION = "aten.scaled_dot_product_attention"
_AVG_POOL = "aten.adaptive_avg_pool2d"
_BN_EVAL = "aten._native_batch_norm_legit_no_training"
_BN_TRAIN = "aten._native_batch_norm_legit_functional"  # returns the updated running stats

MODEL_ZOO: dict[str, ZooEntry] = {
    e.name: e
    for e in [
        ZooEntry(
            "bert",
            bert,
            token_and_mask_inputs,
            frozenset({"aten.embedding", "aten.layer_norm", "aten.gelu", _ATTENTION}),
            has_seq=True,
        ),
        ZooEntry(
            "llama",
            llama,
            token_inputs,
            frozenset({"aten.embedding", "aten.rsqrt", "aten.silu", _ATTENTION}),
            has_seq=True,
        ),
        ZooEntry(
            "gpt2",
            gpt2,
            token_inputs,
            frozenset({"aten.embedding", "aten.layer_norm", "aten.tanh", _ATTENTION}),
            has_seq=True,
        ),
        ZooEntry(
            "resnet",
            resnet,
            image_inputs,
            frozenset({"aten.conv2d", _BN_EVAL, "aten.max_pool2d", _AVG_POOL, "aten.linear"}),
        ),
        ZooEntry(
            "resnet_train",
            resnet_train,
            image_inputs,
            frozenset({"aten.conv2d", _BN_TRAIN, "aten.max_pool2d", _AVG_POOL, "aten.linear"}),
        ),
    ]
}


# -- looking at the IR ---------------------------------------------------------------------------

_STRUCTURAL_OPS = frozenset({"builtin.module", "func.func", "func.return"})


def op_histogram(module: ir.Module) -> Counter[str]:
    """How many times each op occurs in `module`, nested regions included (module, function and
    return ops left out): the coverage numbers to read at any stage."""
    counts: Counter[str] = Counter()

    def count(op: ir.Operation) -> ir.WalkResult:
        if op.name not in _STRUCTURAL_OPS:
            counts[op.name] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(count)
    return counts


def format_histogram(title: str, counts: Counter[str]) -> str:
    lines = [f"{title}: {sum(counts.values())} ops, {len(counts)} kinds"]
    lines += [
        f"  {n:4d}  {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return "\n".join(lines)

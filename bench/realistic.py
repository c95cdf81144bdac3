"""Realistic sizes: BERT-base (transformers' `BertConfig()` defaults) at seq 128, batch 1 and 8;
GPT-2 small prefill (seq 256) and decode (one token over a KV cache of 256 given as inputs); one
LLaMA layer at the 7B dims (4096 wide, 11008 MLP, 32 heads) for prefill 128 and decode 1 over a
cache of 128; a ResNet-50 at 224x224, batch 1. Random weights, float32. Decode steps are judged by
bytes (every weight read once per token) against the copy bandwidth, the rest by FLOPs."""

from __future__ import annotations

import torch

from . import cnn, llm
from .workload import Workload, seeded


def _bert_base(batch: int):
    def build():
        from transformers import BertConfig, BertModel

        from tests.models.model_zoo import HFOutput

        config = BertConfig(attn_implementation="sdpa")
        model = HFOutput(BertModel(config, add_pooling_layer=False), "last_hidden_state")
        return model.eval(), (torch.randint(0, config.vocab_size, (batch, 128)),)

    return seeded(build)


def _gpt2_prefill():
    from transformers import GPT2Config, GPT2LMHeadModel

    from tests.models.model_zoo import HFOutput

    config = GPT2Config(attn_implementation="sdpa")
    model = HFOutput(GPT2LMHeadModel(config), "logits").eval()
    return model, (torch.randint(0, config.vocab_size, (1, 256)),)


def _gpt2_decode():
    model = llm.GPT2Decode().eval()
    return model, (torch.randint(0, 50257, (1, 1)), *llm.gpt2_cache(positions=256))


def _llama_prefill():
    return llm.LlamaLayer().eval(), (torch.randn(1, 128, 4096),)


def _llama_decode():
    cache = tuple(torch.randn(1, 32, 128, 128) for _ in range(2))
    return llm.LlamaLayer().eval(), (torch.randn(1, 1, 4096), *cache)


WORKLOADS = [
    Workload("bert_base_b1", _bert_base(1), "flops", group="realistic"),
    Workload("bert_base_b8", _bert_base(8), "flops", group="realistic"),
    Workload("gpt2_prefill256", seeded(_gpt2_prefill), "flops", group="realistic"),
    Workload("gpt2_decode256", seeded(_gpt2_decode), "weights", group="realistic"),
    Workload("llama7b_prefill128", seeded(_llama_prefill), "flops", group="realistic"),
    Workload("llama7b_decode128", seeded(_llama_decode), "weights", group="realistic"),
    Workload(
        "resnet50",
        seeded(lambda: (cnn.resnet50(), (torch.randn(1, 3, 224, 224),))),
        "flops",
        group="realistic",
    ),
]

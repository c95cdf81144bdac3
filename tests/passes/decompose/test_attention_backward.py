"""The CPU flash attention's backward decomposes to core aten (no eager fallback) and gives
autograd's gradients of scaled_dot_product_attention: plain, causal, with a mask, `?` sizes."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import decompose, ops_outside, target_set
from aten_mlir.tests.support.programs import single_op_program

OP = "aten._scaled_dot_product_flash_attention_for_cpu_backward"


def _autograd(q, k, v, mask, causal, scale):
    q, k, v = (t.clone().requires_grad_() for t in (q, k, v))
    out = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, is_causal=causal, scale=scale, enable_gqa=q.shape[1] != k.shape[1]
    )
    grad = torch.randn_like(out)
    out.backward(grad)
    return out.detach(), grad, [t.grad for t in (q, k, v)]


@pytest.mark.parametrize(
    "case",
    [
        dict(),
        dict(causal=True),
        dict(mask=True),
        dict(scale=0.3, dynamic=True),
        dict(causal=True, source=11, dynamic=True),
        dict(causal=True, kv_heads=1),
        dict(kv_heads=3, heads=6, dynamic=True),
    ],
    ids=[
        "plain",
        "causal",
        "bool-mask",
        "scale-dynamic",
        "causal-cross-dynamic",
        "gqa-causal",
        "gqa-dynamic",
    ],
)
def test_gradients_match_autograd(case):
    torch.manual_seed(0)
    length, source = 9, case.get("source", 9)
    heads = case.get("heads", 3)
    kv = case.get("kv_heads", heads)  # fewer: grouped heads, as LLaMA's attention
    q = torch.randn(2, heads, length, 8)
    k, v = torch.randn(2, kv, source, 8), torch.randn(2, kv, source, 8)
    mask = torch.rand(length, source) > 0.3 if case.get("mask") else None
    if mask is not None:
        mask[:, 0] = True  # every row attends somewhere
    causal, scale = case.get("causal", False), case.get("scale")
    out, grad, want = _autograd(q, k, v, mask, causal, scale)
    lse = torch.zeros(2, heads, length)  # the rule recomputes the probabilities
    tensors = [grad, q, k, v, out, lse] + ([mask] if mask is not None else [])
    names = ["grad_out", "query", "key", "value", "out", "logsumexp"]
    names += ["attn_mask"] if mask is not None else []
    dynamic = [[2]] * 6 + [[]] * (mask is not None) if case.get("dynamic") else False
    program = single_op_program(
        OP, tensors, dynamic=dynamic, names=names, dropout_p=0.0, is_causal=causal, scale=scale
    )
    decomposed = decompose(program)
    assert OP not in str(decomposed.module)
    assert not ops_outside(decomposed.module.operation, target_set())
    compiled = aten_mlir.compile(program, cache=False)
    assert not compiled.fallbacks
    for got, w in zip(compiled(*tensors), want):
        torch.testing.assert_close(got, w, rtol=1e-4, atol=1e-5)


def test_dropout_stays_whole():
    t = torch.randn(1, 2, 4, 8)
    program = single_op_program(
        OP, [t, t, t, t, t, torch.zeros(1, 2, 4)], dropout_p=0.1, is_causal=False
    )
    assert OP in str(decompose(program).module)

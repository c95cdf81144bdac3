"""`nn.TransformerEncoderLayer`'s fast path (`aten._transformer_encoder_layer_fwd`, taken in eval
mode under no_grad) decomposes to core aten and matches the eager kernel."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import decompose, ops_outside, target_set
from aten_mlir.tests.support.programs import single_op_program

OP = "aten._transformer_encoder_layer_fwd"
WEIGHTS = [
    "qkv_weight", "qkv_bias", "proj_weight", "proj_bias", "norm_weight_1", "norm_bias_1",
    "norm_weight_2", "norm_bias_2", "ffn_weight_1", "ffn_bias_1", "ffn_weight_2", "ffn_bias_2",
]  # fmt: skip


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_the_fast_path_matches_eager(norm_first, activation):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        32, 4, 48, dropout=0.0, batch_first=True, norm_first=norm_first, activation=activation
    ).eval()
    attn = layer.self_attn
    weights = [
        attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
        layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias,
        layer.linear1.weight, layer.linear1.bias, layer.linear2.weight, layer.linear2.bias,
    ]  # fmt: skip
    src = torch.randn(3, 7, 32)
    tensors = [src] + [w.detach() for w in weights]
    program = single_op_program(
        OP,
        tensors,
        names=["src", *WEIGHTS],
        embed_dim=32,
        num_heads=4,
        use_gelu=activation == "gelu",
        norm_first=norm_first,
        eps=layer.norm1.eps,
    )
    decomposed = decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set())
    compiled = aten_mlir.compile(program, cache=False)
    assert not compiled.fallbacks
    with torch.no_grad():
        want = layer(src)
    torch.testing.assert_close(compiled(*tensors), want, rtol=1e-4, atol=1e-5)

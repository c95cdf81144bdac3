"""Softmax and attention decompositions equal the ops they replace (eager kernels on both sides),
with static and dynamic dims, and leave only target-set ops."""

from __future__ import annotations

import pytest
import torch

from .test_normalization import check_decomposition

INF = float("inf")


def _cases():
    torch.manual_seed(0)
    x = torch.randn(3, 4, 5) * 4
    x[0, 0, 0], x[1, 1] = -INF, -INF
    q, k, v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 5)
    bool_mask = torch.rand(4, 6) > 0.4
    bool_mask[2] = False  # a fully masked row: zeros, as ATen's safe softmax
    float_mask = torch.randn(2, 1, 4, 6)
    kv_gqa = torch.randn(2, 1, 6, 8), torch.randn(2, 1, 6, 5)
    qkv = ["query", "key", "value"]
    with_mask = {"names": [*qkv, "attn_mask"]}
    return {
        "softmax": ("aten.softmax.int", [x], {"dim": -1}),
        "softmax-dtype": ("aten.softmax.int", [x], {"dim": 1, "dtype": torch.float64}),
        "log_softmax": ("aten.log_softmax.int", [x], {"dim": 0}),
        "log_softmax-dtype": ("aten.log_softmax.int", [x], {"dim": 2, "dtype": torch.float64}),
        "softmax_backward": (
            "aten._softmax_backward_data",
            [torch.randn(3, 4, 5), torch.softmax(x, 1)],
            {"dim": 1, "input_dtype": torch.float32},
        ),
        "sdpa": ("aten.scaled_dot_product_attention", [q, k, v], {}),
        "sdpa-scale": ("aten.scaled_dot_product_attention", [q, k, v], {"scale": 0.3}),
        "sdpa-causal": ("aten.scaled_dot_product_attention", [q, k, v], {"is_causal": True}),
        "sdpa-bool-mask": ("aten.scaled_dot_product_attention", [q, k, v, bool_mask], with_mask),
        "sdpa-float-mask": ("aten.scaled_dot_product_attention", [q, k, v, float_mask], with_mask),
        "sdpa-3d": ("aten.scaled_dot_product_attention", [q[0], k[0], v[0]], {}),
        "sdpa-gqa": ("aten.scaled_dot_product_attention", [q, *kv_gqa], {"enable_gqa": True}),
        "sdpa-broadcast-kv": ("aten.scaled_dot_product_attention", [q, *kv_gqa], {}),
    }


CASES = _cases()
# `?` heads: GQA needs the static group count; `?` head dim: scale=None needs it statically.
DYNAMIC = {c: None for c in CASES if not c.startswith("sdpa")}
DYNAMIC.update({c: [{0, 2}, {0, 2}, {0, 2}, set()] for c in CASES if c.startswith("sdpa")})
DYNAMIC.update({"sdpa-scale": True, "sdpa-3d": [{0, 1}, {0, 1}, {0, 1}]})
DYNAMIC["sdpa-bool-mask"] = [{0, 2}, {0, 2}, {0, 2}, {0, 1}]
DYNAMIC["sdpa-float-mask"] = [{0, 2}, {0, 2}, {0, 2}, {0, 2, 3}]
DYNAMIC["sdpa-broadcast-kv"] = [{0, 2}, {0, 2}, {0, 2}]


@pytest.mark.parametrize("case", sorted(CASES))
def test_attention_decomposition_matches_the_op(case):
    check_decomposition(*CASES[case])


@pytest.mark.parametrize("case", sorted(CASES))
def test_attention_decomposition_with_dynamic_dims(case):
    op_name, tensors, kwargs = CASES[case]
    dynamic = DYNAMIC[case] or True
    if isinstance(dynamic, list):
        dynamic = dynamic[: len(tensors)]
    check_decomposition(op_name, tensors, kwargs, dynamic)

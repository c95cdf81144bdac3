"""Products with dynamic batch and sequence dims on Triton, where aten-split-dynamic-expands
regroups or gathers the views folding their batch dims (Triton indexes views itself, so these
ran before; the test keeps the rewrite correct on this target too)."""

from __future__ import annotations

import pytest
import torch

from tests.support.dynamic_products import PRODUCTS, compile_product


@pytest.mark.parametrize("name", ["h_at_ht", "attention_scores", "einsum"])
def test_dynamic_product_triton(name):
    compiled, fn, call = compile_product(name, "triton")
    torch.testing.assert_close(compiled(*call), fn(*call))
    example = PRODUCTS[name][1]
    torch.testing.assert_close(compiled(*example), fn(*example))

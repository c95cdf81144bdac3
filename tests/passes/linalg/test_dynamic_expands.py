"""Products with dynamic batch and sequence dims (aten-split-dynamic-expands): their batch
folding used to lower to an expand_shape group with two dynamic sizes, on which
expand-strided-metadata aborted the process."""

from __future__ import annotations

import pytest
import torch

from tests.support.dynamic_products import PRODUCTS, compile_product


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_dynamic_product_cpu(name):
    compiled, fn, call = compile_product(name, "cpu")
    torch.testing.assert_close(compiled(*call), fn(*call))
    # and at the export size
    example = PRODUCTS[name][1]
    torch.testing.assert_close(compiled(*example), fn(*example))

"""Segment boundaries (backends/partition.py): scalars of every float width cross them boxed
in 0-d tensors (an f16 element read from a 1-element scatter source used to fail `outline`)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from tests.modules import Fn

OPS = {
    "scatter_add": lambda x, i, s: x.scatter_add(0, i, s),
    "index_add": lambda x, i, s: x.index_add(0, i, s),
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_one_element_source_half(op, dtype):
    fn = OPS[op]
    args = (torch.randn(5).to(dtype), torch.tensor([2]), torch.randn(1).to(dtype))
    compiled = aten_mlir.compile(torch.export.export(Fn(fn), args))
    torch.testing.assert_close(compiled(*args), fn(*args))

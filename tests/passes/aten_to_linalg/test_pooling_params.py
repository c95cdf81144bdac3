"""Pooling parameters eager rejects (ATen's pool2d_shape_check) are rejected at compile time
with the op and its location, instead of lowering to windows that return -inf or garbage.
torch.export rejects them too, so the programs are written as IR (as `aten-opt` users do)."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.dialects.verifier import AtenVerificationError
from aten_mlir.frontend import import_program
from aten_mlir.frontend.program import Program
from tests.modules import Fn

F = torch.nn.functional

# case: (attribute as exported, its invalid replacement, the message expected)
BAD = {
    "dilation0": ("dilation = array<i64: 1, 1>", "dilation = array<i64: 0, 0>", "dilation should"),
    "stride0": ("stride = array<i64>", "stride = array<i64: 0, 0>", "stride should"),
    "negative_padding": (
        "padding = array<i64: 0, 0>",
        "padding = array<i64: -1, -1>",
        "non-negative",
    ),
    "padding_over_half": (
        "padding = array<i64: 0, 0>",
        "padding = array<i64: 2, 2>",
        "at most half",
    ),
    "kernel_over_input": (
        "kernel_size = array<i64: 2, 2>",
        "kernel_size = array<i64: 7, 7>",
        "small",
    ),
}


def _text(pool) -> str:
    ep = torch.export.export(Fn(lambda x: pool(x, 2)), (torch.randn(1, 1, 5, 5),))
    return import_program(ep).text()


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("pool", [F.max_pool2d, F.avg_pool2d], ids=["max", "avg"])
def test_invalid_pool_params_rejected(case, pool):
    old, new, message = BAD[case]
    text = _text(pool)
    if old not in text:
        pytest.skip(f"{pool.__name__} has no '{old}'")
    program = Program.from_text(text.replace(old, new))
    # the aten verifier (schema checks on meta tensors) or the lowering, whichever runs first
    with pytest.raises((aten_mlir.CompileError, AtenVerificationError), match=message) as info:
        aten_mlir.compile(program)
    assert "pool2d" in str(info.value)


@pytest.mark.parametrize("pool", [F.max_pool2d, F.avg_pool2d], ids=["max", "avg"])
def test_valid_pool_params_still_compile(pool):
    x = torch.randn(1, 1, 5, 5)
    compiled = aten_mlir.compile(Program.from_text(_text(pool)))
    torch.testing.assert_close(compiled(x), pool(x, 2))

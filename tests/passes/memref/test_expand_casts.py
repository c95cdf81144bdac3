"""`aten-expands-as-casts`: products over rows flattened from a dynamic batch and sequence
(every `Linear`, GPT-2's `Conv1D` addmm) unfold their result with an expand of two dynamic
sizes; they compile as a view of the same buffer and match eager at other sizes."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.support.triton import triton_interpreter  # noqa: F401  (fixture)

BATCH, SEQ = Dim("batch", min=1, max=32), Dim("seq", min=2, max=64)


class Conv1DRows(torch.nn.Module):
    """GPT-2's Conv1D: addmm over `x.view(-1, features)`, viewed back with `x.size()[:-1]`."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(16, 24))
        self.bias = torch.nn.Parameter(torch.randn(24))

    def forward(self, x):
        rows = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return rows.view(x.size()[:-1] + (24,)).relu()


MODELS = {
    "linear": lambda: torch.nn.Linear(16, 8),
    "conv1d_rows": Conv1DRows,
    "encoder_layer": lambda: torch.nn.TransformerEncoderLayer(
        16, 2, 32, batch_first=True, dropout=0.0
    ),
}


@pytest.mark.parametrize("target", ["cpu", "triton"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_dynamic_batch_and_sequence_rows(name, target, request):
    if target == "triton":
        request.getfixturevalue("triton_interpreter")
    torch.manual_seed(0)
    model = MODELS[name]().eval()
    ep = torch.export.export(model, (torch.randn(2, 5, 16),), dynamic_shapes=({0: BATCH, 1: SEQ},))
    compiled = aten_mlir.compile(ep, target=target, cache=False)
    assert compiled.fallbacks == []
    for shape in [(2, 5, 16), (3, 7, 16), (1, 2, 16)]:
        x = torch.randn(shape)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x), atol=1e-4, rtol=1e-4)

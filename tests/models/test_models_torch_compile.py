"""The model zoo through `torch.compile(backend="aten_mlir")`: inference matches eager with no
fallback, and a dynamic batch compiles once after dynamo's first recompile."""

from __future__ import annotations

import pytest
import torch

from aten_mlir.tests.models.model_zoo import MODEL_ZOO
from aten_mlir.tests.support.dynamo import compiled, fresh_dynamo


@pytest.mark.parametrize(
    "name",
    [
        "bert",
        "resnet",
        pytest.param("llama", marks=pytest.mark.slow),
        pytest.param("gpt2", marks=pytest.mark.slow),
    ],
)
def test_zoo_model_matches_eager_at_three_batches(name):
    entry = MODEL_ZOO[name]
    model, _, _ = entry.build()
    model.eval()
    with fresh_dynamo() as counts, torch.no_grad():
        f = compiled(model)
        for batch in (2, 3, 5):
            inputs = entry.make_inputs(batch=batch, seed=batch)
            torch.testing.assert_close(f(*inputs), model(*inputs), rtol=1e-4, atol=1e-4)
    # batch 2 static, batch 3 recompiled with a dynamic batch, batch 5 reuses it
    assert counts["graphs_compiled"] == 2
    assert counts["op_fallbacks"] == 0 and counts["graph_fallbacks"] == 0

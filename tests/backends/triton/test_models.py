"""The model zoo on the Triton backend: no fallback, outputs equal eager (1e-4), kernels that
carry the aten ops they run; train mode writes its batch-norm statistics back."""

from __future__ import annotations

import copy
import functools

import pytest
import torch

import aten_mlir
from tests.models.model_zoo import MODEL_ZOO
from tests.models.test_models_import import TOLERANCE, imported


@functools.cache
def compiled(name: str) -> aten_mlir.CompiledProgram:
    return aten_mlir.compile(imported(name).program, target="triton")


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_model_matches_eager_on_triton(name):
    imp = imported(name)
    program = compiled(name)
    assert program.fallbacks == [], program.fallbacks
    state = {k: v.clone() for k, v in program.state.items()}
    model = copy.deepcopy(imp.model)
    try:
        inputs = MODEL_ZOO[name].make_inputs(batch=MODEL_ZOO[name].batch, seed=0)
        with torch.no_grad():
            expected = model(*inputs)
        torch.testing.assert_close(program(*inputs), expected, **TOLERANCE)
        if name == "resnet_train":
            for key, value in model.state_dict().items():
                if "running_" in key:
                    torch.testing.assert_close(program.state[key], value, **TOLERANCE)
    finally:
        with torch.no_grad():
            for k, v in state.items():
                program.state[k].copy_(v)


def test_kernels_name_their_aten_ops_and_source_lines(tmp_path):
    imp = imported("gpt2")
    aten_mlir.compile(imp.program, target="triton", dump_dir=tmp_path)
    source = (tmp_path / "07-triton.py").read_text()
    assert "@triton.jit" in source and "def run_segment0(" in source
    assert "modeling_gpt2.py:" in source  # the user's lines, above the kernels fused from them
    assert "(node layer_norm" in source and "(node addmm" in source


def test_dynamic_batch_on_triton():
    entry = MODEL_ZOO["gpt2"]
    model, inputs, dynamic_shapes = entry.build(dynamic_batch=True)
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes, strict=False)
    program = aten_mlir.compile(ep, target="triton")
    for batch in (1, 3):
        inputs = entry.make_inputs(batch=batch, seed=batch)
        with torch.no_grad():
            expected = model(*inputs)
        torch.testing.assert_close(program(*inputs), expected, **TOLERANCE)


def test_triton_dump_has_every_stage(tmp_path):
    imp = imported("resnet")
    aten_mlir.compile(imp.program, target="triton", dump_dir=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[-1] == "07-triton.py" and "06-triton-loops.mlir" in names

"""Whole models through `aten-decompose`: every model reaches core ATen only (no op kept whole,
no op outside the set), still matches eager, static and with a dynamic batch dim, and the
train-mode model still writes its batch-norm statistics back."""

from __future__ import annotations

import copy
import dataclasses
import functools

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from aten_mlir.passes.pipeline import run_pipeline

from .model_zoo import MODEL_ZOO
from .test_models_import import TOLERANCE, assert_matches_eager, imported


@functools.cache
def decomposed(name: str):
    """The model imported and decomposed; `aten-check-target` (strict: core only) passes."""
    imp = imported(name)
    program = aten_mlir.decompose(imp.program)
    run_pipeline(program.module, "aten-check-target")
    return dataclasses.replace(imp, program=program)


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_model_decomposes_to_core_and_matches_eager(name):
    dec = decomposed(name)
    assert not ops_outside(dec.program.module.operation, target_set())
    assert_matches_eager(dec, dec.example_inputs)
    assert_matches_eager(dec, MODEL_ZOO[name].make_inputs(batch=MODEL_ZOO[name].batch, seed=1))


def test_decomposing_rewrites_the_models_non_core_ops():
    """The models hold non-core ops before (so the test above exercises the rules)."""
    before = {
        name: {op.name for op in ops_outside(imported(name).program.module.operation, target_set())}
        for name in MODEL_ZOO
    }
    assert {"aten.linear", "aten.layer_norm"} <= before["bert"]
    assert "aten.scaled_dot_product_attention" in before["gpt2"]
    assert "aten.conv2d" in before["resnet"]


def test_train_mode_statistics_survive_decomposition():
    dec = decomposed("resnet_train")
    program = dataclasses.replace(dec.program, state=dict(dec.program.state))
    model = copy.deepcopy(dec.model)
    aten_mlir.run_reference(program, *dec.example_inputs)
    with torch.no_grad():
        model(*dec.example_inputs)
    for key, value in model.state_dict().items():
        if "running_" in key:
            torch.testing.assert_close(program.state[key], value, **TOLERANCE)


@pytest.mark.parametrize("name", [n for n in MODEL_ZOO if n != "resnet_train"])
def test_dynamic_batch_decomposes_to_core(name):
    entry = MODEL_ZOO[name]
    model, inputs, dynamic_shapes = entry.build(dynamic_batch=True)
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes, strict=False)
    program = aten_mlir.decompose(aten_mlir.import_program(ep))
    run_pipeline(program.module, "aten-check-target")
    for batch in (1, 3):
        inputs = entry.make_inputs(batch=batch, seed=batch)
        with torch.no_grad():
            expected = model(*inputs)
        torch.testing.assert_close(aten_mlir.run_reference(program, *inputs), expected, **TOLERANCE)

"""Whole models through `aten_mlir.compile` (native CPU code): no fallback, outputs equal eager
(rtol/atol 1e-4), static and with dynamic batch and sequence dims at three sizes; train mode
writes its batch-norm statistics back into the program's buffers."""

from __future__ import annotations

import copy
import functools

import pytest
import torch

import aten_mlir

from .model_zoo import MODEL_ZOO
from .test_models_import import TOLERANCE, imported


@functools.cache
def compiled(name: str) -> aten_mlir.CompiledProgram:
    return aten_mlir.compile(imported(name).program)


def _restore(program, state) -> None:
    with torch.no_grad():
        for k, v in state.items():
            program.state[k].copy_(v)


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_model_compiles_without_fallback_and_matches_eager(name):
    imp = imported(name)
    program = compiled(name)
    assert program.fallbacks == [], program.fallbacks
    model = copy.deepcopy(imp.model)
    state = {k: v.clone() for k, v in program.state.items()}
    try:
        for seed in (0, 1):
            inputs = MODEL_ZOO[name].make_inputs(batch=MODEL_ZOO[name].batch, seed=seed)
            with torch.no_grad():
                expected = model(*inputs)
            torch.testing.assert_close(program(*inputs), expected, **TOLERANCE)
    finally:  # train mode updated the shared buffers: restore them for the other tests
        _restore(program, state)


def test_train_mode_writes_running_statistics_back():
    imp = imported("resnet_train")
    program = aten_mlir.compile(imp.program)
    before = {k: v.clone() for k, v in program.state.items()}
    model = copy.deepcopy(imp.model)
    try:
        program(*imp.example_inputs)
        with torch.no_grad():
            model(*imp.example_inputs)
        changed = 0
        for key, value in model.state_dict().items():
            if "running_" in key:
                torch.testing.assert_close(program.state[key], value, **TOLERANCE)
                changed += not torch.equal(before[key], value)
        assert changed > 0
    finally:
        _restore(program, before)


# Three sizes per dynamic dim from one compile, none a multiple of a vector width or block (the
# example sizes are batch 2, seq 16): (batch, seq) for token models, batch for the others.
DYNAMIC_SIZES = ((1, 7), (3, 1), (7, 33))


@pytest.mark.parametrize("name", [n for n in MODEL_ZOO if n != "resnet_train"])
def test_dynamic_dims_compile(name):
    """Batch (and, for token models, sequence) dims exported as `Dim`s: one compile, no fallback,
    equal to eager at three sizes of each."""
    entry = MODEL_ZOO[name]
    model, inputs, dynamic_shapes = entry.build(dynamic_batch=True, dynamic_seq=entry.has_seq)
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes, strict=False)
    program = aten_mlir.compile(ep)
    assert program.fallbacks == [], program.fallbacks
    for batch, seq in DYNAMIC_SIZES:
        sizes = dict(seq=seq) if entry.has_seq else {}
        inputs = entry.make_inputs(batch=batch, seed=batch, **sizes)
        assert inputs[0].shape[0] == batch and (not sizes or inputs[0].shape[1] == seq)
        with torch.no_grad():
            expected = model(*inputs)
        torch.testing.assert_close(program(*inputs), expected, **TOLERANCE)

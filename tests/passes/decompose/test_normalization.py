"""Normalization decompositions equal the ops they replace (eager kernels on both sides), with
static and dynamic dims, and leave only target-set ops; OpInfo samples and ResNet (training
batch norm) decompose and match eager."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import DECOMPOSITIONS, normalization, ops_outside, target_set
from aten_mlir.passes.pipeline import run_pipeline

from .single_op import single_op_program


def partly_dynamic_program(op_name, tensors, dynamic_dims, names=None, **kwargs):
    """`single_op_program` with only the dims `dynamic_dims[i]` of tensor i made `?`."""
    return single_op_program(op_name, tensors, dynamic=dynamic_dims, names=names, **kwargs)


def _randn(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def _cases():
    torch.manual_seed(0)
    x3, x4 = _randn(2, 3, 4) * 3 + 1, _randn(2, 6, 3, 2) * 2 - 1
    w3, b3 = _randn(3), _randn(3)
    rm, rv = _randn(3), torch.rand(3) + 0.5
    affine = ["input", "weight", "bias"]
    stats = ["input", "weight", "bias", "running_mean", "running_var"]
    inst = {"momentum": 0.1, "eps": 1e-5, "cudnn_enabled": False}
    bn = {"momentum": 0.1, "eps": 1e-5, "names": stats}
    return {
        "layer_norm": (
            "aten.layer_norm",
            [x3, _randn(4), _randn(4)],
            {"normalized_shape": [4], "eps": 1e-5, "names": affine},
        ),
        "layer_norm-2d": ("aten.layer_norm", [x3], {"normalized_shape": [3, 4]}),
        "group_norm": (
            "aten.group_norm",
            [x4, _randn(6), _randn(6)],
            {"num_groups": 3, "eps": 1e-4, "names": affine},
        ),
        "group_norm-plain": ("aten.group_norm", [x4], {"num_groups": 1}),
        "instance_norm": (
            "aten.instance_norm",
            [x3, w3, b3],
            {
                "names": affine,
                "use_input_stats": True,
                "running_mean": None,
                "running_var": None,
                **inst,
            },
        ),
        "instance_norm-running": (
            "aten.instance_norm",
            [x3, w3, b3, rm, rv],
            {"names": stats, "use_input_stats": False, **inst},
        ),
        "rms_norm": (
            "aten.rms_norm",
            [x3, _randn(4)],
            {"normalized_shape": [4], "names": ["input", "weight"]},
        ),
        "rms_norm-eps": ("aten.rms_norm", [x3], {"normalized_shape": [3, 4], "eps": 1e-3}),
        "rms_norm-bf16": (
            "aten.rms_norm",
            [x3.bfloat16(), _randn(4, dtype=torch.bfloat16)],
            {"normalized_shape": [4], "names": ["input", "weight"]},
        ),
        "batch_norm-train": (
            "aten._native_batch_norm_legit_functional",
            [x3, w3, b3, rm, rv],
            {"training": True, **bn},
        ),
        "batch_norm_with_update": (
            "aten._batch_norm_with_update_functional",
            [x3, w3, b3, rm, rv],
            {"momentum": 0.2, "eps": 1e-3, "names": stats},
        ),
        "batch_norm-eval": (
            "aten._native_batch_norm_legit_functional",
            [x4[:, :3], w3, b3, rm, rv],
            {"training": False, **bn},
        ),
    }


CASES = _cases()
# The leading (batch) dim is `?`: the norms check their static normalized/channel dims.
STATIC_ONLY = {"instance_norm"}  # one group per channel: the group count must be static


def check_decomposition(op_name, tensors, kwargs, dynamic=None):
    """`dynamic`: None (static), True (every dim `?`), or per tensor the dims to make `?`."""
    if dynamic in (None, True):
        program = single_op_program(op_name, tensors, dynamic=bool(dynamic), **kwargs)
    else:
        program = partly_dynamic_program(op_name, tensors, dynamic, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    for a, e in zip(*(r if isinstance(r, (tuple, list)) else [r] for r in (actual, expected))):
        assert a.dtype == e.dtype and a.shape == e.shape
        if a.numel() and e.numel():
            torch.testing.assert_close(a, e, equal_nan=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_normalization_decomposition_matches_the_op(case):
    check_decomposition(*CASES[case])


@pytest.mark.parametrize("case", sorted(set(CASES) - STATIC_ONLY))
def test_normalization_decomposition_with_dynamic_dims(case):
    op_name, tensors, kwargs = CASES[case]
    check_decomposition(op_name, tensors, kwargs, [{0}] + [set()] * (len(tensors) - 1))


@pytest.mark.parametrize(
    "case",
    ["group_norm-plain", "instance_norm-running", "batch_norm-train", "batch_norm_with_update"],
)
def test_normalization_decomposition_with_every_dim_dynamic(case):
    check_decomposition(*CASES[case], dynamic=True)


def family_ops(module) -> set[str]:
    """The ops this module's family registers rules for."""
    return {n for n, d in DECOMPOSITIONS.items() if d.fn.__module__ == module.__name__}


def check_program(program, inputs, expected, family: set[str]) -> None:
    """Decomposes `program`, checks no op of `family` is left (`aten-check-target`, keeping the
    other families' ops not decomposed yet) and that it still computes `expected`."""
    decomposed = aten_mlir.decompose(program)
    others = {op.name for op in ops_outside(decomposed.module.operation, target_set())}
    assert not others & family, sorted(others & family)
    keep = ",".join(sorted(others))
    run_pipeline(
        decomposed.module, f"aten-check-target{{keep={keep}}}" if keep else "aten-check-target"
    )
    actual = aten_mlir.run_reference(decomposed, *inputs)
    torch.testing.assert_close(actual, expected, equal_nan=True, atol=1e-5, rtol=1e-5)


NORM_OPINFOS = {
    "nn.functional.layer_norm",
    "nn.functional.group_norm",
    "nn.functional.instance_norm",
    "nn.functional.rms_norm",
    "nn.functional.batch_norm",
    "native_batch_norm",
    "_native_batch_norm_legit",
    "_batch_norm_with_update",
}


def opinfo_cases(names):
    from aten_mlir.tests.opinfo import harness

    return [c for o in harness.op_db() if o.name in names for c in harness.cases(o, limit=2)]


@pytest.mark.parametrize("case", opinfo_cases(NORM_OPINFOS), ids=lambda c: c.id)
def test_normalization_opinfo_samples_decompose(case):
    from aten_mlir.tests.opinfo import harness

    ep = harness.export_case(case)
    check_program(
        aten_mlir.import_program(ep), case.inputs, harness.eager(case), family_ops(normalization)
    )


def test_resnet_training_batch_norm_decomposes():
    from aten_mlir.tests.models.model_zoo import MODEL_ZOO

    model, inputs, _ = MODEL_ZOO["resnet_train"].build()
    program = aten_mlir.import_program(torch.export.export(model, inputs, strict=False))
    with torch.no_grad():
        expected = model(*inputs)
    check_program(program, inputs, expected, family_ops(normalization))

"""Normalization decompositions equal the ops they replace (eager kernels on both sides), with
static and dynamic dims, and leave only target-set ops; OpInfo samples and ResNet (training
batch norm) decompose and match eager."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import normalization
from tests.support.decomposition import (
    assert_family_decomposes,
    check_decomposition,
    family_ops,
)
from tests.support.opinfo_samples import opinfo_cases


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


@pytest.mark.parametrize("case", opinfo_cases(NORM_OPINFOS), ids=lambda c: c.id)
def test_normalization_opinfo_samples_decompose(case):
    from aten_mlir.tests.opinfo import harness

    ep = harness.export_case(case)
    assert_family_decomposes(
        aten_mlir.import_program(ep), case.inputs, harness.eager(case), family_ops(normalization)
    )


def test_resnet_training_batch_norm_decomposes():
    from aten_mlir.tests.models.model_zoo import MODEL_ZOO

    model, inputs, _ = MODEL_ZOO["resnet_train"].build()
    program = aten_mlir.import_program(torch.export.export(model, inputs, strict=False))
    with torch.no_grad():
        expected = model(*inputs)
    assert_family_decomposes(program, inputs, expected, family_ops(normalization))

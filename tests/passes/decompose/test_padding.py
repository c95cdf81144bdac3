"""Padding decompositions equal the ops they replace bit for bit (every mode of `aten.pad`,
negative pads, NaN/inf, integers), static and with `?` dims; the pad OpInfo samples decompose
to core."""

from __future__ import annotations

from functools import partial

import pytest
import torch

from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples

# As in test_matrices: only target ops, no as_strided; a `Tensor[]` argument takes the tensors.
check = partial(check_decomposition, tensor_list=True, absent=("as_strided",))

X = torch.cat(
    [torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0]), torch.randn(20)]
).reshape(2, 3, 4)
X_INT = torch.arange(24, dtype=torch.int64).reshape(2, 3, 4) - 9

# (pad, mode, value, the input)
PADS = [
    ([1, 2], "constant", 1.5, X),
    ([-1, 2, 0, 1], "constant", None, X_INT),
    ([1, 2, 2, 1], "reflect", None, X),
    ([2, 1], "reflect", None, X_INT),
    ([2, 1], "replicate", None, X),
    ([1, 0, 2, 1], "replicate", None, X_INT),
    ([1, 1, 1, 1, 1, 1], "replicate", None, X[None]),
    ([1, 2, 0, 1], "circular", None, X),
    ([-1, 2, 1, -1], "circular", None, X_INT),
    ([4, 4], "circular", None, X),
    ([0, 0], "circular", None, X),
]


def _id(case):
    pad, mode, _, x = case
    return f"{mode}-{pad}-{x.dtype}"


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize(("pad", "mode", "value", "x"), PADS, ids=[_id(c) for c in PADS])
def test_pad_matches_the_op(pad, mode, value, x, dynamic):
    check("aten.pad", [x], {"pad": pad, "mode": mode, "value": value}, dynamic, exact=True)


@pytest.mark.parametrize(
    ("mode", "enum"), [("reflect", 0), ("replicate", 1), ("circular", 2), ("constant", 3)]
)
def test_pad_enum_matches_the_op(mode, enum):
    """`at::padding_mode` counts reflect, replicate, circular, constant."""
    decomposed = check(
        "aten._pad_enum", [X], {"pad": [1, 2], "mode": enum, "value": None}, exact=True
    ).program
    kernel = {"reflect": "reflection_pad1d", "replicate": "replication_pad2d"}.get(mode, "")
    assert kernel in str(decomposed)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_pad_circular_matches_the_op(dynamic):
    check("aten._pad_circular", [X], {"pad": [2, 1, -1, 1]}, dynamic, exact=True)


@pytest.mark.parametrize("x", [X, X_INT[0]], ids=["3d", "2d"])
def test_replication_pad1d_matches_the_op(x):
    decomposed = check("aten.replication_pad1d", [x], {"padding": [2, 3]}, exact=True).program
    assert "aten.replication_pad2d" in str(decomposed)


def test_pad_modes_pick_their_kernels():
    for mode, kernel in [
        ("constant", "aten.constant_pad_nd"),
        ("reflect", "aten.reflection_pad2d"),
        ("replicate", "aten.replication_pad2d"),
        ("circular", "aten.cat"),
    ]:
        decomposed = check(
            "aten.pad", [X], {"pad": [1, 1, 1, 1], "mode": mode, "value": None}
        ).program
        assert kernel in str(decomposed), mode


def test_pad_opinfo_samples_decompose_to_core():
    check_opinfo_samples(
        [
            "nn.functional.pad.constant",
            "nn.functional.pad.reflect",
            "nn.functional.pad.replicate",
            "nn.functional.pad.replicate_negative",
            "nn.functional.pad.circular",
            "constant_pad_nd",
        ],
        limit=3,
    )

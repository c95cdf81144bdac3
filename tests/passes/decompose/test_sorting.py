"""Sorting and order-statistic decompositions equal the ops they replace (eager kernels on both
sides) on NaN, +-0.0, ties and integers, with static and dynamic dims, and leave only target-set
ops; the stable sort stays stable when the core sort breaks ties the other way."""

from __future__ import annotations

import dataclasses

import pytest
import torch

import aten_mlir
from aten_mlir.backends.reference import interpreter
from aten_mlir.dialects import get_op_def
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN = float("nan")


def _ties():
    """Few distinct values (many ties), NaNs, and both zeros."""
    torch.manual_seed(0)
    x = torch.randint(0, 4, (3, 9)).float()
    x[0, 2] = x[2, 0] = x[2, 5] = NAN
    x[1, 1], x[1, 3] = -0.0, 0.0
    return x


TIES = _ties()
INTS = torch.randint(-2, 3, (4, 7))
DISTINCT = torch.randperm(60).float().reshape(3, 4, 5) - 30  # no ties: indices are defined
DISTINCT_NAN = DISTINCT.clone()
DISTINCT_NAN[0, 1, 2] = DISTINCT_NAN[2, :, 3] = NAN
Q = torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0])

CASES = {
    "sort.stable": ("aten.sort.stable", [TIES], {"stable": True, "dim": 1}),
    "sort.stable-desc": (
        "aten.sort.stable",
        [TIES],
        {"stable": True, "dim": 0, "descending": True},
    ),
    "sort.stable-int": ("aten.sort.stable", [INTS], {"stable": True, "descending": True}),
    "sort.stable-unstable": ("aten.sort.stable", [DISTINCT], {"stable": None, "dim": 1}),
    "argsort": ("aten.argsort", [DISTINCT_NAN], {"dim": 2, "descending": True}),
    "argsort.stable": ("aten.argsort.stable", [TIES], {"stable": True, "dim": 1}),
    "msort": ("aten.msort", [TIES], {}),
    "kthvalue": ("aten.kthvalue", [DISTINCT_NAN], {"k": 3, "dim": 1}),
    "kthvalue-keepdim": ("aten.kthvalue", [DISTINCT], {"k": 5, "dim": -1, "keepdim": True}),
    "median.dim": ("aten.median.dim", [DISTINCT_NAN], {"dim": 1}),
    "median.dim-even": ("aten.median.dim", [DISTINCT], {"dim": 1, "keepdim": True}),
    "median.dim-int": ("aten.median.dim", [INTS], {"dim": 1}),
    "median": ("aten.median", [DISTINCT], {}),
    "median-nan": ("aten.median", [DISTINCT_NAN], {}),
    "nanmedian.dim": ("aten.nanmedian.dim", [DISTINCT_NAN], {"dim": 2}),
    "nanmedian.dim-all-nan": ("aten.nanmedian.dim", [torch.full((2, 3), NAN)], {"dim": 1}),
    "nanmedian": ("aten.nanmedian", [DISTINCT_NAN], {}),
    "mode": ("aten.mode", [INTS], {"dim": 1}),
    "mode-float": ("aten.mode", [TIES.nan_to_num(7.0)], {"dim": 0, "keepdim": True}),
    "mode-0d": ("aten.mode", [torch.tensor(3.0)], {}),
    "quantile": ("aten.quantile", [DISTINCT_NAN, Q], {"dim": 1}),
    "quantile-flat": ("aten.quantile", [DISTINCT, Q], {"keepdim": True}),
    "quantile-0d-q": ("aten.quantile", [DISTINCT, torch.tensor(0.3)], {"dim": 0}),
    "quantile.scalar": ("aten.quantile.scalar", [DISTINCT], {"q": 0.7, "dim": -1}),
    "nanquantile": ("aten.nanquantile", [DISTINCT_NAN, Q], {"dim": 2, "keepdim": True}),
    "nanquantile.scalar": ("aten.nanquantile.scalar", [DISTINCT_NAN], {"q": 0.4, "dim": 2}),
}
for _mode in ("lower", "higher", "nearest", "midpoint"):
    CASES[f"quantile-{_mode}"] = (
        "aten.quantile",
        [DISTINCT, Q],
        {"dim": 1, "interpolation": _mode},
    )
    CASES[f"nanquantile-{_mode}"] = (
        "aten.nanquantile",
        [DISTINCT_NAN, Q],
        {"dim": 2, "interpolation": _mode},
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_sorting_decomposition_matches_the_op(case):
    check_decomposition(*CASES[case])


@pytest.mark.parametrize("case", sorted(set(CASES) - {"mode-0d"}))
def test_sorting_decomposition_with_dynamic_dims(case):
    check_decomposition(*CASES[case], dynamic=True)


@pytest.mark.parametrize(
    "op_name, kwargs",
    [("aten.kthvalue", {"k": 4, "dim": 1}), ("aten.median.dim", {"dim": 1, "keepdim": True})],
)
def test_order_statistics_with_ties_point_at_their_value(op_name, kwargs):
    """With ties ATen leaves the index unspecified: the values equal eager's, and the index
    points at an element equal to the value."""
    x = TIES
    program = single_op_program(op_name, [x], **kwargs)
    expected = aten_mlir.run_reference(program, x)
    values, indices = aten_mlir.run_reference(aten_mlir.decompose(program), x)
    torch.testing.assert_close(values, expected[0], equal_nan=True)
    at = indices if kwargs.get("keepdim") else indices.unsqueeze(1)
    found = x.gather(1, at)
    torch.testing.assert_close(found, values.reshape(found.shape), equal_nan=True)


def _anti_stable_sort(self, dim=-1, descending=False):
    """A valid sort that orders equal elements last-first (a core sort may do that)."""
    if self.dim() == 0:
        return torch.sort(self, dim, descending)
    out = torch.sort(self.flip(dim), dim=dim, descending=descending, stable=True)
    return out.values, self.shape[dim] - 1 - out.indices


def test_stable_sort_is_stable_whatever_order_the_core_sort_leaves_ties_in(monkeypatch):
    original = interpreter.op_def_of
    reversed_ties = dataclasses.replace(get_op_def("aten.sort"), _overload=[_anti_stable_sort])
    monkeypatch.setattr(
        interpreter,
        "op_def_of",
        lambda op: reversed_ties if op.name == "aten.sort" else original(op),
    )
    for kwargs in ({"dim": 1}, {"dim": 0, "descending": True}):
        program = single_op_program("aten.sort.stable", [TIES], stable=True, **kwargs)
        decomposed = aten_mlir.decompose(program)
        values, indices = aten_mlir.run_reference(decomposed, TIES)
        expected = torch.sort(TIES, stable=True, **kwargs)
        assert torch.equal(indices, expected.indices)
        assert torch.equal(values.nan_to_num(9).signbit(), expected.values.nan_to_num(9).signbit())
        torch.testing.assert_close(values, expected.values, equal_nan=True)
        # The core sort alone would have put the ties the other way.
        plain = _anti_stable_sort(TIES, kwargs["dim"], kwargs.get("descending", False))
        assert not torch.equal(plain[1], expected.indices)


def test_decomposed_programs_hold_only_core_ops():
    for op_name, tensors, kwargs in CASES.values():
        decomposed = aten_mlir.decompose(single_op_program(op_name, tensors, **kwargs))
        assert not ops_outside(decomposed.module.operation, target_set()), op_name


SORTING_OPINFOS = [
    "sort",
    "argsort",
    "msort",
    "kthvalue",
    "median",
    "nanmedian",
    "mode",
    "quantile",
    "nanquantile",
    "masked.median",
]


def test_sorting_opinfo_samples():
    check_opinfo_samples(SORTING_OPINFOS, limit=3)

"""Every core ATen overload that OpInfo samples reach is compiled to native code per sample and
compared with eager: float32 and, where the OpInfo supports them, int64, int32 and bool.

`core_opinfos.json` maps each core overload to the OpInfos whose first sample's decomposed
program holds it, smallest program first (regenerate with
`python -m tests.opinfo.sweep --stage decompose --limit 1 --write-core-map
tests/opinfo/core_opinfos.json`). Default: the most direct OpInfo per overload, 2 float32 samples
and 1 of each other dtype; `-m slow`: every mapped OpInfo, every sample.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import torch

import aten_mlir
from tests.opinfo import harness

CORE_MAP: dict[str, list[str]] = json.loads(
    (Path(__file__).with_name("core_opinfos.json")).read_text()
)
OTHER_DTYPES = (torch.int64, torch.int32, torch.bool)

# Core overloads that run as eager fallbacks on purpose, with the reason.
EXPECTED_FALLBACK = {
    "aten._fft_r2c": "complex results: the CPU lowering has no complex numbers yet",
    "aten._fft_c2r": "complex inputs: the CPU lowering has no complex numbers yet",
}


@functools.cache
def _opinfos() -> dict[str, object]:
    return {
        o.name + (f".{o.variant_test_name}" if o.variant_test_name else ""): o
        for o in harness.op_db()
    }


def _check(opinfo, dtype, limit, target: str | None) -> int:
    """Compiles and compares the samples; returns how many were exported and checked."""
    torch.manual_seed(0)
    checked = 0
    for case in harness.cases(opinfo, dtype=dtype, limit=limit):
        ep = harness.export_case(case)
        if ep is None:
            continue
        try:
            compiled = aten_mlir.compile(ep)
        except aten_mlir.UnsupportedOpError:
            continue  # import limits are the import suite's to report
        fell = {f.op for f in compiled.fallbacks} - set(EXPECTED_FALLBACK)
        if target is not None:
            assert target not in fell, f"{target} fell back in {case.id}"
        else:
            assert not fell, f"{case.id}: fallbacks {sorted(fell)}"
        actual = compiled(*harness._clone(case.inputs))
        harness.compare(case, actual, harness.eager(case))
        checked += 1
    return checked


@pytest.mark.parametrize("op_name", sorted(set(CORE_MAP) - set(EXPECTED_FALLBACK)))
def test_core_op_compiles_like_eager(op_name):
    opinfo = _opinfos()[CORE_MAP[op_name][0]]
    checked = _check(opinfo, torch.float32, 2, op_name)
    for dtype in OTHER_DTYPES:
        if dtype in opinfo.supported_dtypes("cpu"):
            checked += _check(opinfo, dtype, 1, None)
    if not checked:
        pytest.skip("no sample of this OpInfo exports")


@pytest.mark.slow
@pytest.mark.parametrize("opinfo_id", sorted({i for ids in CORE_MAP.values() for i in ids}))
def test_opinfo_compiles_like_eager_all_samples(opinfo_id):
    opinfo = _opinfos()[opinfo_id]
    checked = 0
    for dtype in (torch.float32, *OTHER_DTYPES):
        if dtype in opinfo.supported_dtypes("cpu"):
            checked += _check(opinfo, dtype, None, None)
    if not checked:
        pytest.skip("no sample of this OpInfo exports")

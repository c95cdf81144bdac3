"""Every core ATen overload that OpInfo samples reach is compiled to native code per sample and
compared with eager: float32, and where the OpInfo supports them bfloat16, float16, int64, int32
and bool.

`core_opinfos.json` maps each core overload to the OpInfos whose first sample's decomposed
program holds it, smallest program first (regenerate with
`python -m tests.opinfo.sweep --stage decompose --limit 1 --write-core-map
tests/opinfo/core_opinfos.json`). Default: the most direct OpInfo per overload, 1 float32
sample (2 made the default suite pass 20 minutes on the 2-core CI host) and 1 of each other
dtype, bfloat16 and float16 included; `-m slow`: every mapped OpInfo, every sample.
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
# Compared with assert_close's tolerances for the dtype (and the OpInfo's own overrides); an
# output outside them passes only if nearer the float64 result than eager's (`harness.compare`).
REDUCED_FLOATS = (torch.bfloat16, torch.float16)
# Checked under `slow` with fallbacks allowed: only some rules take unsigned/complex operands
# (the others leave the op to eager), and values must stay right across those boundaries.
MIXED_DTYPES = (torch.uint8, torch.complex64)


# Core overloads that fall back for some inputs only, with the reason; the per-op test then
# still requires at least one sample compiled without the fallback.
PARTIAL_FALLBACK = {
    "aten.convolution": "unbatched input (no batch dim) and unsigned integers stay eager",
}


@functools.cache
def _opinfos() -> dict[str, object]:
    return {
        o.name + (f".{o.variant_test_name}" if o.variant_test_name else ""): o
        for o in harness.op_db()
    }


def _check(
    opinfo, dtype, limit, target: str | None, any_fallback: bool = False, backend: str = "cpu"
) -> int:
    """Compiles (for `backend`) and compares the samples; returns how many were exported and
    checked. `target` is the core op that must not fall back."""
    torch.manual_seed(0)
    checked = lowered = 0
    for case in harness.cases(opinfo, dtype=dtype, limit=limit):
        ep = harness.export_case(case)
        if ep is None:
            continue
        try:
            compiled = aten_mlir.compile(ep, target=backend)
        except aten_mlir.UnsupportedOpError:
            continue  # import limits are the import suite's to report
        fell = {f.op for f in compiled.fallbacks}
        allowed = set(PARTIAL_FALLBACK)
        if any_fallback:
            pass
        elif target is not None:
            assert target not in fell - allowed, f"{target} fell back in {case.id}"
            lowered += target not in fell
        else:
            assert not fell - allowed, f"{case.id}: fallbacks {sorted(fell)}"
        actual = compiled(*harness._clone(case.inputs))
        harness.compare_up_to_ties(case, actual, harness.eager(case))
        checked += 1
    if target in PARTIAL_FALLBACK and checked:
        assert lowered, f"{target} fell back in every sample"
    return checked


@pytest.mark.parametrize("op_name", sorted(CORE_MAP))
def test_core_op_compiles_like_eager(op_name):
    opinfo = _opinfos()[CORE_MAP[op_name][0]]
    checked = _check(opinfo, torch.float32, 1, op_name)
    for dtype in OTHER_DTYPES:
        if dtype in opinfo.supported_dtypes("cpu"):
            checked += _check(opinfo, dtype, 1, None)
    if not checked:
        pytest.skip("no sample of this OpInfo exports")


@pytest.mark.parametrize("op_name", sorted(CORE_MAP))
def test_core_op_compiles_like_eager_in_reduced_floats(op_name):
    """One bf16 or f16 sample per core overload, alternating in sorted order (the other where
    the OpInfo lacks one): ~74 s of CPU cold, so both dtypes would add ~150 s to the default
    suite; `-m slow` checks every sample in both. The overload compiled (no fallback) and equal
    to eager within the dtype's tolerances (`harness.tolerance`)."""
    opinfo = _opinfos()[CORE_MAP[op_name][0]]
    first = sorted(CORE_MAP).index(op_name) % 2
    for dtype in (REDUCED_FLOATS[first], REDUCED_FLOATS[1 - first]):
        if dtype in opinfo.supported_dtypes("cpu") and _check(opinfo, dtype, 1, op_name):
            return
    pytest.skip("no bf16/f16 sample of this OpInfo exports")


@pytest.mark.slow
@pytest.mark.parametrize("opinfo_id", sorted({i for ids in CORE_MAP.values() for i in ids}))
def test_opinfo_compiles_like_eager_all_samples(opinfo_id):
    opinfo = _opinfos()[opinfo_id]
    checked = 0
    for dtype in (torch.float32, *REDUCED_FLOATS, *OTHER_DTYPES):
        if dtype in opinfo.supported_dtypes("cpu"):
            checked += _check(opinfo, dtype, None, None)
    for dtype in MIXED_DTYPES:
        if dtype in opinfo.supported_dtypes("cpu"):
            checked += _check(opinfo, dtype, 2, None, any_fallback=True)
    if not checked:
        pytest.skip("no sample of this OpInfo exports")

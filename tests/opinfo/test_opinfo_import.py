"""Every OpInfo sample that torch.export accepts imports, verifies and runs through the
reference interpreter equal to eager (float32); then `aten-decompose` brings it to core ATen (or
to ops `KEPT_WHOLE` lists, which no decomposition exists for), `aten-check-target` agrees, and it
still equals eager. Default: the first sample of each OpInfo (two made the default suite pass
20 minutes on the 2-core CI host); `-m slow`: all of them."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.pipeline import run_pipeline
from tests.opinfo import harness

DEFAULT_SAMPLES = 1

# OpInfos whose programs the aten dialect cannot express, each with the reason; importing them
# must fail with one clear UnsupportedOpError line naming the cause.
EXPECTED_UNSUPPORTED = {
    "sparse.mm.reduce": "sparse (CSR) input tensors have no builtin tensor type",
    "sparse.sampled_addmm": "sparse (CSR) input tensors have no builtin tensor type",
    "to_sparse": "its sparse (COO) result has no builtin tensor type",
}


def _opinfo_id(opinfo) -> str:
    return opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")


_OPINFOS = harness.op_db()


def _check(opinfo, limit):
    torch.manual_seed(0)
    cases = harness.cases(opinfo, limit=limit)
    if not cases:
        pytest.skip("no float32 CPU samples")
    exported = 0
    for case in cases:
        ep = harness.export_case(case)
        if ep is None:
            continue  # torch.export itself rejects the sample: not counted (see sweep.py)
        exported += 1
        if _opinfo_id(opinfo) in EXPECTED_UNSUPPORTED:
            with pytest.raises(aten_mlir.UnsupportedOpError) as info:
                aten_mlir.import_program(ep)
            assert "\n" not in str(info.value)
            continue
        program = aten_mlir.import_program(ep)
        aten_mlir.verify_module(program.module)
        expected = harness.eager(case)
        actual = aten_mlir.run_reference(program, *harness._clone(case.inputs))
        harness.compare(case, actual, expected)
        decomposed = aten_mlir.decompose(program)
        run_pipeline(decomposed.module, "aten-check-target{allow-kept-whole}")
        actual = aten_mlir.run_reference(decomposed, *harness._clone(case.inputs))
        harness.compare(case, actual, expected)
    if not exported:
        pytest.skip("torch.export rejects every sample of this OpInfo")


@pytest.mark.parametrize("opinfo", _OPINFOS, ids=_opinfo_id)
def test_opinfo_import(opinfo):
    _check(opinfo, DEFAULT_SAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("opinfo", _OPINFOS, ids=_opinfo_id)
def test_opinfo_import_all_samples(opinfo):
    _check(opinfo, None)

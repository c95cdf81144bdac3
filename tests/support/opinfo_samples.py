"""OpInfo samples through import -> decompose -> `aten-check-target` -> reference == eager: the
check every decomposition family's tests end with (`check_opinfo_samples`), and the samples of
some OpInfos as pytest parameters (`opinfo_cases`)."""

from __future__ import annotations

import aten_mlir
from aten_mlir.passes.pipeline import run_pipeline
from aten_mlir.tests.opinfo import harness


def _opinfo_id(opinfo) -> str:
    return opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")


def opinfo_cases(names, limit=2):
    """The samples (up to `limit` per OpInfo) of the OpInfos named `names`."""
    return [c for o in harness.op_db() if o.name in names for c in harness.cases(o, limit=limit)]


def check_opinfo_samples(names, limit=1, allow_kept_whole=False):
    """Every sample (up to `limit` per OpInfo; names may carry a `.variant`) imports, decomposes,
    passes `aten-check-target` and matches eager. `allow_kept_whole` accepts the ops listed in
    `KEPT_WHOLE`. Failures are collected, so that one run names every failing sample."""
    by_name = {_opinfo_id(o): o for o in harness.op_db()}
    check = "aten-check-target" + ("{allow-kept-whole}" if allow_kept_whole else "")
    failures, checked = [], 0
    for case in (c for n in names for c in harness.cases(by_name[n], limit=limit)):
        ep = harness.export_case(case)
        if ep is None:
            continue
        try:
            decomposed = aten_mlir.decompose(aten_mlir.import_program(ep))
            run_pipeline(decomposed.module, check)
            actual = aten_mlir.run_reference(decomposed, *harness._clone(case.inputs))
            harness.compare(case, actual, harness.eager(case))
        except Exception as e:
            failures.append(f"{case.id}: {type(e).__name__}: {str(e)[:300]}")
        checked += 1
    assert checked >= len(names), f"only {checked} samples exported"
    assert not failures, "\n".join(failures)

"""Runs the OpInfo import sweep outside pytest and prints N/M with every failure's reason.

python -m aten_mlir.tests.opinfo.sweep            # all samples
python tests/opinfo/sweep.py --limit 2 -j 2       # bounded, like the default suite
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import time
import traceback


def _check_opinfo(args):
    index, limit = args
    import torch

    import aten_mlir
    from tests.opinfo import harness

    torch.manual_seed(0)
    opinfo = harness.op_db()[index]
    results = []
    for case in harness.cases(opinfo, limit=limit):
        ep = harness.export_case(case)
        if ep is None:
            results.append((case.id, "not-exported", ""))
            continue
        try:
            program = aten_mlir.import_program(ep)
            aten_mlir.verify_module(program.module)
            actual = aten_mlir.run_reference(program, *harness._clone(case.inputs))
            harness.compare(case, actual, harness.eager(case))
            results.append((case.id, "ok", ""))
        except Exception as e:
            first = (str(e).splitlines() or [""])[0][:300]
            tb = traceback.extract_tb(e.__traceback__)[-1]
            results.append((case.id, "fail", f"{type(e).__name__}: {first} [{tb.name}]"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("-j", type=int, default=2)
    parser.add_argument("--only", default=None, help="substring of OpInfo names")
    args = parser.parse_args(argv)
    from tests.opinfo import harness

    db = harness.op_db()
    indices = [i for i, o in enumerate(db) if not args.only or args.only in o.name]
    start = time.time()
    with multiprocessing.get_context("spawn").Pool(args.j, maxtasksperchild=100) as pool:
        rows = [
            r
            for rs in pool.imap_unordered(_check_opinfo, [(i, args.limit) for i in indices])
            for r in rs
        ]
    counts = collections.Counter(status for _, status, _ in rows)
    exported = counts["ok"] + counts["fail"]
    for case_id, status, why in sorted(rows):
        if status == "fail":
            print(f"FAIL {case_id}: {why}")
    print(
        f"\nOpInfos: {len(indices)}  samples: {len(rows)}  exported: {exported}  "
        f"not exported by torch.export: {counts['not-exported']}"
    )
    print(
        f"import+verify+run_reference == eager: {counts['ok']}/{exported} "
        f"({100.0 * counts['ok'] / max(exported, 1):.2f}%)  in {time.time() - start:.0f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

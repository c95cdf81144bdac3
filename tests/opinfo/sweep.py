"""Runs an OpInfo sweep outside pytest and prints N/M with every failure's reason.

From the repository root:
    python -m tests.opinfo.sweep -j 2                     # import, all samples
    python -m tests.opinfo.sweep --limit 2 -j 2           # bounded, like the default suite
    python -m tests.opinfo.sweep --stage decompose -j 2   # import + decompose: core-only share
                                                          # and the ops left outside the set
    python -m tests.opinfo.sweep --stage torch -j 2       # baseline: torch's own table
                                                          # (`ep.run_decompositions()`), then import
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import time
import traceback


def _run_stage(stage: str, program):
    """The program after `stage`, and the sorted names of aten ops outside the target set."""
    import aten_mlir
    from aten_mlir.passes.decompose import ops_outside, target_set

    if stage in ("import", "torch"):
        return program, []
    program = aten_mlir.decompose(program)
    return program, sorted({op.name for op in ops_outside(program.module.operation, target_set())})


def _outside_after_torch(ep) -> list[str]:
    """Baseline: the non-core aten ops torch's default table (`run_decompositions()`) leaves."""
    import torch

    core = {str(op) for op in _core_overloads()}
    left = set()
    for node in ep.run_decompositions().graph.nodes:
        target = node.target
        if node.op == "call_function" and isinstance(target, torch._ops.OpOverload):
            if target.namespace == "aten" and str(target) not in core:
                name = target._schema.name.replace("::", ".")
                overload = target._overloadname
                left.add(name + ("" if overload == "default" else "." + overload))
    return sorted(left)


def _core_overloads():
    import torch

    return [
        op
        for packet in (getattr(torch.ops.aten, n) for n in torch.ops.aten)
        for op in (getattr(packet, o) for o in packet.overloads())
        if torch.Tag.core in op.tags
    ]


def _check_opinfo(args):
    index, limit, stage = args
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
            program, outside = _run_stage(stage, program)
            if stage == "torch":
                outside = _outside_after_torch(ep)
            actual = aten_mlir.run_reference(program, *harness._clone(case.inputs))
            harness.compare(case, actual, harness.eager(case))
            results.append(
                (case.id, "outside", " ".join(outside)) if outside else (case.id, "ok", "")
            )
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
    parser.add_argument("--stage", choices=("import", "decompose", "torch"), default="import")
    args = parser.parse_args(argv)
    from tests.opinfo import harness

    db = harness.op_db()
    indices = [i for i, o in enumerate(db) if not args.only or args.only in o.name]
    start = time.time()
    with multiprocessing.get_context("spawn").Pool(args.j, maxtasksperchild=100) as pool:
        rows = [
            r
            for rs in pool.imap_unordered(
                _check_opinfo, [(i, args.limit, args.stage) for i in indices]
            )
            for r in rs
        ]
    _report(rows, len(indices), args.stage, time.time() - start)
    return 0


def _report(rows, n_opinfos: int, stage: str, seconds: float) -> None:
    counts = collections.Counter(status for _, status, _ in rows)
    exported = counts["ok"] + counts["fail"] + counts["outside"]
    for case_id, status, why in sorted(rows):
        if status == "fail":
            print(f"FAIL {case_id}: {why}")
    left = collections.defaultdict(list)
    for case_id, status, why in rows:
        for name in why.split() if status == "outside" else ():
            left[name].append(case_id)
    kept, torch_keys = _tables() if stage == "decompose" else ({}, set())
    for name, ids in sorted(left.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = " ".join(sorted({i.rsplit("-", 1)[0] for i in ids})[:6])
        tag = "kept whole" if name in kept else "IN TORCH'S TABLE" if name in torch_keys else ""
        print(f"OUTSIDE {name}: {len(ids)} samples ({shown}) {tag}".rstrip())
    print(
        f"\nOpInfos: {n_opinfos}  samples: {len(rows)}  exported: {exported}  "
        f"not exported by torch.export: {counts['not-exported']}"
    )
    what = (
        "import+verify"
        + {
            "import": "",
            "decompose": "+decompose to core only",
            "torch": " (core only after torch's run_decompositions())",
        }[stage]
    )
    print(
        f"{what}+run_reference == eager: {counts['ok']}/{exported} "
        f"({100.0 * counts['ok'] / max(exported, 1):.2f}%)  in {seconds:.0f}s"
    )
    if stage != "import":
        print(f"equal to eager but with ops outside the target set: {counts['outside']}")
    if stage == "decompose":
        only_kept = sum(
            1 for _, st, why in rows if st == "outside" and set(why.split()) <= set(kept)
        )
        print(
            f"core-only or only kept-whole ops (KEPT_WHOLE) left, == eager: "
            f"{counts['ok'] + only_kept}/{exported} "
            f"({100.0 * (counts['ok'] + only_kept) / max(exported, 1):.2f}%)"
        )
        missing = sorted(n for n in left if n in torch_keys and n not in kept)
        print(f"ops left that torch's core_aten_decompositions() covers: {len(missing)}")
        from aten_mlir.passes.decompose.coverage import torch_table_coverage

        print(torch_table_coverage().summary())


def _tables():
    from aten_mlir.passes.decompose import KEPT_WHOLE
    from aten_mlir.passes.decompose.coverage import torch_table_coverage

    coverage = torch_table_coverage()
    return KEPT_WHOLE, set(
        coverage.covered + coverage.kept + coverage.in_target + coverage.uncovered
    )


if __name__ == "__main__":
    sys.exit(main())

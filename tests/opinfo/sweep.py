"""Runs an OpInfo sweep outside pytest and prints N/M with every failure's reason.

From the repository root:
    python -m tests.opinfo.sweep -j 2                     # import, all samples
    python -m tests.opinfo.sweep --limit 2 -j 2           # bounded, like the default suite
    python -m tests.opinfo.sweep --stage decompose -j 2   # import + decompose: core-only share
                                                          # and the ops left outside the set
    python -m tests.opinfo.sweep --stage torch -j 2       # baseline: torch's own table
                                                          # (`ep.run_decompositions()`), then import
    python -m tests.opinfo.sweep --stage compile -j 2     # aten_mlir.compile (native CPU code):
                                                          # per core op, samples equal to eager
    python -m tests.opinfo.sweep --stage compile --dtype int64 ...   # other dtypes
    python -m tests.opinfo.sweep --stage compile --core first --dtype bfloat16 -j 2
                                            # the default suite's OpInfos (one per core op);
                                            # reduced floats compared with assert_close's
                                            # tolerances for the dtype (harness.tolerance)
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


def _check_compiled(case, ep):
    """(status, detail) of compiling a case: ok, fallback (ops listed), or fail."""
    import aten_mlir
    from tests.opinfo import harness

    program = aten_mlir.import_program(ep)
    core_ops = sorted(_core_ops_of(aten_mlir.decompose(program)))
    compiled = aten_mlir.compile(program)
    actual = compiled(*harness._clone(case.inputs))
    harness.compare_up_to_ties(case, actual, harness.eager(case))
    fallbacks = sorted({f.op for f in compiled.fallbacks})
    if fallbacks:
        return "fallback", " ".join(fallbacks) + " | " + " ".join(core_ops)
    return "closer" if case.closer else "ok", " | " + " ".join(core_ops)


def _all_ops(program):
    return program.main.regions[0].blocks[0].operations


def _core_ops_of(program) -> set[str]:
    from aten_mlir.passes.aten_to_linalg.lower_pass import aten_ops

    return {op.name for op in aten_ops(program.module.operation)}


def _check_opinfo(args):
    index, limit, stage, dtype = args
    import torch

    import aten_mlir
    from tests.opinfo import harness

    torch.manual_seed(0)
    opinfo = harness.op_db()[index]
    results = []
    for case in harness.cases(opinfo, dtype=getattr(torch, dtype), limit=limit):
        ep = harness.export_case(case)
        if ep is None:
            results.append((case.id, "not-exported", ""))
            continue
        if stage == "compile":
            try:
                results.append((case.id, *_check_compiled(case, ep)))
            except Exception as e:
                first = (str(e).splitlines() or [""])[0][:300]
                tb = traceback.extract_tb(e.__traceback__)[-1]
                results.append((case.id, "fail", f"{type(e).__name__}: {first} [{tb.name}]"))
            continue
        try:
            program = aten_mlir.import_program(ep)
            aten_mlir.verify_module(program.module)
            program, outside = _run_stage(stage, program)
            if stage == "decompose":
                ops = _core_ops_of(program)
                results.append(
                    (
                        case.id,
                        "core-ops",
                        f"{len(list(_all_ops(program)))} " + " ".join(sorted(ops)),
                    )
                )
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
    parser.add_argument(
        "--core",
        choices=("first", "all"),
        default=None,
        help="only the OpInfos of core_opinfos.json: the first per core overload (the default "
        "suite's set) or all of them (the slow suite's)",
    )
    parser.add_argument(
        "--stage", choices=("import", "decompose", "torch", "compile"), default="import"
    )
    parser.add_argument("--dtype", default="float32", help="sample dtype (torch attribute name)")
    parser.add_argument(
        "--write-core-map",
        default=None,
        help="with --stage decompose: write core op -> OpInfos (smallest programs first) as JSON",
    )
    args = parser.parse_args(argv)
    from tests.opinfo import harness

    db = harness.op_db()
    core = _core_opinfo_ids(args.core) if args.core else None
    indices = [
        i
        for i, o in enumerate(db)
        if (not args.only or args.only in o.name) and (core is None or _opinfo_id(o) in core)
    ]
    start = time.time()
    with multiprocessing.get_context("spawn").Pool(args.j, maxtasksperchild=100) as pool:
        rows = [
            r
            for rs in pool.imap_unordered(
                _check_opinfo, [(i, args.limit, args.stage, args.dtype) for i in indices]
            )
            for r in rs
        ]
    if args.write_core_map:
        _write_core_map(rows, args.write_core_map)
    rows = [r for r in rows if r[1] != "core-ops"]
    if args.stage == "compile":
        _report_compile(rows, len(indices), time.time() - start)
    else:
        _report(rows, len(indices), args.stage, time.time() - start)
    return 0


def _opinfo_id(opinfo) -> str:
    variant = f".{opinfo.variant_test_name}" if opinfo.variant_test_name else ""
    return opinfo.name + variant


def _core_opinfo_ids(which: str) -> set[str]:
    import json
    from pathlib import Path

    table = json.loads(Path(__file__).with_name("core_opinfos.json").read_text())
    return {ids[0] for ids in table.values()} if which == "first" else set(sum(table.values(), []))


def _write_core_map(rows, path: str) -> None:
    """core op -> OpInfo ids whose first samples' decomposed programs hold it, smallest first."""
    import json

    sizes = collections.defaultdict(dict)
    for case_id, status, why in rows:
        if status != "core-ops":
            continue
        n, *ops = why.split()
        opinfo = case_id.rsplit("-", 1)[0]
        for op in ops:
            sizes[op][opinfo] = min(int(n), sizes[op].get(opinfo, 10**9))
    from aten_mlir.passes.decompose import target_set

    table = {op: sorted(d, key=lambda k: (d[k], k)) for op, d in sorted(sizes.items())}
    table = {op: ids for op, ids in table.items() if op in target_set()}
    try:  # merge with a map written from other dtypes' samples
        with open(path) as f:
            for op, ids in json.load(f).items():
                table[op] = table.get(op, []) + [i for i in ids if i not in table.get(op, [])]
    except (OSError, ValueError):
        pass
    table = dict(sorted(table.items()))
    with open(path, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}: {len(table)} core ops")


def _report_compile(rows, n_opinfos: int, seconds: float) -> None:
    """Failures, fallbacks, then per core overload: samples containing it that compiled with no
    fallback and equalled eager."""
    closer = sorted(case_id for case_id, status, _ in rows if status == "closer")
    rows = [(c, "ok" if st == "closer" else st, why) for c, st, why in rows]
    counts = collections.Counter(status for _, status, _ in rows)
    exported = counts["ok"] + counts["fail"] + counts["fallback"]
    for case_id, status, why in sorted(rows):
        if status == "fail":
            print(f"FAIL {case_id}: {why}")
    if closer:
        shown = " ".join(sorted({i.rsplit("-", 1)[0] for i in closer}))
        print(f"NEARER FLOAT64 THAN EAGER (counted ok): {len(closer)} samples ({shown})")
    per_op = collections.defaultdict(lambda: [0, 0])
    fell = collections.defaultdict(list)
    for case_id, status, why in rows:
        if status not in ("ok", "fallback"):
            continue
        fallbacks, _, core = why.partition(" | ")
        for name in fallbacks.split():
            fell[name].append(case_id)
        for name in core.split():
            per_op[name][1] += 1
            per_op[name][0] += name not in fallbacks.split()
    for name, ids in sorted(fell.items(), key=lambda kv: -len(kv[1])):
        shown = " ".join(sorted({i.rsplit("-", 1)[0] for i in ids})[:6])
        print(f"FALLBACK {name}: {len(ids)} samples ({shown})")
    for name, (good, seen) in sorted(per_op.items()):
        print(f"CORE {name}: lowered in {good}/{seen} samples")
    from aten_mlir.dialects import core_op_names

    core = core_op_names()
    core_rows = [
        (status, why)
        for _, status, why in rows
        if status in ("ok", "fallback") and set(why.partition(" | ")[2].split()) <= core
    ]
    core_failed = sum(1 for _, status, _ in rows if status == "fail")
    core_ok = sum(1 for status, _ in core_rows if status == "ok")
    print(
        f"samples whose decomposed program is core ATen only: {len(core_rows)} ran, "
        f"{core_ok} with no fallback and == eager; failures (any program): {core_failed}; "
        f"core-op share: {core_ok}/{len(core_rows) + core_failed} "
        f"({100.0 * core_ok / max(len(core_rows) + core_failed, 1):.2f}%)"
    )
    print(
        f"\nOpInfos: {n_opinfos}  samples: {len(rows)}  exported: {exported}  "
        f"not exported by torch.export: {counts['not-exported']}"
    )
    print(
        f"compiled with no fallback and == eager: {counts['ok']}/{exported} "
        f"({100.0 * counts['ok'] / max(exported, 1):.2f}%; {len(closer)} of them nearer the "
        f"float64 result than eager instead); with fallbacks and == eager: "
        f"{counts['fallback']}; core overloads seen: {len(per_op)}  in {seconds:.0f}s"
    )


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

"""One workload in this process: compile it with aten-mlir and Inductor, check aten-mlir
against eager, time all of them alternately; prints one JSON line per row (a dynamic workload
gives one row per size).

    python -m bench.run_one <workload> <threads> <mode> [--reps N] [--budget S]
        [--target cpu|triton] [--device cpu|cuda]

`mode`: "full" (compile + timings) or "compile" (compile times only: run it again with the same
cache directories to time compiling from the caches). The caller sets `TORCHINDUCTOR_CACHE_DIR`
and `ATEN_MLIR_BENCH_CACHE` (aten-mlir's `cache_dir`; empty for a cold compile) so both compilers
start cold or warm alike; without it aten-mlir compiles with `cache=False`. A compiler that fails
(export, compile, or the call) is reported in the row (`errors`), and the others still run.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import time
from typing import NamedTuple

import torch

from .timing import MISMATCH, dtype_of, errors, time_alternately
from .training import prepare_training
from .workload import counted_flops, io_bytes, weight_bytes


def _short(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:300] if text else ''}"


def _timed(fn):
    """(fn(), seconds, None) or (None, seconds, error text)."""
    gc.collect()  # export leaves the collector overdue: its full pass must not land in a timing
    start = time.perf_counter()
    try:
        return fn(), time.perf_counter() - start, None
    except Exception as error:  # noqa: BLE001 - reported per workload
        return None, time.perf_counter() - start, _short(error)


def _compile_ours(model, inputs, args, dynamic_shapes=None):
    import aten_mlir

    def build():
        ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes, strict=False)
        cache = os.environ.get("ATEN_MLIR_BENCH_CACHE")
        options = dict(cache_dir=cache) if cache else dict(cache=False)
        return aten_mlir.compile(ep, target=args.target, **options)

    return _timed(build)


def _compile_inductor(model, inputs, dynamic: bool):
    def build():
        compiled = torch.compile(model, backend="inductor", dynamic=dynamic or None)
        with torch.no_grad():
            compiled(*inputs)  # Inductor compiles on the first call
        return compiled

    return _timed(build)


def _check(row: dict, name: str, compiled, inputs, expected, dtype) -> bool:
    """Runs `compiled` once against eager's `expected`; records the error (or the failure)."""
    try:
        with torch.no_grad():
            actual = compiled(*inputs)
    except Exception as error:  # noqa: BLE001
        row["errors"][name] = "call: " + _short(error)
        return False
    worst, relative = errors(actual, expected)
    row.setdefault("max_abs_error", {})[name] = worst
    row.setdefault("rel_error", {})[name] = relative
    if not relative <= MISMATCH.get(dtype, 1e-3):  # NaN counts as a mismatch
        row.setdefault("mismatch", []).append(name)
    fallbacks = sorted({f.op for f in getattr(compiled, "fallbacks", [])})
    if fallbacks:
        row.setdefault("fallbacks", {})[name] = fallbacks
    return True


def _work(work, model, inputs, expected) -> dict:
    if work.kind == "flops":
        return {"flops": work.flops or counted_flops(model, inputs)}
    if work.kind == "bytes":
        return {"bytes": io_bytes(inputs, expected)}
    if work.kind == "weights":
        return {"bytes": io_bytes(inputs, expected) + weight_bytes(model)}
    return {}


def _time(row, runners, inputs, args) -> None:
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    row["seconds"] = time_alternately(
        runners, inputs, budget_s=args.budget, reps=args.reps, sync=sync
    )


class Case(NamedTuple):
    """One row to time: its fields so far, the runners by name, the inputs."""

    row: dict
    runners: dict
    inputs: tuple


def _start_up_torch() -> None:
    """torch's one-time start-up both compilers go through (importing dynamo, export's tracing
    machinery: 0.8-1.5 s), outside either compile time, as the training set does: whichever
    compiler ran first paid it for both."""

    class _Tiny(torch.nn.Module):
        def forward(self, x):
            return x.sin() * 2

    torch.export.export(_Tiny(), (torch.ones(2),), strict=False)


def prepare_static(work, model, inputs, args) -> list[Case]:
    row = {"errors": {}}
    _start_up_torch()
    with torch.no_grad():
        expected = model(*inputs)
    dtype = dtype_of(inputs, model)
    ours, ours_s, row["errors"]["aten_mlir"] = _compile_ours(model, inputs, args)
    ind, ind_s, row["errors"]["inductor"] = _compile_inductor(model, inputs, dynamic=False)
    row["compile_s"] = {"aten_mlir": ours_s, "inductor": ind_s}
    row["from_cache"] = bool(getattr(ours, "from_cache", False))
    runners = {"eager": model}
    if ind is not None:
        runners["inductor"] = ind
    if args.mode == "full":
        if ours is not None and _check(row, "aten_mlir", ours, inputs, expected, dtype):
            runners["aten_mlir"] = ours
        row.update(_work(work, model, inputs, expected))
    return [Case(row, runners, inputs)]


def prepare_dynamic(work, model, inputs, args) -> list[Case]:
    """One dynamic compile of each, checked at every size, next to a static aten-mlir compile
    per size; Inductor is called once at each size here, so its recompiles (it specializes
    size 1) land outside the timings."""
    first = {"errors": {}}
    _start_up_torch()
    shapes = work.dynamic.shapes()
    ours, ours_s, first["errors"]["aten_mlir"] = _compile_ours(model, inputs, args, shapes)
    ind, ind_s, first["errors"]["inductor"] = _compile_inductor(model, inputs, dynamic=True)
    first["compile_s"] = {"aten_mlir": ours_s, "inductor": ind_s}
    cases = []
    for label, sized in work.dynamic.sizes():
        sized = _to(sized, args.device)
        row = first if not cases else {"errors": dict(first["errors"])}
        row["size"] = label
        with torch.no_grad():
            expected = model(*sized)
        dtype = dtype_of(sized, model)
        static, static_s, row["errors"]["aten_mlir_static"] = _compile_ours(model, sized, args)
        row.setdefault("compile_s", {})["aten_mlir_static"] = static_s
        runners = {"eager": model}
        if ind is not None and _warm(row, ind, sized):
            runners["inductor"] = ind
        if ours is not None and _check(row, "aten_mlir", ours, sized, expected, dtype):
            runners["aten_mlir"] = ours
        if static is not None and _check(row, "aten_mlir_static", static, sized, expected, dtype):
            runners["aten_mlir_static"] = static
        row.update(_work(work, model, sized, expected))
        cases.append(Case(row, runners, sized))
    return cases


def _warm(row, compiled, inputs) -> bool:
    """Calls Inductor's `compiled` once (a recompile for a new size lands here)."""
    _, seconds, error = _timed(lambda: compiled(*inputs))
    if error:
        row["errors"]["inductor"] = "call: " + error
        return False
    row.setdefault("inductor_first_call_s", {})[str(tuple(inputs[0].shape))] = seconds
    return True


def _recompile_inductor(work, model, cases: list[Case]) -> None:
    """Inductor bakes the thread count into its kernels: compile again after a change."""
    torch._dynamo.reset()
    first = cases[0]
    dynamic = work.dynamic is not None
    ind, seconds, error = _compile_inductor(model, first.inputs, dynamic=dynamic)
    for case in cases:
        case.runners.pop("inductor", None)
        case.row.pop("inductor_first_call_s", None)
        if error:
            case.row["errors"]["inductor"] = error
        elif not dynamic or _warm(case.row, ind, case.inputs):
            case.runners["inductor"] = ind
    first.row["inductor_recompile_s"] = seconds


def _to(inputs, device: str):
    return tuple(t.to(device) if isinstance(t, torch.Tensor) else t for t in inputs)


def _set_threads(threads: str) -> None:
    torch.set_num_threads(os.cpu_count() if threads == "all" else int(threads))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("threads", help="comma-separated thread counts, timed in this order")
    parser.add_argument("mode", choices=("full", "compile"))
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    threads = args.threads.split(",")
    _set_threads(threads[0])
    from .workloads import WORKLOADS

    work = WORKLOADS[args.name]
    model, inputs = work.build()
    model, inputs = model.to(args.device), _to(inputs, args.device)
    training = work.group == "training"
    prepare = prepare_dynamic if work.dynamic is not None else prepare_static
    if training:
        prepare = functools.partial(prepare_training, case_type=Case, short=_short)
    cases = prepare(work, model, inputs, args)
    for k, count in enumerate(threads if args.mode == "full" else threads[:1]):
        if k:
            _set_threads(count)
            if training:  # each step compiled again, at this thread count
                torch._dynamo.reset()
                cases = prepare(work, model, inputs, args)
            else:
                _recompile_inductor(work, model, cases)
        for case in cases:
            row = dict(case.row) if k == 0 else _later(case.row)
            if args.mode == "full":
                _time(row, case.runners, case.inputs, args)
            row["errors"] = {n: e for n, e in row["errors"].items() if e}
            row.update(workload=args.name, group=work.group, threads=count, kind=work.kind)
            print(json.dumps(row), flush=True)
    return 0


def _later(row: dict) -> dict:
    """A row at a later thread count: the same checks, no (cold) compile times."""
    later = {k: v for k, v in row.items() if k not in ("compile_s", "from_cache")}
    later["errors"] = dict(row["errors"])
    return later


if __name__ == "__main__":
    raise SystemExit(main())

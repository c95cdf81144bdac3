"""One workload in this process: compile it with aten-mlir and Inductor, check aten-mlir
against eager, time all three alternately; prints one JSON line.

    python -m bench.run_one <workload> <threads> <mode>

`mode`: "full" (compile + timings) or "compile" (compile times only: run it again with the same
cache directories to time compiling from the caches). The caller sets `TORCHINDUCTOR_CACHE_DIR`
and `ATEN_MLIR_BENCH_CACHE` (aten-mlir's `cache_dir`) so both compilers start cold or warm alike.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time

import torch

_MIN_SAMPLE_S = 0.002  # calls per timing sample: enough that one sample takes this long
_ROUNDS = 15
# Seconds of samples per runner: a slow model (GPT-2 small: ~0.3 s a call in eager) takes fewer
# rounds, down to _MIN_ROUNDS, so it does not add minutes to the suite.
_BUDGET_S = 3.0
_MIN_ROUNDS = 5


def main(argv=None) -> int:
    name, threads, mode = (argv or sys.argv[1:])[:3]
    torch.set_num_threads(os.cpu_count() if threads == "all" else int(threads))
    import aten_mlir

    from .workloads import WORKLOADS, io_bytes

    work = WORKLOADS[name]
    model, inputs = work.build()
    ep = torch.export.export(model, inputs, strict=False)
    # export leaves the garbage collector overdue; its full pass must not land in either timing
    gc.collect()
    start = time.perf_counter()
    ours = aten_mlir.compile(ep, target="cpu", cache_dir=os.environ["ATEN_MLIR_BENCH_CACHE"])
    ours_compile = time.perf_counter() - start
    inductor = torch.compile(model, backend="inductor")
    gc.collect()
    start = time.perf_counter()
    with torch.no_grad():
        inductor(*inputs)  # Inductor compiles on the first call
    inductor_compile = time.perf_counter() - start
    result = {
        "workload": name,
        "threads": threads,
        "compile_s": {"aten_mlir": ours_compile, "inductor": inductor_compile},
        "from_cache": bool(getattr(ours, "from_cache", False)),
    }
    if mode == "full":
        with torch.no_grad():
            expected = model(*inputs)
            actual = ours(*inputs)
        result["max_abs_error"] = _max_error(actual, expected)
        result["fallbacks"] = sorted({f.op for f in ours.fallbacks})
        result["seconds"] = _time_alternately(
            {"eager": model, "inductor": inductor, "aten_mlir": ours}, inputs
        )
        seconds = result["seconds"]["aten_mlir"]
        if work.kind == "flops":
            result["gflops"] = work.flops / seconds / 1e9
        elif work.kind == "bytes":
            result["gbps"] = io_bytes(inputs, expected) / seconds / 1e9
    print(json.dumps(result))
    return 0


def _max_error(actual, expected) -> float:
    pairs = zip(torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected))
    return max(
        (float((a.double() - e.double()).abs().max()) for a, e in pairs if e.numel()),
        default=0.0,
    )


def _time_alternately(runners: dict, inputs) -> dict[str, float]:
    """Median seconds per call of each runner; the runners take turns, sample by sample, so a
    change in machine load shifts all of them alike."""
    calls, slowest = {}, 0.0
    with torch.no_grad():
        for name, run in runners.items():
            for _ in range(3):  # warm up
                run(*inputs)
            start = time.perf_counter()
            run(*inputs)
            once = time.perf_counter() - start
            calls[name] = max(1, int(_MIN_SAMPLE_S / max(once, 1e-9)))
            slowest = max(slowest, once * calls[name])
        rounds = max(_MIN_ROUNDS, min(_ROUNDS, int(_BUDGET_S / slowest)))
        samples = {name: [] for name in runners}
        for _ in range(rounds):
            for name, run in runners.items():
                start = time.perf_counter()
                for _ in range(calls[name]):
                    run(*inputs)
                samples[name].append((time.perf_counter() - start) / calls[name])
    return {name: statistics.median(s) for name, s in samples.items()}


if __name__ == "__main__":
    raise SystemExit(main())

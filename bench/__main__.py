"""The benchmark suite: aten-mlir against torch eager and Inductor, side by side.

    python -m bench [--set small|dynamic|bf16|realistic|all] [--workloads mlp,softmax]
        [--threads 1,all] [--reps N] [--budget S] [--cached] [--json out.json] [--plot out.png]
    python -m bench --target triton --device cuda    # the same workloads on a GPU (Triton)

Sets: `small` (static float32 ops and small models), `dynamic` (exported with `Dim`s on batch and
sequence, compiled once, timed at 3 sizes, next to a static compile at each size and Inductor's
`dynamic=True`), `bf16` (against eager bf16 and Inductor bf16), `realistic` (BERT-base b1/b8
seq 128, GPT-2 small prefill 256 and decode over a 256 cache, a LLaMA-7B layer prefill 128 and
decode, ResNet-50 224). The default is `all`. Limits are measured first, in the same run: the
f32 FMA peak of one core (an MLIR vector.fma loop built by backends/cpu), the bf16 matmul rate
(oneDNN/AMX) and a copy bandwidth; each row gives its rate as a fraction of its limit.

Each workload runs in a process of its own (`bench/run_one.py`) with empty caches: cold
compile times, aten-mlir checked against eager (max relative error; MISMATCH flagged), a
compiler that fails reported in its row; then timings at each thread count in turn (Inductor
compiled again for each, as it bakes the thread count into its kernels). With `--cached` one
more process times compiling from the warm caches. Timing: eager, Inductor and
aten-mlir take turns sample by sample, median; rounds adapt to `--budget` seconds per workload
(`--reps N`: exactly N samples).

Run time on the 2-core development host, shared with other jobs (so measured loaded, not idle),
`--threads 1,all`: small 11-14 min, dynamic ~8 min, bf16 ~5 min, realistic ~15-20 min (Inductor's
cold compiles alone are 15-75 s a workload); `all` ~40 min. `--threads 1` saves about a third,
`--reps 1` most of the timing; compiling is the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import report
from .host import host_line
from .workloads import SETS, WORKLOADS, in_set

ROOT = Path(__file__).resolve().parents[1]
PROCESS_TIMEOUT_S = 1800


def _run(name: str, threads: str, mode: str, caches: Path, extra: list[str]) -> list[dict]:
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(caches / "inductor")
    env["ATEN_MLIR_BENCH_CACHE"] = str(caches / "aten_mlir")
    command = [sys.executable, "-m", "bench.run_one", name, threads, mode, *extra]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=PROCESS_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return [
            {
                "workload": name,
                "threads": threads,
                "error": f"timed out after {PROCESS_TIMEOUT_S} s",
            }
        ]
    rows = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode != 0 or not rows:
        tail = done.stderr.strip()[-600:] or f"exit code {done.returncode}"
        rows.append({"workload": name, "threads": threads, "error": tail})
    return rows


def run_suite(names, threads, extra, cached: bool, limits: dict) -> list[dict]:
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            caches = Path(tmp)
            got = _run(name, ",".join(threads), "full", caches, extra)
            if cached:
                warm = _run(name, threads[0], "compile", caches, extra)
                if warm and "compile_s" in warm[0] and "compile_s" in got[0]:
                    got[0]["cached_compile_s"] = warm[0]["compile_s"]
            for row in got:
                rows.append(row)
                print(report.line(row, limits), flush=True)
    return rows


def _limits(threads: list[str]) -> dict:
    import torch

    from .limits import describe, measure

    before, out = torch.get_num_threads(), {}
    for t in threads:
        out[t] = measure(os.cpu_count() if t == "all" else int(t))
        print(describe(out[t]), flush=True)
    torch.set_num_threads(before)
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--set", default="all", choices=(*SETS, "all"))
    parser.add_argument("--workloads", default=None, help="comma-separated (overrides --set)")
    parser.add_argument("--threads", default="1,all", help="comma-separated; 'all': every core")
    parser.add_argument("--reps", type=int, default=None, help="timed samples per runner")
    parser.add_argument("--budget", type=float, default=3.0, help="timing seconds per row")
    parser.add_argument("--cached", action="store_true", help="also time cached compiles")
    parser.add_argument("--target", default="cpu", choices=("cpu", "triton"))
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--json", default="bench_results.json")
    parser.add_argument("--plot", default=None, help="write a PNG bar chart of the speedups")
    return parser


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    names = args.workloads.split(",") if args.workloads else in_set(args.set)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {', '.join(WORKLOADS)}")
    if (args.target == "triton") != (args.device == "cuda"):
        parser.error("the Triton target runs on --device cuda, the CPU target on --device cpu")
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print("no CUDA device here: --target triton --device cuda needs a GPU; nothing run")
            return 0
        print(f"device: {torch.cuda.get_device_name()}")
    start = time.perf_counter()
    threads = args.threads.split(",")
    print(host_line(), flush=True)
    limits = _limits(threads) if args.device == "cpu" else {}
    print("x eager / x ind: the other's time over aten-mlir's (above 1: aten-mlir faster)")
    print(report.HEADER, flush=True)
    extra = ["--budget", str(args.budget), "--target", args.target, "--device", args.device]
    extra += ["--reps", str(args.reps)] if args.reps else []
    rows = run_suite(names, threads, extra, args.cached, limits)
    for text in report.summary(rows):
        print(text)
    elapsed = time.perf_counter() - start
    print(f"bench run took {elapsed / 60:.1f} min")
    out = {"host": host_line(), "limits": limits, "rows": rows, "minutes": elapsed / 60}
    Path(args.json).write_text(json.dumps(out, indent=1))
    print(f"wrote {args.json}")
    if args.plot:
        from .plot import plot

        plot(rows, args.plot)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

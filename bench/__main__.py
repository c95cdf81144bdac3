"""The CPU benchmark suite: aten-mlir against torch eager and Inductor, side by side.

    python -m bench [--workloads mlp,softmax] [--threads 1,all] [--json out.json] [--plot out.png]

Each workload runs in processes of its own (`bench/run_one.py`):
1. Cold: empty cache directories for both compilers; compile times, aten-mlir checked against
   eager, then steady-state times of eager, Inductor and aten-mlir taken alternately (median).
2. Cached: the same caches, compile times only.
3. One more timing process per other thread count.
The table gives speedups (eager time / aten-mlir time, Inductor time / aten-mlir time: above 1
means aten-mlir is faster), achieved GFLOP/s or GB/s, and compile times; the geomeans are over
the workloads at each thread count, and a last line gives each workload's cold compile time over
Inductor's (`gpt2_small`, GPT-2 small as released, is the model of the <= 0.1 target of #6). A
slow workload takes fewer timing rounds. No numbers are asserted anywhere: this is a report.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .workloads import WORKLOADS

ROOT = Path(__file__).resolve().parents[1]


def _run(name: str, threads: str, mode: str, caches: Path) -> dict:
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(caches / "inductor")
    env["ATEN_MLIR_BENCH_CACHE"] = str(caches / "aten_mlir")
    done = subprocess.run(
        [sys.executable, "-m", "bench.run_one", name, threads, mode],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"workload": name, "threads": threads, "error": done.stderr.strip()[-600:]}
    return json.loads(lines[-1])


def run_suite(names: list[str], threads: list[str]) -> list[dict]:
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            caches = Path(tmp)
            cold = _run(name, threads[0], "full", caches)
            cached = _run(name, threads[0], "compile", caches)
            if "compile_s" in cold and "compile_s" in cached:
                cold["cached_compile_s"] = cached["compile_s"]
                cold["cached_from_cache"] = cached.get("from_cache")
            rows.append(cold)
            print(_line(cold), flush=True)
            for t in threads[1:]:
                row = _run(name, t, "full", caches)
                rows.append(row)
                print(_line(row), flush=True)
    return rows


_HEADER = (
    f"{'workload':18}{'thr':>4}{'eager ms':>10}{'ind ms':>9}{'ours ms':>9}{'x eager':>9}"
    f"{'x ind':>7}{'rate':>13}  {'compile s ours/ind':<19}{'cached s ours/ind':>19}"
)


def _line(row: dict) -> str:
    if "error" in row:
        return f"{row['workload']:18}{row['threads']:>4}  failed: {row['error'][-160:]}"
    s = row["seconds"]
    rate = (
        f"{row['gflops']:.1f} GFLOP/s"
        if "gflops" in row
        else f"{row['gbps']:.1f} GB/s"
        if "gbps" in row
        else ""
    )
    c = row["compile_s"]
    cached = row.get("cached_compile_s")
    cached_text = f"{cached['aten_mlir']:.3f}/{cached['inductor']:.2f}" if cached else ""
    return (
        f"{row['workload']:18}{row['threads']:>4}{s['eager'] * 1e3:>10.3f}"
        f"{s['inductor'] * 1e3:>9.3f}{s['aten_mlir'] * 1e3:>9.3f}"
        f"{s['eager'] / s['aten_mlir']:>9.2f}{s['inductor'] / s['aten_mlir']:>7.2f}"
        f"{rate:>13}  {c['aten_mlir']:.2f}/{c['inductor']:<14.2f}{cached_text:>19}"
    )


def geomeans(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Per thread count: the geometric mean speedup over eager and over Inductor."""
    out = {}
    for threads in sorted({r["threads"] for r in rows}):
        done = [r for r in rows if r["threads"] == threads and "seconds" in r]
        if not done:
            continue
        out[threads] = {
            other: math.exp(
                sum(math.log(r["seconds"][other] / r["seconds"]["aten_mlir"]) for r in done)
                / len(done)
            )
            for other in ("eager", "inductor")
        }
    return out


def cold_compile_ratios(rows: list[dict]) -> dict[str, float]:
    """Per workload: aten-mlir's cold compile time over Inductor's, from its first (cold)
    process (issue #6 asks for <= 0.1 on GPT-2 small)."""
    out, seen = {}, set()
    for row in rows:
        if row["workload"] not in seen and "compile_s" in row:
            c = row["compile_s"]
            out[row["workload"]] = c["aten_mlir"] / c["inductor"]
        seen.add(row["workload"])
    return out


def plot(rows: list[dict], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install -e '.[bench]'") from None
    done = [r for r in rows if "seconds" in r]
    labels = [f"{r['workload']} ({r['threads']})" for r in done]
    x = range(len(done))
    fig, ax = plt.subplots(figsize=(max(6, len(done) * 0.7), 4))
    for k, other in enumerate(("eager", "inductor")):
        speedups = [r["seconds"][other] / r["seconds"]["aten_mlir"] for r in done]
        ax.bar([i + 0.4 * k for i in x], speedups, width=0.4, label=f"vs {other}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")  # speedups and slowdowns alike: 0.1x is as far below 1 as 10x above
    ax.set_xticks([i + 0.2 for i in x], labels, rotation=60, ha="right")
    ax.set_ylabel("aten-mlir speedup (x)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--threads", default="1,all", help="comma-separated; 'all': every core")
    parser.add_argument("--json", default="bench_results.json")
    parser.add_argument("--plot", default=None, help="write a PNG bar chart of the speedups")
    args = parser.parse_args(argv)
    names = args.workloads.split(",")
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {', '.join(WORKLOADS)}")
    print(f"{os.cpu_count()} cores; speedup = the other's time / aten-mlir's (above 1: faster)")
    print(_HEADER, flush=True)
    rows = run_suite(names, args.threads.split(","))
    means = geomeans(rows)
    for threads, m in means.items():
        print(
            f"geomean at {threads} thread(s): {m['eager']:.2f}x vs eager, "
            f"{m['inductor']:.2f}x vs Inductor"
        )
    ratios = cold_compile_ratios(rows)
    if ratios:
        print(
            "cold compile, aten-mlir / Inductor: "
            + ", ".join(f"{name} {r:.3f}x" for name, r in ratios.items())
        )
    Path(args.json).write_text(
        json.dumps({"rows": rows, "geomean": means, "cold_compile_ratio": ratios}, indent=1)
    )
    print(f"wrote {args.json}")
    if args.plot:
        plot(rows, args.plot)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The machine's limits, measured in the bench's own run: the f32 FMA peak of one core, the bf16
product peak (AMX through oneDNN, when the host has it) and a STREAM-like copy bandwidth.

    python -m bench.limits [--threads 1]

FMA peak: a register-only loop of independent `vector.fma` chains written in MLIR, lowered to
the LLVM dialect and built by `backends/cpu/native.compile_llvm_module` (the same `opt`/`llc
-mcpu` our kernels go through), at 8 and 16 f32 lanes; the peak is the faster of the two (on a
host whose LLVM tuning splits 512-bit vectors both give the same rate). The loop has 12 chains
x 4 rounds per iteration: more independent chains than FMA latency x ports, so only throughput
bounds it. Copy: `dst.copy_(src)` of 256 MiB in torch (read + write counted), best of a few, at
torch's current thread count. bf16: torch's bf16 matmul 2048^3 (oneDNN picks AMX on an AMX host),
so it is the library's rate, not an instruction peak: said so in the report.
"""

from __future__ import annotations

import os
import time

import torch

_CHAINS = 12
_ROUNDS = 4


def _fma_source(lanes: int) -> str:
    v = f"vector<{lanes}xf32>"
    accs = ", ".join(f"%a{i} = %x" for i in range(_CHAINS))
    types = ", ".join([v] * _CHAINS)
    body, names = [], [f"%a{i}" for i in range(_CHAINS)]
    for r in range(_ROUNDS):
        new = [f"%r{r}_{i}" for i in range(_CHAINS)]
        body += [f"{n} = vector.fma {o}, %x, %y : {v}" for n, o in zip(new, names)]
        names = new
    sums = [f"%s0 = arith.addf %l#0, %l#1 : {v}"]
    sums += [f"%s{i - 1} = arith.addf %s{i - 2}, %l#{i} : {v}" for i in range(2, _CHAINS)]
    return f"""
func.func @fma_peak(%io: memref<{2 * lanes}xf32>, %count: memref<1xi64>)
    attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cl = arith.constant {lanes} : index
  %x = vector.load %io[%c0] : memref<{2 * lanes}xf32>, {v}
  %y = vector.load %io[%cl] : memref<{2 * lanes}xf32>, {v}
  %n64 = memref.load %count[%c0] : memref<1xi64>
  %n = arith.index_cast %n64 : i64 to index
  %l:{_CHAINS} = scf.for %i = %c0 to %n step %c1 iter_args({accs}) -> ({types}) {{
    {chr(10).join(body)}
    scf.yield {", ".join(names)} : {types}
  }}
  {chr(10).join(sums)}
  vector.store %s{_CHAINS - 2}, %io[%c0] : memref<{2 * lanes}xf32>, {v}
  return
}}
"""


_LOWER = (
    "builtin.module(convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
    "reconcile-unrealized-casts)"
)


def _fma_function(lanes: int):
    from mlir import ir
    from mlir.passmanager import PassManager

    from aten_mlir.backends.cpu import compile_llvm_module

    with ir.Context():
        module = ir.Module.parse(_fma_source(lanes))
        PassManager.parse(_LOWER).run(module.operation)
        text = str(module)
    library = compile_llvm_module(
        text, opt_level=3, cache_dir=os.environ.get("ATEN_MLIR_BENCH_CACHE")
    )
    return library.function("fma_peak", [f"memref<{2 * lanes}xf32>", "memref<1xi64>"], [])


def fma_peak_gflops(lanes: int, seconds: float = 0.3) -> float:
    """GFLOP/s of one core running the FMA loop at `lanes` f32 lanes (best of 5 samples)."""
    run = _fma_function(lanes)
    io = torch.full((2 * lanes,), 0.5)
    io[lanes:] = 0.25
    iterations = 1 << 16
    count = torch.tensor([iterations], dtype=torch.int64)
    run(io, count)
    start = time.perf_counter()
    run(io, count)
    once = max(time.perf_counter() - start, 1e-6)
    iterations = max(1 << 16, int(iterations * seconds / 5 / once))
    count = torch.tensor([iterations], dtype=torch.int64)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        run(io, count)
        best = min(best, time.perf_counter() - start)
    return iterations * _CHAINS * _ROUNDS * lanes * 2 / best / 1e9


def copy_gbps(mib: int = 256, samples: int = 5) -> float:
    """GB/s of `dst.copy_(src)` over `mib` MiB (bytes read + written), best of `samples`."""
    src = torch.ones(mib << 18)  # float32: 4 bytes each
    dst = torch.empty_like(src)
    dst.copy_(src)
    best = float("inf")
    for _ in range(samples):
        start = time.perf_counter()
        dst.copy_(src)
        best = min(best, time.perf_counter() - start)
    return 2 * src.numel() * 4 / best / 1e9


def bf16_matmul_gflops(n: int = 2048, samples: int = 3) -> float:
    """GFLOP/s of torch's bf16 n^3 matmul at torch's current thread count (oneDNN: AMX on an
    AMX host); the library's rate, standing in for the AMX peak."""
    a = torch.randn(n, n, dtype=torch.bfloat16)
    b = torch.randn(n, n, dtype=torch.bfloat16)
    a @ b
    best = float("inf")
    for _ in range(samples):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2.0 * n**3 / best / 1e9


def has_amx() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return "amx_bf16" in f.read()
    except OSError:
        return False


def measure(threads: int) -> dict:
    """The limits at `threads` threads: the FMA loop runs on one core (the all-core peak is it x
    threads: cores do not share FMA units), the copy and the bf16 product at `threads`."""
    torch.set_num_threads(threads)
    out: dict = {"threads": threads}
    try:
        out["fma_gflops_by_lanes"] = {lanes: fma_peak_gflops(lanes) for lanes in (8, 16)}
        out["fma_core_gflops"] = max(out["fma_gflops_by_lanes"].values())
        out["fma_source"] = "MLIR vector.fma loop via backends/cpu/native"
    except Exception as error:  # noqa: BLE001 - the report says why instead of crashing
        out["fma_error"] = f"{type(error).__name__}: {str(error)[:200]}"
    out["copy_gbps"] = copy_gbps()
    if has_amx():
        out["bf16_gflops"] = bf16_matmul_gflops()
        out["bf16_source"] = "torch bf16 matmul 2048^3 (oneDNN, AMX)"
    return out


def describe(limits: dict) -> str:
    lanes = limits.get("fma_gflops_by_lanes", {})
    if lanes:
        fma = "f32 FMA peak/core " + ", ".join(f"{v:.1f} ({k} lanes)" for k, v in lanes.items())
    else:
        fma = f"f32 FMA peak not measured ({limits.get('fma_error')})"
    text = f"limits at {limits['threads']} thr: {fma} GFLOP/s; copy {limits['copy_gbps']:.1f} GB/s"
    if "bf16_gflops" in limits:
        text += f"; bf16 matmul (oneDNN/AMX) {limits['bf16_gflops']:.0f} GFLOP/s"
    return text


def main(argv=None) -> int:
    import argparse
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1")
    args = parser.parse_args(argv)
    threads = os.cpu_count() if args.threads == "all" else int(args.threads)
    limits = measure(threads)
    print(describe(limits))
    print(json.dumps(limits))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Compile time per model, cold and from the on-disk cache, each in a fresh process; the cold
compile split into its stages.

    python -m bench.compile_times [--models bert,gpt2_small] [--stages]

Models: the test zoo's and the bench workloads (`gpt2_small` is GPT-2 small as released). Cold: an
empty cache directory, so every stage and the native build run. Cached: a second process
compiles the same program with that directory, which loads the plan and the library without
running MLIR. Export is torch.export's cost, paid on both runs; import (torch's decompositions
and our importer) is part of a cold compile. `--stages` adds a line per model: seconds in import,
in each lowering stage, in each native build tool, and in the rest of `compile()`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _build(name: str):
    from .workloads import WORKLOADS

    if name in WORKLOADS:
        return WORKLOADS[name].build()
    from tests.models.model_zoo import MODEL_ZOO

    model, inputs, _ = MODEL_ZOO[name].build()
    return model, inputs


def _time_calls(seconds: dict[str, float]) -> None:
    """Wraps the compiler's stage runner, importer and build-tool runner so each adds its wall
    time to `seconds` (a stage under its name, a tool under its binary's name)."""
    from aten_mlir.backends import compiler
    from aten_mlir.backends.cpu import native

    def timed(module, attribute, label):
        inner = getattr(module, attribute, None)
        if inner is None:  # renamed: that part of the breakdown goes to "rest"
            return

        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                key = label(*args)
                seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - start

        setattr(module, attribute, wrapper)

    timed(compiler, "import_program", lambda *a: "import")
    timed(compiler, "_run_stage", lambda stage, *a: stage.name)
    timed(compiler, "outline", lambda *a: "outline")
    timed(native, "_run", lambda command, *a: Path(command[0]).name)
    timed(native, "_run_all", lambda commands, *a: Path(commands[0][0]).name)


def child(name: str, cache: str, stages: bool) -> dict:
    """One compile of `name` with `cache`: seconds of export, compile and the first call."""
    import torch

    import aten_mlir

    parts: dict[str, float] = {}
    if stages:
        # the per-stage wrappers see only stages run in this process, not in the isolated child
        os.environ["ATEN_MLIR_ISOLATE"] = "0"
        _time_calls(parts)
    model, inputs = _build(name)
    start = time.perf_counter()
    ep = torch.export.export(model, inputs, strict=False)
    gc.collect()  # export leaves a full collection overdue; it must not land in the compile
    exported = time.perf_counter()
    compiled = aten_mlir.compile(ep, target="cpu", cache_dir=cache)
    done = time.perf_counter()
    compiled(*inputs)
    first_call = time.perf_counter() - done
    parts["rest"] = (done - exported) - sum(parts.values())
    return dict(
        export=exported - start,
        compile=done - exported,
        first_call=first_call,
        parts=parts,
        from_cache=compiled.from_cache,
        fallbacks=len(compiled.fallbacks),
    )


def measure(name: str, cache: str, stages: bool = False) -> dict:
    command = [sys.executable, "-m", "bench.compile_times", "--child", name, cache]
    run = subprocess.run(
        command + (["--stages"] if stages else []),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if run.returncode:
        raise RuntimeError(f"{name}: {run.stderr.strip().splitlines()[-1]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    from tests.models.model_zoo import MODEL_ZOO

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODEL_ZOO))
    parser.add_argument("--stages", action="store_true", help="time each stage of the cold run")
    parser.add_argument("--child", nargs=2, metavar=("MODEL", "CACHE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child, args.stages)))
        return 0
    print(f"{'model':<14}{'export':>8}{'cold':>8}{'cached':>8}  fallbacks")
    for name in args.models.split(","):
        with tempfile.TemporaryDirectory(prefix="aten_mlir_bench_") as cache:
            cold = measure(name, cache, args.stages)
            warm = measure(name, cache)
        assert warm["from_cache"], f"{name}: the second compile did not hit the cache"
        print(
            f"{name:<14}{cold['export']:>7.2f}s{cold['compile']:>7.2f}s"
            f"{warm['compile']:>7.3f}s  {cold['fallbacks']}"
        )
        if args.stages:
            print("  " + ", ".join(f"{k} {v:.2f}" for k, v in cold["parts"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

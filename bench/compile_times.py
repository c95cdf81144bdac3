"""Compile time per model, cold and from the on-disk cache, each in a fresh process.

    python -m bench.compile_times [--models bert,gpt2]

Cold: an empty cache directory, so every stage and the native build run. Cached: a second
process compiles the same program with that directory, which loads the plan and the library
without running MLIR. Export and import are timed apart (they are torch.export's and the
importer's cost, paid on both runs).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

_ONE_RUN = """
import json, sys, time
t0 = time.perf_counter()
import torch, aten_mlir
from tests.models.model_zoo import MODEL_ZOO
name, cache = sys.argv[1], sys.argv[2]
model, inputs, _ = MODEL_ZOO[name].build()
t1 = time.perf_counter()
ep = torch.export.export(model, inputs, strict=False)
t2 = time.perf_counter()
program = aten_mlir.import_program(ep)
t3 = time.perf_counter()
compiled = aten_mlir.compile(program, cache_dir=cache)
t4 = time.perf_counter()
compiled(*inputs)
t5 = time.perf_counter()
print(json.dumps(dict(export=t2 - t1, import_=t3 - t2, compile=t4 - t3, first_call=t5 - t4,
                      from_cache=compiled.from_cache, fallbacks=len(compiled.fallbacks))))
"""

ROOT = Path(__file__).resolve().parents[1]


def measure(name: str, cache: str) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", _ONE_RUN, name, cache],
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
    args = parser.parse_args(argv)
    print(f"{'model':<14}{'export':>8}{'import':>8}{'cold':>8}{'cached':>8}  fallbacks")
    for name in args.models.split(","):
        with tempfile.TemporaryDirectory(prefix="aten_mlir_bench_") as cache:
            cold = measure(name, cache)
            warm = measure(name, cache)
        assert warm["from_cache"], f"{name}: the second compile did not hit the cache"
        print(
            f"{name:<14}{cold['export']:>7.2f}s{cold['import_']:>7.2f}s{cold['compile']:>7.2f}s"
            f"{warm['compile']:>7.3f}s  {cold['fallbacks']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

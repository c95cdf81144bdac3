"""Timing runners side by side, and comparing results with eager.

The runners take turns, sample by sample, so a change in machine load (other processes on a
shared host) shifts all of them alike; the reported time is the median sample. A sample repeats a
call until it lasts `MIN_SAMPLE_S`; the number of rounds adapts to a time budget per workload
(`budget_s` over all runners), between `min_rounds` and `MAX_ROUNDS`, unless `reps` fixes it.
A call slower than 50 ms is not repeated to warm up: the runners were all called before (compile,
check against eager), and its calibration call is the first sample.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

import torch

MIN_SAMPLE_S = 0.002
MAX_ROUNDS = 15


def time_alternately(
    runners: dict[str, Callable],
    inputs,
    *,
    budget_s: float = 3.0,
    min_rounds: int = 3,
    reps: int | None = None,
    sync: Callable[[], None] = lambda: None,
) -> dict[str, float]:
    """Median seconds per call of each runner."""
    calls, slowest, samples = {}, 0.0, {name: [] for name in runners}
    with torch.no_grad():
        for name, run in runners.items():
            start = time.perf_counter()
            run(*inputs)  # every runner was called once before (compile, check): no cold call
            sync()
            once = time.perf_counter() - start
            if once < 0.05:  # cheap: warm up again, measure once more
                run(*inputs)
                sync()
                start = time.perf_counter()
                run(*inputs)
                sync()
                once = time.perf_counter() - start
            else:  # a slow call is itself the first sample
                samples[name].append(once)
            calls[name] = max(1, int(MIN_SAMPLE_S / max(once, 1e-9))) if reps is None else 1
            slowest += once * calls[name]
        rounds = reps or max(min_rounds, min(MAX_ROUNDS, int(budget_s / max(slowest, 1e-9))))
        for _ in range(rounds):
            for name, run in runners.items():
                if len(samples[name]) >= rounds:
                    continue
                start = time.perf_counter()
                for _ in range(calls[name]):
                    run(*inputs)
                sync()
                samples[name].append((time.perf_counter() - start) / calls[name])
    return {name: statistics.median(s) for name, s in samples.items()}


def errors(actual, expected) -> tuple[float, float]:
    """The max abs difference over all output tensors, and it over the largest |expected|."""
    pairs = list(
        zip(torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected))
    )
    worst = scale = 0.0
    for a, e in pairs:
        if not isinstance(e, torch.Tensor) or not e.numel():
            continue
        a, e = a.detach().cpu().double(), e.detach().cpu().double()
        worst = max(worst, float((a - e).abs().max()))
        scale = max(scale, float(e.abs().max()))
    return worst, worst / max(scale, 1e-30)


# relative error above which a result is flagged as a mismatch: f32 allows reordered sums over
# long reductions, bf16 its 8-bit mantissa through a few layers
MISMATCH = {torch.float32: 1e-3, torch.bfloat16: 5e-2, torch.float16: 1e-2}


def dtype_of(inputs, model) -> torch.dtype:
    for t in torch.utils._pytree.tree_leaves(inputs):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            return t.dtype
    params = list(model.parameters())
    return params[0].dtype if params else torch.float32

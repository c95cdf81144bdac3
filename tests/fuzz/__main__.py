"""Fuzz campaign: `python -m tests.fuzz --target cpu|triton|both --seconds N --seed S --jobs J`.

Generates programs `seed:0, seed:1, ...`, runs each in a forked child per target (`--jobs` at
once), prints the count of each outcome class, the clean errors' messages and the fallback ops,
and writes each bug (shrunk) to `--out` as a regression record test_regressions.py can replay."""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from . import runner
from .generate import generate
from .runner import BUG_CLASSES, Running
from .shrink import shrink, write_regression


def _arguments(argv):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--target", choices=["cpu", "triton", "both"], default="cpu")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--count", type=int, default=None, help="stop after this many programs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="first program index")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    parser.add_argument("--shrink-budget", type=int, default=30, help="child runs per failure")
    parser.add_argument("--max-shrinks", type=int, default=3, help="failures shrunk per signature")
    return parser.parse_args(argv)


_LISTED = ("clean-error", "export-skip", "gen-error", "numerics")


class Campaign:
    def __init__(self, args):
        self.args = args
        self.counts = collections.Counter()
        self.errors = collections.Counter()
        self.fallback_ops = collections.Counter()
        self.shrunk = collections.Counter()
        self.cache = tempfile.mkdtemp(prefix="fuzz_cache_")
        targets = ["cpu", "triton"] if args.target == "both" else [args.target]
        self.work = ((i, t) for i in range(args.start, 1 << 62) for t in targets)

    def record(self, index: int, target: str, program, outcome) -> None:
        self.counts[(target, outcome.cls)] += 1
        if outcome.cls in _LISTED or outcome.cls in BUG_CLASSES:
            self.errors[(target, outcome.cls, outcome.detail[:160])] += 1
        if outcome.cls == "numerics":  # kept for a look, not shrunk
            name = f"{target}-s{self.args.seed}-{index}-numerics"
            write_regression(self.args.out / "numerics", name, program, target, outcome)
        for op in outcome.fallbacks:
            self.fallback_ops[(target, op)] += 1
        if outcome.cls in BUG_CLASSES or outcome.cls == "gen-error":
            self.report_bug(index, target, program, outcome)

    def report_bug(self, index, target, program, outcome) -> None:
        name = f"{target}-s{self.args.seed}-{index}-{outcome.cls}"
        print(f"[{name}] {outcome.detail[:300]}\n  " + program.describe().replace("\n", "\n  "))
        key = (target, outcome.signature())
        if outcome.cls == "gen-error" or self.shrunk[key] >= self.args.max_shrinks:
            write_regression(self.args.out / "unshrunk", name, program, target, outcome)
            return
        self.shrunk[key] += 1
        small, small_outcome = shrink(program, target, outcome, self.args.shrink_budget)
        path = write_regression(self.args.out, name, small, target, small_outcome)
        print(
            f"  shrunk to {path} ({small_outcome.detail[:200]}):\n  "
            + small.describe().replace("\n", "\n  "),
            flush=True,
        )

    def run(self) -> None:
        self.start = start = time.monotonic()
        self.running = running = []
        done = 0
        while True:
            out_of_time = time.monotonic() - start > self.args.seconds
            out_of_count = self.args.count is not None and done + len(running) >= self.args.count
            while len(running) < self.args.jobs and not (out_of_time or out_of_count):
                index, target = next(self.work)
                program = generate(self.args.seed, index)
                running.append(
                    (
                        index,
                        target,
                        program,
                        Running(program, target, self.cache, self.args.timeout),
                    )
                )
                out_of_count = (
                    self.args.count is not None and done + len(running) >= self.args.count
                )
            if not running:
                break
            for item in list(running):
                outcome = item[3].poll(0.05 if len(running) > 1 else 1.0)
                if outcome is not None:
                    running.remove(item)
                    done += 1
                    self.record(item[0], item[1], item[2], outcome)
                    if done % 100 == 0:
                        counts = dict(collections.Counter(c for _, c in self.counts.elements()))
                        print(
                            f"-- {done} done, {time.monotonic() - start:.0f}s: {counts}", flush=True
                        )
        self.elapsed = time.monotonic() - start

    def stop(self) -> None:
        for item in self.running:
            item[3].kill()
        self.elapsed = time.monotonic() - self.start

    def summary(self) -> str:
        lines = [f"{sum(self.counts.values())} runs in {self.elapsed:.0f}s (seed {self.args.seed})"]
        for target in sorted({t for t, _ in self.counts}):
            per = {c: n for (t, c), n in sorted(self.counts.items()) if t == target}
            lines.append(f"{target}: {sum(per.values())} programs: {json.dumps(per)}")
        bugs = sum(n for (t, c), n in self.counts.items() if c in BUG_CLASSES)
        lines.append(f"bugs (crash/hang/mismatch/internal-error): {bugs}")
        lines.append("messages (clean errors, skips, bugs), most frequent first:")
        for (t, c, d), n in self.errors.most_common(40):
            lines.append(f"  {n:5d} {t} {c}: {d}")
        if self.fallback_ops:
            lines.append(
                "fallback ops: "
                + ", ".join(f"{t}:{op} x{n}" for (t, op), n in self.fallback_ops.most_common())
            )
        return "\n".join(lines)


def main(argv=None) -> int:
    args = _arguments(argv)
    if args.target in ("triton", "both"):
        os.environ.setdefault("TRITON_INTERPRET", "1")
    runner.warm_up()
    campaign = Campaign(args)
    # a campaign stopped early (Ctrl-C, kill) still prints what it counted
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        campaign.run()
    except KeyboardInterrupt:
        campaign.stop()
    text = campaign.summary()
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"summary-{args.target}-s{args.seed}.txt").write_text(text + "\n")
    return 1 if any(c in BUG_CLASSES for _, c in campaign.counts) else 0


if __name__ == "__main__":
    sys.exit(main())

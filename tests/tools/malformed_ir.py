"""A malformed-IR corpus for `aten-opt`, and a driver that runs it.

The inputs are made, reproducibly (one `random.Random` per input, seeded by its name), from the
valid seed files in `tests/tools/malformed/`: truncations, unknown ops, wrong types, removed
`operandSegmentSizes`, byte flips, non-UTF-8 bytes, deleted terminators, duplicated symbols,
bad attributes, deleted, swapped and duplicated lines, unbalanced brackets and odd numbers.

The driver runs `aten_opt.main(argv)` in forked children (no Python start-up per run), two at a
time, and sorts each run: exit 0, exit 1 with a located first line (`file:line:col: error:`;
only the empty file may say `aten-opt: error:`), or a failure: a traceback, a signal, another exit
status, an unlocated first line, or a hang.

    python -m tests.tools.malformed_ir [--all]    # counts; --all: every input with every --stage
"""

from __future__ import annotations

import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

SEEDS = Path(__file__).parent / "malformed"
PER_SEED = 70
LOCATED = re.compile(r"^\S.*:\d+:\d+: error: ")
# What has no place in the file: only the empty file may say so
UNLOCATED = re.compile(r"^aten-opt: error: ")
TRACEBACK = 3  # the exit status of a child whose main() raised
TIMEOUT = 60.0


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def truncate(rng, text):
    return text[: rng.randrange(len(text))]


def unknown_op(rng, text):
    names = re.findall(r'"?\b(?:aten|linalg|arith|memref|scf|tensor|func)\.[\w.]+', text)
    name = rng.choice(names)
    new = re.sub(r"\.[\w.]+$", ".no_such_op", name)
    return text.replace(name, new, 1)


TYPES = ["f32", "f16", "bf16", "i1", "i64", "index", "tensor<2xf32>", "memref<?xf32>", "none"]


def wrong_type(rng, text):
    spots = list(re.finditer(r"\b(f32|i64|i1|index|tensor<[^>]*>|memref<[^>]*>)", text))
    m = rng.choice(spots)
    return text[: m.start()] + rng.choice(TYPES) + text[m.end() :]


def segment_sizes(rng, text):
    m = re.search(r",?\s*operandSegmentSizes = array<i32[^>]*>", text)
    if m is None:
        return None
    if rng.random() < 0.5:
        return text[: m.start()] + text[m.end() :]
    values = ", ".join(str(rng.choice([0, 1, 2, -1, 7])) for _ in range(rng.randrange(1, 6)))
    return text[: m.start()] + f", operandSegmentSizes = array<i32: {values}>" + text[m.end() :]


def byte_flip(rng, text):
    data = bytearray(text.encode())
    for _ in range(rng.randrange(1, 4)):
        data[rng.randrange(len(data))] ^= rng.randrange(1, 256)
    return bytes(data)


def non_utf8(rng, text):
    data = text.encode()
    at = rng.randrange(len(data))
    bad = rng.choice([b"\xff", b"\xc3(", b"\x80", b"\xe2\x82", b"\xfe\xfe"])
    return data[:at] + bad + data[at:]


def delete_terminator(rng, text):
    lines = _lines(text)
    spots = [i for i, t in enumerate(lines) if re.search(r"\b(return|yield)\b", t)]
    del lines[rng.choice(spots)]
    return "".join(lines)


def duplicate_symbol(rng, text):
    if "@helper" in text and rng.random() < 0.5:
        return text.replace("func.func private @helper", "func.func private @main")
    return text + text  # every function twice


BAD_VALUES = ['"x"', "99 : i64", "-5 : i64", "array<i64>", "#bogus<>", "unit", "1.5 : f16", "[]"]


def bad_attribute(rng, text):
    spots = list(re.finditer(r"(\b\w+ = )([^,}]+)", text))
    if not spots:
        return None
    m = rng.choice(spots)
    return text[: m.start(2)] + rng.choice(BAD_VALUES) + text[m.end(2) :]


def delete_line(rng, text):
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "".join(lines)


def swap_lines(rng, text):
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def duplicate_line(rng, text):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return "".join(lines)


def unbalance(rng, text):
    spots = [i for i, c in enumerate(text) if c in "{}()<>[]"]
    at = rng.choice(spots)
    return text[:at] + text[at + 1 :]


def odd_number(rng, text):
    spots = list(re.finditer(r"(?<![%\w#])-?\d+(?![\w.])", text))
    m = rng.choice(spots)
    new = rng.choice(["0", "-1", "2147483648", "9223372036854775808", "10" * 20, "999"])
    return text[: m.start()] + new + text[m.end() :]


MUTATIONS = [
    truncate,
    unknown_op,
    wrong_type,
    segment_sizes,
    byte_flip,
    non_utf8,
    delete_terminator,
    duplicate_symbol,
    bad_attribute,
    delete_line,
    swap_lines,
    duplicate_line,
    unbalance,
    odd_number,
]


def corpus(per_seed: int = PER_SEED) -> list[tuple[str, bytes]]:
    """(name, content) of every input: the empty file, then `per_seed` mutants of each seed,
    mutations taken in turn; duplicates dropped."""
    found, seen = [("empty", b"")], {b""}
    for seed in sorted(SEEDS.glob("*.mlir")):
        text = seed.read_text()
        for i in range(per_seed):
            mutate = MUTATIONS[i % len(MUTATIONS)]
            name = f"{seed.stem}-{i:02d}-{mutate.__name__}"
            made = mutate(random.Random(name), text)
            data = made.encode() if isinstance(made, str) else made
            if data is not None and data not in seen:
                seen.add(data)
                found.append((name, data))
    return found


def stage_argvs() -> list[list[str]]:
    """One `--stage` run per CPU and per Triton stage."""
    from aten_mlir.backends.cpu.pipeline import CPU_STAGES
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    cpu = [["--stage", s.name] for s in CPU_STAGES]
    return cpu + [["--target", "triton", "--stage", s.name] for s in TRITON_STAGES]


BASE_ARGVS = [[], ["-p", "aten-decompose"]]


@dataclass
class Outcome:
    name: str
    argv: list[str]
    status: str  # "exit 0", "exit 1", "traceback", "signal SIGSEGV", "exit 2", "hang"
    first_line: str

    @property
    def ok(self) -> bool:
        located = bool(LOCATED.match(self.first_line)) or (
            self.name == "empty" and bool(UNLOCATED.match(self.first_line))
        )
        return self.status == "exit 0" or (self.status == "exit 1" and located)


def run(jobs: list[tuple[str, Path, list[str]]], workers: int = 2) -> list[Outcome]:
    """Runs `aten-opt <argv> <path> -o /dev/null` for each (name, path, argv), `workers` at
    a time, each in a forked child of this process."""
    from aten_mlir.dialects import warm_up_meta
    from aten_mlir.tools import aten_opt

    warm_up_meta()  # once here rather than in every forked run
    pending, running, done = list(reversed(jobs)), {}, []
    while pending or running:
        while pending and len(running) < workers:
            name, path, argv = pending.pop()
            errors = tempfile.TemporaryFile()
            pid = _start(aten_opt.main, [*argv, str(path), "-o", os.devnull], errors)
            running[pid] = (name, argv, errors, time.monotonic())
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            _kill_late(running)
            time.sleep(0.002)
            continue
        name, argv, errors, _ = running.pop(pid)
        errors.seek(0)
        lines = errors.read().decode("utf-8", "replace").splitlines()
        errors.close()
        done.append(Outcome(name, argv, _status(status), lines[0] if lines else ""))
    return done


def _start(main, argv: list[str], errors) -> int:
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid:
        return pid
    code = TRACEBACK
    try:  # pragma: no cover (the child)
        os.dup2(errors.fileno(), 2)
        sys.stderr = open(2, "w", closefd=False)
        code = main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 2
    except BaseException:
        traceback.print_exc()
        code = TRACEBACK
    finally:
        sys.stderr.flush()
        os._exit(code)


def _kill_late(running: dict) -> None:
    for pid, (_, _, _, started) in running.items():
        if time.monotonic() - started > TIMEOUT:
            os.kill(pid, signal.SIGKILL)  # reported as a hang below


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return "hang" if sig == signal.SIGKILL else f"signal {signal.Signals(sig).name}"
    code = os.waitstatus_to_exitcode(status)
    return "traceback" if code == TRACEBACK else f"exit {code}"


def write(inputs: list[tuple[str, bytes]], directory: Path) -> list[tuple[str, Path]]:
    paths = []
    for name, data in inputs:
        path = directory / f"{name}.mlir"
        path.write_bytes(data)
        paths.append((name, path))
    return paths


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    counts = {"runs": len(outcomes)}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    counts["unlocated"] = sum(o.status == "exit 1" and not o.ok for o in outcomes)
    # exit 1 all the same, but an MLIR bug the isolation caught: worth a report upstream
    counts["contained crashes"] = sum("MLIR crashed" in o.first_line for o in outcomes)
    return counts


def main() -> None:
    everything = "--all" in sys.argv
    inputs = corpus()
    argvs = BASE_ARGVS + (stage_argvs() if everything else [])
    with tempfile.TemporaryDirectory() as tmp:
        files = write(inputs, Path(tmp))
        jobs = [(name, path, argv) for name, path in files for argv in argvs]
        start = time.monotonic()
        outcomes = run(jobs)
        seconds = time.monotonic() - start
    print(f"inputs: {len(inputs)}, argument sets: {len(argvs)}, {seconds:.0f} s")
    print(summary(outcomes))
    for o in outcomes:
        if not o.ok or "MLIR crashed" in o.first_line:
            print(f"{'FAIL' if not o.ok else 'CRASH'} {o.name} {' '.join(o.argv)}: {o.status}:")
            print(f"    {o.first_line}")


if __name__ == "__main__":
    main()

"""Runs one fuzz program against eager in a forked child and names the outcome.

The parent (a campaign, a test) imports torch and aten_mlir once; each program runs in a child
made by `os.fork` (milliseconds, where a fresh interpreter costs seconds of imports), in a
process group of its own so a hang can be killed with everything it forked. Outcomes:

pass, fallback (compiled and matched, some ops ran eagerly), clean-error (one of aten_mlir's own
exceptions: an unsupported feature, named), export-skip (torch.export itself refused),
gen-error (eager refused the program: a generator bug), numerics (differences that only inputs
with inf/huge values show: summation order; or eager's rounding or overflow, where float64 eager
agrees with the compiled result), and the bug classes:
mismatch (wrong values, shapes or dtypes, or an input written), internal-error (a traceback
from inside the compiler: IndexError, AttributeError, ...), crash (the child died of a signal,
or MLIR crashed in the compiler's own isolated child), hang (timeout).
"""

from __future__ import annotations

import copy
import faulthandler
import json
import os
import select
import signal
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field

import torch

from .compare import bad_elements, finite_differences_only, loosest, mismatch
from .program import FuzzProgram

BUG_CLASSES = ("mismatch", "internal-error", "crash", "hang")
# Python's own exception types raised from inside the compiler: a bug, not a message for users
_INTERNAL_NAMES = (
    "IndexError", "KeyError", "AttributeError", "AssertionError", "TypeError", "ZeroDivisionError",
    "UnboundLocalError", "NameError", "RecursionError", "Traceback", "RuleError",
)  # fmt: skip


@dataclass
class Outcome:
    cls: str
    detail: str = ""
    fallbacks: list = field(default_factory=list)
    seconds: float = 0.0

    def signature(self) -> str:
        """What must stay the same while shrinking: the class, and for errors the exception."""
        if self.cls in ("clean-error", "internal-error"):
            return f"{self.cls}:{self.detail.split(':')[0]}"
        if self.cls == "mismatch":  # a written input is another bug than a wrong value
            return "mismatch:input" if "input was written" in self.detail else "mismatch:values"
        return self.cls


def warm_up() -> None:
    """Imports and first-call costs paid once in the parent, so each child starts warm. No MLIR
    context is made here: the children make their own (an LLVM thread pool does not survive a
    fork)."""
    torch.set_num_threads(1)
    import triton

    import aten_mlir
    import aten_mlir.backends.cpu  # noqa: F401
    import aten_mlir.backends.triton  # noqa: F401
    from aten_mlir.backends.triton.launch import interpreting

    if interpreting():  # as tests/backends/triton/conftest.py: before any kernel is defined
        triton.knobs.runtime.interpret = True

    # one compile in the parent: its lowering runs in aten_mlir's own forked child (isolate.py),
    # so no MLIR thread pool is left in this process for our children to inherit
    from aten_mlir.backends.isolate import isolation_enabled

    from .generate import generate

    program = generate(0, 0)
    ep = torch.export.export(program.module(), program.example_inputs())
    if not isolation_enabled():  # the compile would leave MLIR's threads behind
        return
    with tempfile.TemporaryDirectory(prefix="fuzz_warm_") as tmp:
        aten_mlir.compile(ep, target="cpu", cache_dir=tmp, cache=False)


# stages past the aten level: every op there was accepted, so a CompileError is the compiler
# failing on a valid program (llc's assertion, a verifier error), not an unsupported feature
_LATE_STAGES = (
    "outline", "fusion", "bufferize", "vectorize", "loops", "llvm", "native", "triton-loops",
)  # fmt: skip


def classify_exception(e: BaseException, phase: str) -> Outcome:
    name = type(e).__name__
    text = str(e).strip().splitlines()
    first = text[0][:300] if text else ""
    detail = f"{name}: {phase}: {first}"
    module = type(e).__module__ or ""
    if "crashed (" in str(e):
        return Outcome("crash", detail)
    if module.startswith("aten_mlir"):
        if any(n in str(e) for n in _INTERNAL_NAMES):
            return Outcome("internal-error", detail)
        if getattr(e, "stage", None) in _LATE_STAGES:
            return Outcome("internal-error", detail)
        return Outcome("clean-error", detail)
    if isinstance(e, (ValueError, NotImplementedError)) and _raised_in_aten_mlir(e):
        return Outcome("clean-error", detail)
    where = _innermost_frame(e)
    return Outcome("internal-error", f"{detail} [{where}]")


def _frames(e):
    return traceback.extract_tb(e.__traceback__)


def _raised_in_aten_mlir(e) -> bool:
    frames = _frames(e)
    return (
        bool(frames)
        and "/aten_mlir/" in frames[-1].filename
        or (
            bool(frames)
            and "/work/main/" in frames[-1].filename
            and "/tests/" not in frames[-1].filename
        )
    )


def _innermost_frame(e) -> str:
    frames = _frames(e)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{os.path.basename(f.filename)}:{f.lineno} {f.name}"


def evaluate(program: FuzzProgram, target: str, cache_dir: str) -> Outcome:
    """The whole check, in the calling process (the child)."""
    import aten_mlir

    module = program.module()
    variants = [0, 1] if program.dynamic else [0]
    try:
        expected = [module(*program.example_inputs(v)) for v in variants]
    except Exception as e:
        return Outcome("gen-error", f"{type(e).__name__}: {str(e)[:300]}")
    try:
        ep = torch.export.export(
            module, program.example_inputs(0), dynamic_shapes=program.dynamic_shapes()
        )
    except Exception as e:
        first = (str(e).strip().splitlines() or [""])[0][:200]
        return Outcome("export-skip", f"{type(e).__name__}: {first}")
    try:
        compiled = aten_mlir.compile(ep, target=target, cache_dir=cache_dir, cache=False)
    except Exception as e:
        return classify_exception(e, "compile")
    chain = loosest(module.dtypes_seen | {b.dtype for b in module.buffers()})
    failure = _calls(program, compiled, variants, expected, chain)
    if failure is not None:
        return failure
    fallbacks = [str(f) for f in compiled.fallbacks]
    return Outcome(
        "fallback" if fallbacks else "pass", "", sorted({f.split(" ")[0] for f in fallbacks})
    )


def _calls(program: FuzzProgram, compiled, variants, expected, chain) -> Outcome | None:
    """Calls `compiled` at each size; None when every call matches eager."""
    for v, want in zip(variants, expected):
        inputs = program.example_inputs(v)
        before = [t.clone() for t in inputs]
        try:
            got = compiled(*inputs)
        except Exception as e:
            return classify_exception(e, f"call {v}")
        why = mismatch(want, got, chain)
        if why is None and not all(_same(a, b) for a, b in zip(before, inputs)):
            return Outcome("mismatch", f"call {v}: an input was written")
        if why is not None:
            special = any(s.special for s in program.inputs)
            if special and finite_differences_only(want, got, chain):
                return _without_specials(program, compiled, variants, f"call {v}: {why}", chain)
            if _float64_agrees(program, v, want, got, chain):
                return Outcome("numerics", f"call {v}: eager's rounding or overflow: {why}")
            return Outcome("mismatch", f"call {v}: {why}")
    return None


def _float64_agrees(program: FuzzProgram, variant, want, got, chain) -> bool:
    """Where the compiled result differs from eager's, eager in float64 gives what the
    compiled program gave: eager's own low-precision math overflowed (gelu(inf) and a layer
    norm of a 1e30 row are NaN in eager, their limits here) or rounded where a later op
    amplifies it (eager's bf16 layer norm of a 1-element row is -9.5e-7, so its sqrt is NaN;
    here it is 0), and the compiled result is the right one. Only the differing elements are
    judged: elsewhere float64 may avoid an overflow both sides share."""
    try:
        module = program.module().double()
        inputs = [
            t.double() if t.is_floating_point() else t for t in program.example_inputs(variant)
        ]
        with torch.no_grad():
            reference = module(*inputs)
    except Exception:
        return False
    seq = (tuple, list)
    want, got = (x if isinstance(x, seq) else (x,) for x in (want, got))
    reference = reference if isinstance(reference, seq) else (reference,)
    if not len(want) == len(got) == len(reference):
        return False
    for e, a, r in zip(want, got, reference):
        if not all(isinstance(t, torch.Tensor) for t in (e, a, r)) or mismatch(e, a, chain) is None:
            continue
        if a.shape != e.shape or a.dtype != e.dtype or r.shape != a.shape:
            return False
        bad = bad_elements(e, a, chain)
        if bad_elements(r.to(a.dtype)[bad], a[bad], chain).any():
            return False
    return True


def _without_specials(program: FuzzProgram, compiled, variants, why: str, chain) -> Outcome:
    """Finite differences on inputs with inf/huge values: the same compiled program on plain
    inputs decides. Matching there, the difference is one of evaluation order ("numerics", not
    a bug class); failing there too, it is a mismatch."""
    plain = copy.deepcopy(program)
    for spec in plain.inputs:
        spec.special = False
    module = plain.module()
    expected = [module(*plain.example_inputs(v)) for v in variants]
    failure = _calls(plain, compiled, variants, expected, chain)
    return Outcome("numerics", why) if failure is None else failure


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(((a == b) | ((a != a) & (b != b))).all())


def _child(program, target, cache_dir, write_fd) -> None:
    os.setsid()  # its own group: a hang is killed with what it forked
    faulthandler.disable()  # a crash is reported by the parent, not dumped by pytest's handler
    warnings.simplefilter("ignore")  # Triton's interpreter warns on every inf/nan numpy makes
    torch.set_num_threads(1)  # an OpenMP pool the parent used does not exist after fork
    try:
        outcome = evaluate(program, target, cache_dir)
    except BaseException as e:  # noqa: B036 - anything escaping is reported, never re-raised
        outcome = Outcome("internal-error", f"{type(e).__name__}: harness: {e}"[:400])
    data = json.dumps(outcome.__dict__).encode()
    os.write(write_fd, data)
    os.close(write_fd)
    os._exit(0)


class Running:
    """A program running in a forked child."""

    def __init__(self, program: FuzzProgram, target: str, cache_dir: str, timeout: float):
        self.program, self.target, self.timeout = program, target, timeout
        self.start = time.monotonic()
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            try:
                _child(program, target, cache_dir, write_fd)
            finally:
                os._exit(70)
        os.close(write_fd)
        self.pid, self.fd, self.buffer = pid, read_fd, b""

    def poll(self, wait: float) -> Outcome | None:
        """The outcome once the child is done (reads its report, reaps it), else None."""
        ready, _, _ = select.select([self.fd], [], [], wait)
        if ready:
            chunk = os.read(self.fd, 1 << 16)
            if chunk:
                self.buffer += chunk
                return None
            return self._finish()
        if time.monotonic() - self.start > self.timeout:
            self.kill()
            return Outcome("hang", f"no result after {self.timeout:.0f}s", seconds=self.timeout)
        return None

    def _finish(self) -> Outcome:
        os.close(self.fd)
        _, status = os.waitpid(self.pid, 0)
        self._kill_group()
        elapsed = time.monotonic() - self.start
        if os.WIFSIGNALED(status):
            sig = signal.Signals(os.WTERMSIG(status)).name
            return Outcome("crash", f"child killed by {sig}", seconds=elapsed)
        if not self.buffer:
            return Outcome(
                "crash", f"child exited {os.WEXITSTATUS(status)} without a result", seconds=elapsed
            )
        outcome = Outcome(**json.loads(self.buffer))
        outcome.seconds = elapsed
        return outcome

    def _kill_group(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        self._kill_group()
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def run(
    program: FuzzProgram, target: str, timeout: float = 120.0, cache_dir: str | None = None
) -> Outcome:
    """One program, start to end, in a child."""
    with tempfile.TemporaryDirectory(prefix="fuzz_cache_") as tmp:
        job = Running(program, target, cache_dir or tmp, timeout)
        while True:
            outcome = job.poll(1.0)
            if outcome is not None:
                return outcome

"""Runs MLIR work in a forked child, so an LLVM assertion or a segfault in a pass cannot take the
caller's process down (torch-mlir and IREE run their compilers out of process for the same
reason).

`run_isolated(fn, *args)` forks; the child calls `fn(report, *args)` and sends back what it
returns (or the exception it raised) through a pipe; `report(step)` tells the parent which step
(stage, pass pipeline) is about to run, so a child that dies says where. A child killed by a
signal, or gone without a word, raises `ChildCrashed`. Without `os.fork` (non-Linux), or with
`ATEN_MLIR_ISOLATE=0` in the environment (to debug a crash under gdb, or to time stages in
process), `fn` runs in process.

The child runs MLIR only: it gets a fresh `ir.Context` from its caller (the parent's contexts may
own LLVM thread pools whose threads do not exist after `fork`, so a parallel pass would wait for
them forever), torch's intra-op parallelism set to one thread, and leaves with `os._exit`
(no atexit handlers, no torch teardown). Its stderr goes to a temporary file: forwarded when it
exits normally, kept in `ChildCrashed.stderr` (the assertion text) when it dies.
"""

from __future__ import annotations

import faulthandler
import gc
import importlib
import os
import pickle
import select
import signal
import struct
import sys
import tempfile
import threading
import traceback

ENV = "ATEN_MLIR_ISOLATE"
TIMEOUT_ENV = "ATEN_MLIR_STEP_TIMEOUT"
_in_child = False
_HEADER = struct.Struct("<Q")


class ChildCrashed(Exception):
    """The child died (`signal` its name, e.g. SIGABRT) during `step`; `stderr` is what it
    printed (LLVM's assertion and stack dump)."""

    def __init__(self, step: str | None, signal_name: str, stderr: str, hung: bool = False):
        self.step, self.signal, self.stderr, self.hung = step, signal_name, stderr, hung
        super().__init__(f"crashed ({signal_name}) in {step or 'startup'}: {self.reason}")

    @property
    def reason(self) -> str:
        """The line of the child's stderr that says why: LLVM's assertion or fatal error."""
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        for marker in ("Assertion", "LLVM ERROR", "UNREACHABLE", "error:"):
            hit = next((line for line in lines if marker in line), None)
            if hit is not None:
                return hit[:400]
        return "no message"


def isolation_enabled() -> bool:
    """Forking is possible, wanted, and we are not already in the child."""
    wanted = os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")
    return wanted and hasattr(os, "fork") and not _in_child


def run_isolated(fn, *args, **kwargs):
    """`fn(report, *args, **kwargs)` in a forked child (see the module docstring)."""
    return start_isolated(fn, *args, **kwargs).result()


class Isolated:
    """A forked child at work: `result()` waits for its outcome (what `run_isolated` returns
    or raises). A reader thread drains the child's pipe meanwhile, so a child with a large
    result never waits on its caller, and reaps it; the thread only reads and waits (it holds
    no lock a later fork could copy locked). A child whose result is never asked for runs to
    its end, drained and reaped all the same."""

    def __init__(self, fn, args, kwargs):
        self._value = None
        if not isolation_enabled():
            self._thread = None
            try:
                self._value = ("result", fn(lambda step: None, *args, **kwargs))
            except Exception as e:  # raised by result(), as a child's error is
                self._value = ("raise", e)
            return
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # else the child's copy of a buffered line is printed twice
        errors = tempfile.TemporaryFile()
        read_end, write_end = os.pipe()
        # The child's garbage collector would write to every object the parent owns (a page
        # copy each): frozen objects it leaves alone.
        gc.freeze()
        pid = os.fork()
        if pid:
            gc.unfreeze()
        if pid == 0:  # pragma: no cover (runs in the child; its coverage is not collected)
            os.close(read_end)
            _child(write_end, errors, fn, args, kwargs)
        os.close(write_end)
        self.pid, self._status = pid, None
        self._lock, self._ready = threading.Lock(), threading.Event()
        self._thread = threading.Thread(
            target=self._collect, args=(read_end, errors), name="aten_mlir-isolated", daemon=True
        )
        self._thread.start()

    def _collect(self, read_end: int, errors) -> None:
        """The reader thread: the child's frames until it closes the pipe (or hangs, and is
        killed), then its exit."""
        hung = None
        try:
            frames = _read_frames(read_end, step_timeout())
        except BaseException as e:  # noqa: BLE001 - ChildHung, or a bug: handed to result()
            self._kill()
            frames, hung = getattr(e, "frames", []), e
        finally:
            os.close(read_end)
        final = next((f for f in frames if f[0] in ("result", "error")), None)
        status = None if final is not None and hung is None else self._reap()
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
        errors.close()
        self._value = ("collected", frames, final, status, stderr, hung)
        self._ready.set()
        # The outcome is in: the child's exit (unmapping a copy of a large process: 80 ms
        # after GPT-2 small) is not waited for by result().
        self._reap()

    def _reap(self):
        """The child's exit status, once it has exited (waited for without reaping, so that
        `_kill` never signals a reused pid). Only the reader thread reaps."""
        if self._status is None:
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
        with self._lock:
            if self._status is None:
                self._status = os.waitpid(self.pid, 0)[1]
            return self._status

    def _kill(self) -> None:
        with self._lock:
            if self._status is None:
                os.kill(self.pid, signal.SIGKILL)

    def result(self):
        """What the child's `fn` returned; raises what it raised, or `ChildCrashed`."""
        if self._thread is not None:
            try:
                self._ready.wait()
            except BaseException:  # Ctrl-C while waiting: the child goes too
                self._kill()
                raise
        kind, *value = self._value
        if kind == "result":
            return value[0]
        if kind == "raise":
            raise value[0]
        frames, final, status, stderr, hung = value
        if isinstance(hung, ChildHung):  # reported like a crash in the step it hung in
            step = next((v for kind, v in reversed(hung.frames) if kind == "step"), None)
            raise ChildCrashed(step, f"hung: {hung}, killed", stderr, hung=True)
        if hung is not None:
            raise hung
        return _outcome(frames, final, status, stderr)


def start_isolated(fn, *args, **kwargs) -> Isolated:
    """`fn(report, *args, **kwargs)` forked now, running while the caller goes on; its
    `result()` is `run_isolated`'s. In process (at once) when isolation is off."""
    return Isolated(fn, args, kwargs)


def _outcome(frames: list, final, status: int | None, stderr: str):
    step = next((value for kind, value in reversed(frames) if kind == "step"), None)
    if final is None and os.WIFSIGNALED(status):
        raise ChildCrashed(step, signal.Signals(os.WTERMSIG(status)).name, stderr)
    if final is None:  # exited (os._exit from a C library, an OOM kill's cousin) without a word
        raise ChildCrashed(step, f"exit status {os.waitstatus_to_exitcode(status)}", stderr)
    if stderr:
        sys.stderr.write(stderr)  # warnings and remarks the child printed
    kind, value = final
    if kind == "error":
        raise _rebuilt(*value)
    return value


def _child(fd: int, errors, fn, args, kwargs) -> None:  # pragma: no cover
    """The child's whole life: run `fn`, send the outcome, leave without cleanup."""
    global _in_child
    _in_child = True
    code = 0
    try:
        os.dup2(errors.fileno(), 2)
        faulthandler.disable()  # its dump goes to the parent's stderr; the crash is reported
        # a crash should print the assertion, not spend seconds symbolizing the stack dump
        os.environ["LLVM_DISABLE_SYMBOLIZATION"] = "1"
        _single_threaded_torch()
        pipe = os.fdopen(fd, "wb")
        report = lambda step: _send(pipe, ("step", step))  # noqa: E731
        try:
            outcome = ("result", fn(report, *args, **kwargs))
        except BaseException as e:  # every error goes back to the caller, bugs included
            outcome = ("error", _packed(e))
        sys.stdout.flush()
        sys.stderr.flush()  # all of it in the file before the parent reads it
        _send(pipe, outcome)
        pipe.close()
    except BaseException:
        code = 70  # could not even report: the parent raises ChildCrashed with our stderr
        traceback.print_exc()
        sys.stderr.flush()
    os._exit(code)


def _single_threaded_torch() -> None:  # pragma: no cover
    """libgomp's thread team does not survive `fork`: a parallel region in the child would wait
    for threads that are not there."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _send(pipe, message) -> None:  # pragma: no cover
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    pipe.write(_HEADER.pack(len(data)) + data)
    pipe.flush()


def step_timeout() -> float:
    """Seconds a child may go without reporting a step (`ATEN_MLIR_STEP_TIMEOUT`, default 600):
    a child that inherited a lock another thread of the parent held at `fork` waits forever;
    the parent kills it then, rather than waiting with it."""
    try:
        return max(float(os.environ.get(TIMEOUT_ENV, "600")), 0.1)
    except ValueError:
        return 600.0


def _read_frames(fd: int, timeout: float) -> list:
    """The child's messages until it closes the pipe; `ChildHung` (the frames so far in it)
    when `timeout` seconds pass with no byte from it."""
    frames, buffer = [], b""
    while True:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            raise ChildHung(frames, timeout)
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return frames
        buffer += chunk
        while len(buffer) >= _HEADER.size:
            size = _HEADER.unpack_from(buffer)[0]
            if len(buffer) < _HEADER.size + size:
                break
            data, buffer = buffer[_HEADER.size : _HEADER.size + size], buffer[_HEADER.size + size :]
            try:
                frames.append(pickle.loads(data))
            except (pickle.UnpicklingError, EOFError):  # cut off by the child's death
                return frames


class ChildHung(Exception):
    """No word from the child for `timeout` seconds (carries the frames it sent before)."""

    def __init__(self, frames: list, timeout: float):
        self.frames, self.timeout = frames, timeout
        super().__init__(f"no progress for {timeout:g} s")


def _packed(e: BaseException) -> tuple:  # pragma: no cover
    """The exception as it can cross the pipe: pickled when that round-trips, else its type's
    name and message; with the child's traceback."""
    trace = "".join(traceback.format_exception(e))
    try:
        data = pickle.dumps(e, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)
    except Exception:
        data = None
    return data, type(e).__module__, type(e).__qualname__, str(e), trace


def _rebuilt(data, module: str, qualname: str, message: str, trace: str) -> BaseException:
    """The child's exception in the parent. A bug (not one of aten-mlir's own errors) carries
    the child's traceback as a note, since its own traceback ends at this function."""
    e = pickle.loads(data) if data is not None else _by_name(module, qualname, message)
    if not module.startswith("aten_mlir."):
        e.add_note(f"raised in the isolated compile process:\n{trace}")
    return e


def _by_name(module: str, qualname: str, message: str) -> BaseException:
    try:
        cls = importlib.import_module(module)
        for part in qualname.split("."):
            cls = getattr(cls, part)
        e = cls.__new__(cls)
        BaseException.__init__(e, message)
        return e
    except Exception:  # a class the parent cannot make: keep its name in the message
        return RuntimeError(f"{module}.{qualname}: {message}")


def crashing_pass(text: str, pipeline: str) -> str | None:
    """The pass of `pipeline` that crashes on the IR `text`: the pipeline replayed one
    top-level pass at a time in a child that reports each before running it. None when the
    replay does not crash (or fails otherwise)."""
    try:
        run_isolated(_pass_by_pass, text, pipeline)
    except ChildCrashed as crash:
        return crash.step
    except Exception:  # a clean failure: the crash needs the passes before it, in one manager
        return None
    return None


def _pass_by_pass(report, text: str, pipeline: str) -> None:  # pragma: no cover (the child)
    from aten_mlir.dialects import make_context
    from aten_mlir.frontend.program import parse_module
    from aten_mlir.passes import run_pipeline
    from aten_mlir.passes.pipeline import parse_pipeline

    module = parse_module(text, context=make_context())
    for element in parse_pipeline(pipeline):
        report(str(element))
        run_pipeline(module, [element], verify_each=False)

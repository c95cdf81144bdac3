"""The cache directory as a whole: its files, its size cap with least-recently-used eviction,
and what `python -m aten_mlir.cache --info / --clear` reports and removes.

Each file the cache writes belongs to a group removed together: a library (`<key>.so` and
`<key>.json`), a plan (`<key>.program.mlir`), a lone artifact and its `.sha256`
(`threads-<hash>.so`, `support/runtime_support-<hash>.o`), or a temporary file of a build. A
group's last use is its newest modification time: a hit touches it. After a store, when the
directory holds more than `max_bytes()`, the least recently used groups are deleted first, the
file that marks an entry whole (sidecar, plan) before the rest. A group used in the last minute
is spared: a process loading it touched it first (one that loses the race anyway sees a miss and
rebuilds; a library already loaded stays mapped after its file is unlinked). Only names the
cache writes are ever deleted, so a `--cache-dir` pointed at the wrong directory loses nothing
else.
"""

from __future__ import annotations

import os
import re
import time
import warnings
from pathlib import Path
from typing import NamedTuple

from .cache import CacheWarning

MAX_BYTES_ENV = "ATEN_MLIR_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 1 << 30
GRACE_SECONDS = 60.0  # a group used more recently than this is never evicted
STALE_SECONDS = 3600.0  # a temporary file this old belongs to a build that died
RESCAN_SECONDS = 300.0  # `stored` scans a directory at least this often
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"(\d+)\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)
# name -> (kind, group name); the markers (whose loss invalidates the group) sort first
_OURS = (
    r"[0-9a-f]{64}\.(?:so|json|program\.mlir)"
    r"|(?:threads-[0-9a-f]{16}\.so|runtime_support-[0-9a-f]{16}\.o)(?:\.sha256)?"
)
_NAMES = (
    (re.compile(r"([0-9a-f]{64})\.(json|so)"), "library"),
    (re.compile(r"([0-9a-f]{64})\.program\.mlir()"), "plan"),
    (re.compile(r"(threads-[0-9a-f]{16}\.so)(\.sha256)?"), "artifact"),
    (re.compile(r"(runtime_support-[0-9a-f]{16}\.o)(\.sha256)?"), "artifact"),
    # atomic_path's and check_writable's temp files (mkstemp's random part has no dot), and
    # those of store_plan before it used atomic_path
    (re.compile(rf"(\.(?:{_OURS}|probe)\.[^./]+\.tmp)()"), "temporary"),
    (re.compile(r"([0-9a-f]{64}\.program\.mlir[^./]+\.tmp)()"), "temporary"),
)
_MARKERS = (".json", ".sha256", ".mlir")


class Group(NamedTuple):
    """Files deleted together."""

    kind: str  # "library", "plan", "artifact" or "temporary"
    name: str
    files: tuple[Path, ...]
    size: int
    used: float  # the newest modification time


def max_bytes() -> int:
    """`$ATEN_MLIR_CACHE_MAX_BYTES` (bytes, or with a K/M/G/T suffix: `512M`, `2G`; 0: no cap),
    else 1 GiB."""
    text = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_BYTES
    match = _SIZE.fullmatch(text)
    if match is None:
        warnings.warn(
            f"aten_mlir: ${MAX_BYTES_ENV}={text!r} is not a size (like 1073741824, 512M or 2G); "
            f"using {DEFAULT_MAX_BYTES >> 30} GiB",
            CacheWarning,
            stacklevel=2,
        )
        return DEFAULT_MAX_BYTES
    return int(match[1]) * _UNITS[match[2].upper()]


def scan(directory: Path) -> list[Group]:
    """The groups of cache files in `directory` (and its `support/`); [] if it is missing."""
    files: dict[tuple[str, str], list[tuple[Path, os.stat_result]]] = {}
    for folder in (directory, directory / "support"):
        try:
            listing = list(os.scandir(folder))
        except OSError:  # missing, or not a directory
            continue
        for item in listing:
            kind, name = _classify(item.name)
            if kind is None:
                continue
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:  # deleted since the listing
                continue
            files.setdefault((kind, str(folder / name)), []).append((Path(item.path), info))
    return [
        Group(
            kind,
            name,
            tuple(sorted((path for path, _ in found), key=_marker_first)),
            sum(info.st_size for _, info in found),
            max(info.st_mtime for _, info in found),
        )
        for (kind, name), found in files.items()
    ]


def _classify(name: str) -> tuple[str | None, str]:
    for pattern, kind in _NAMES:
        match = pattern.fullmatch(name)
        if match:
            return kind, match[1]
    return None, name


def _marker_first(path: Path) -> tuple[bool, str]:
    return (not path.name.endswith(_MARKERS), path.name)


def stored(directory: Path, size: int) -> None:
    """Called after a store of `size` bytes into `directory`: evicts when it may be over the
    cap. A scan costs about 0.1 ms per file, so a process scans a directory on its first store
    and then only when what it stored since would cross the cap, or after `RESCAN_SECONDS`
    (other processes store too): the cap may be overshot by what they stored meanwhile."""
    cap, now, name = max_bytes(), time.time(), os.path.abspath(directory)
    scanned, estimate = _estimates.get(name, (None, 0))
    if (
        scanned is not None
        and now - scanned < RESCAN_SECONDS
        and (not cap or estimate + size <= cap)
    ):
        _estimates[name] = (scanned, estimate + size)
        return
    _estimates[name] = (now, _evict(directory, cap)[1])


# directory -> (its last scan, the bytes it held then plus what this process stored since)
_estimates: dict[str, tuple[float | None, int]] = {}


def evict(directory: Path, cap: int | None = None) -> list[Group]:
    """Deletes temporary files of dead builds, then the least recently used groups while
    `directory` holds more than `cap` bytes (default `max_bytes()`; 0: no cap). Returns what
    it deleted. Never raises: files vanish (another process evicting) or stay (read-only)."""
    return _evict(directory, max_bytes() if cap is None else cap)[0]


def _evict(directory: Path, cap: int) -> tuple[list[Group], int]:
    """`evict`, and the bytes left."""
    now = time.time()
    groups = scan(directory)
    removed = [g for g in groups if g.kind == "temporary" and now - g.used > STALE_SECONDS]
    removed = [g for g in removed if _remove(g, now - STALE_SECONDS)]
    total = sum(g.size for g in groups) - sum(g.size for g in removed)
    if not cap or total <= cap:
        return removed, total
    for group in sorted((g for g in groups if g.kind != "temporary"), key=lambda g: g.used):
        if total <= cap:
            break
        if now - group.used > GRACE_SECONDS and _remove(group, now - GRACE_SECONDS):
            removed.append(group)
            total -= group.size
    return removed, total


def _remove(group: Group, unused_since: float) -> bool:
    """Deletes `group`'s files unless one was used after `unused_since` (a process loading it
    touched it since the scan)."""
    for path in group.files:
        try:
            if os.stat(path, follow_symlinks=False).st_mtime > unused_since:
                return False
        except OSError:
            continue
    deleted = False
    for path in group.files:
        try:
            path.unlink()
            deleted = True
        except FileNotFoundError:
            deleted = True  # another process got there first
        except OSError:  # read-only: the rest stays too
            return deleted
    return deleted


def clear(directory: Path) -> list[Group]:
    """Deletes every cache file in `directory` but the temporary files of builds that may still
    be running; returns what it deleted."""
    now = time.time()
    groups = [g for g in scan(directory) if g.kind != "temporary" or now - g.used > STALE_SECONDS]
    removed = [g for g in groups if _remove(g, float("inf"))]
    try:
        (directory / "support").rmdir()
    except OSError:  # absent, or not empty
        pass
    return removed

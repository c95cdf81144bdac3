"""`python -m aten_mlir.cache`: what the compile cache holds, and clearing it.

    python -m aten_mlir.cache --info  [--cache-dir DIR]   # directory, entries, size, cap, ages
    python -m aten_mlir.cache --clear [--cache-dir DIR]   # deletes every file the cache wrote

DIR defaults to `$ATEN_MLIR_CACHE_DIR`, else `~/.cache/aten_mlir`; the size cap is
`$ATEN_MLIR_CACHE_MAX_BYTES` (default 1 GiB). Only files named as the cache names them are
counted or deleted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from aten_mlir.backends.cpu.cache import cache_directory
from aten_mlir.backends.cpu.cache_dir import MAX_BYTES_ENV, Group, clear, max_bytes, scan

_KINDS = (
    ("library", "libraries"),
    ("plan", "plans"),
    ("artifact", "support files"),
    ("temporary", "temporary files"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m aten_mlir.cache", description="Inspect or clear aten_mlir's compile cache."
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--info", action="store_true", help="print what the cache holds")
    action.add_argument("--clear", action="store_true", help="delete every cache file")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="the cache directory (default: $ATEN_MLIR_CACHE_DIR, else ~/.cache/aten_mlir)",
    )
    args = parser.parse_args(argv)
    directory = cache_directory(args.cache_dir)
    if args.info:
        print("\n".join(info_lines(directory)))
        return 0
    removed = clear(directory)
    files = sum(len(g.files) for g in removed)
    print(f"removed {files} files ({_size(sum(g.size for g in removed))}) from {directory}")
    left = [g for g in scan(directory) if g.kind != "temporary"]
    if left:
        print(f"{len(left)} entries could not be removed (read-only?)", file=sys.stderr)
        return 1
    return 0


def info_lines(directory: Path) -> list[str]:
    """`--info`'s report."""
    groups = scan(directory)
    where = str(directory) if directory.is_dir() else f"{directory} (does not exist)"
    lines = [f"directory: {where}"]
    for kind, title in _KINDS:
        of_kind = [g for g in groups if g.kind == kind]
        lines.append(f"{title}: {len(of_kind)} ({_size(sum(g.size for g in of_kind))})")
    cap = max_bytes()
    limit = f"of {_size(cap)}" if cap else "(no cap)"
    lines.append(f"total: {_size(sum(g.size for g in groups))} {limit} (${MAX_BYTES_ENV})")
    entries = sorted((g for g in groups if g.kind in ("library", "plan")), key=_used)
    if entries:
        lines.append(f"least recently used: {_when(entries[0])}")
        lines.append(f"most recently used: {_when(entries[-1])}")
    return lines


def _used(group: Group) -> float:
    return group.used


def _when(group: Group) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(group.used))
    return f"{stamp} ({group.kind} {Path(group.name).name[:16]})"


def _size(count: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


if __name__ == "__main__":
    sys.exit(main())

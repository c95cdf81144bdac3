"""The cache directory as a whole: the size cap, least-recently-used eviction, clearing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from aten_mlir.backends.cpu import cache_dir, compile_llvm_module
from aten_mlir.backends.cpu.cache import CacheWarning
from aten_mlir.backends.cpu.cache_dir import (
    DEFAULT_MAX_BYTES,
    MAX_BYTES_ENV,
    clear,
    evict,
    max_bytes,
    scan,
)

from .test_cache import TEXT, check_add

HOUR = 3600.0


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", DEFAULT_MAX_BYTES),
        ("1000", 1000),
        ("512M", 512 << 20),
        ("2g", 2 << 30),
        ("2GiB", 2 << 30),
        ("0", 0),
    ],
)
def test_max_bytes_reads_the_environment(monkeypatch, text, expected):
    monkeypatch.setenv(MAX_BYTES_ENV, text)
    assert max_bytes() == expected


def test_a_malformed_cap_warns_and_keeps_the_default(monkeypatch):
    monkeypatch.setenv(MAX_BYTES_ENV, "lots")
    with pytest.warns(CacheWarning, match="not a size"):
        assert max_bytes() == DEFAULT_MAX_BYTES


def write(path: Path, size: int, age: float) -> Path:
    """A file of `size` bytes last used `age` seconds ago."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    when = time.time() - age
    os.utime(path, (when, when))
    return path


def key(n: int) -> str:
    return f"{n:064x}"


@pytest.fixture
def populated(tmp_path):
    """Groups of known sizes and ages, and files that are not the cache's."""
    files = {
        "oldest-library": [
            write(tmp_path / f"{key(1)}.so", 1000, 5 * HOUR),
            write(tmp_path / f"{key(1)}.json", 100, 5 * HOUR),
        ],
        "old-plan": [write(tmp_path / f"{key(2)}.program.mlir", 500, 4 * HOUR)],
        "old-pool": [
            write(tmp_path / "support" / "threads-0123456789abcdef.so", 300, 3 * HOUR),
            write(tmp_path / "support" / "threads-0123456789abcdef.so.sha256", 64, 3 * HOUR),
        ],
        # the sidecar was touched by a hit: the group counts as used then
        "hit-library": [
            write(tmp_path / f"{key(3)}.so", 1000, 6 * HOUR),
            write(tmp_path / f"{key(3)}.json", 100, 2 * HOUR),
        ],
        "recent-library": [
            write(tmp_path / f"{key(4)}.so", 1000, 10),
            write(tmp_path / f"{key(4)}.json", 100, 10),
        ],
        "dead-build": [write(tmp_path / f".{key(5)}.so.a1b2c3d4.tmp", 700, 2 * HOUR)],
        "running-build": [write(tmp_path / f".{key(6)}.so.e5f6g7h8.tmp", 700, 10)],
        "not-ours": [
            write(tmp_path / "notes.txt", 5000, 9 * HOUR),
            write(tmp_path / "support" / "other.o", 5000, 9 * HOUR),
            write(tmp_path / f"{key(7)}.so.bak", 5000, 9 * HOUR),
            write(tmp_path / ".bashrc.tmp", 5000, 9 * HOUR),
        ],
    }
    return tmp_path, files


def surviving(files) -> set[str]:
    return {name for name, paths in files.items() if all(p.exists() for p in paths)}


def test_scan_groups_the_cache_files_only(populated):
    directory, files = populated
    groups = {g.name: g for g in scan(directory)}
    assert len(groups) == 7  # every group of `populated` but the files that are not ours
    library = groups[str(directory / key(1))]
    assert library.kind == "library" and library.size == 1100
    assert [p.suffix for p in library.files] == [".json", ".so"]  # the marker goes first
    assert groups[str(directory / key(3))].used > time.time() - 2 * HOUR - 60


def test_eviction_deletes_the_least_recently_used_until_under_the_cap(populated):
    directory, files = populated
    removed = evict(directory, cap=3000)
    # 5564 bytes of cache files: the dead build goes first, then the oldest groups until the
    # 2900 of the hit library, the recent library and the running build fit
    assert surviving(files) == {"hit-library", "recent-library", "running-build", "not-ours"}
    assert {g.kind for g in removed} == {"library", "plan", "artifact", "temporary"}


def test_under_the_cap_only_dead_builds_go(populated):
    directory, files = populated
    evict(directory, cap=10**9)
    assert surviving(files) == set(files) - {"dead-build"}
    evict(directory, cap=0)  # no cap
    assert surviving(files) == set(files) - {"dead-build"}


def test_a_group_used_in_the_last_minute_is_never_evicted(populated):
    directory, files = populated
    evict(directory, cap=1)
    assert surviving(files) == {"recent-library", "running-build", "not-ours"}


def test_a_group_touched_after_the_scan_is_spared(populated):
    directory, files = populated
    (group,) = [g for g in scan(directory) if g.name == str(directory / key(1))]
    os.utime(files["oldest-library"][0])  # a process started loading it
    assert not cache_dir._remove(group, time.time() - 60)
    assert "oldest-library" in surviving(files)


def test_files_vanishing_during_eviction_are_no_error(populated, monkeypatch):
    directory, files = populated
    groups = scan(directory)
    for path in files["oldest-library"] + files["old-plan"]:
        path.unlink()  # another process evicted them since the scan
    monkeypatch.setattr(cache_dir, "scan", lambda directory: groups)
    evict(directory, cap=1)
    assert surviving(files) == {"recent-library", "running-build", "not-ours"}


def test_clear_deletes_every_cache_file_but_running_builds(populated):
    directory, files = populated
    clear(directory)
    assert surviving(files) == {"running-build", "not-ours"}
    assert (directory / "support").is_dir()  # other.o is still there


def test_a_store_over_the_cap_evicts_and_a_hit_keeps_its_entry(tmp_path, monkeypatch):
    libraries = {
        level: compile_llvm_module(TEXT, opt_level=level, cache_dir=tmp_path) for level in (3, 2)
    }
    past = time.time() - HOUR
    for path in tmp_path.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))
    assert compile_llvm_module(TEXT, opt_level=3, cache_dir=tmp_path).from_cache  # touches it
    monkeypatch.setenv(MAX_BYTES_ENV, str(3 * libraries[3].path.stat().st_size))
    check_add(compile_llvm_module(TEXT, opt_level=1, cache_dir=tmp_path))  # evicts after storing
    assert libraries[3].path.exists() and not libraries[2].path.exists()
    assert compile_llvm_module(TEXT, opt_level=3, cache_dir=tmp_path).from_cache
    rebuilt = compile_llvm_module(TEXT, opt_level=2, cache_dir=tmp_path)
    assert not rebuilt.from_cache
    check_add(rebuilt)


def test_a_store_scans_only_when_the_directory_may_be_over_the_cap(tmp_path, monkeypatch):
    scans = []
    real = cache_dir._evict
    monkeypatch.setattr(cache_dir, "_evict", lambda *args: scans.append(args) or real(*args))
    monkeypatch.setenv(MAX_BYTES_ENV, "10000")
    write(tmp_path / f"{key(1)}.so", 4000, HOUR)
    cache_dir.stored(tmp_path, 100)  # the first store of this process scans
    cache_dir.stored(tmp_path, 100)  # 4200 of 10000: no scan
    assert len(scans) == 1
    write(tmp_path / f"{key(2)}.so", 6500, 0)
    cache_dir.stored(tmp_path, 6500)  # 10700 by the estimate: scanned, 10500, evicted
    assert len(scans) == 2 and not (tmp_path / f"{key(1)}.so").exists()
    monkeypatch.setattr(cache_dir.time, "time", lambda: real_time() + cache_dir.RESCAN_SECONDS)
    cache_dir.stored(tmp_path, 1)  # a while later: others may have stored meanwhile
    assert len(scans) == 3


real_time = time.time

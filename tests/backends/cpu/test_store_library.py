"""`store_llvm_module`: the lowering child's build, which stores a library without loading it;
the caller loads it by its key (`load_cached_library`), checked as any cache hit."""

from __future__ import annotations

import pytest
import torch
from mlir import ir

from aten_mlir.backends.cpu import link, load_cached_library, native
from aten_mlir.backends.cpu.native import store_llvm_module
from tests.backends.cpu.test_native import ALIASING, lower


def _module(context: ir.Context) -> ir.Module:
    return ir.Module.parse(lower(ALIASING), context)


def test_a_stored_library_is_found_again_and_loads_with_its_functions(tmp_path, monkeypatch):
    opened = []
    real = native._open
    monkeypatch.setattr(native, "_open", lambda *a, **k: opened.append(1) or real(*a, **k))
    with ir.Context() as context:
        key, found = store_llvm_module(_module(context), opt_level=2, cache_dir=tmp_path)
        assert not found and opened == []  # built and published, not loaded
        assert store_llvm_module(_module(context), opt_level=2, cache_dir=tmp_path) == (key, True)
    lib = load_cached_library(key, tmp_path, from_cache=False)
    assert lib.key == key and not lib.from_cache and lib.path == tmp_path / f"{key}.so"
    a = torch.arange(4, dtype=torch.float32)
    x, y = lib.function("twice", ["memref<4xf32>"], ["memref<4xf32>"] * 2)(a)
    assert torch.equal(x, a + a) and torch.equal(y, a + a)


@pytest.mark.parametrize("damage", ["so", "json"])
def test_a_damaged_entry_is_built_again_not_reported_found(tmp_path, damage):
    with ir.Context() as context:
        key, _ = store_llvm_module(_module(context), opt_level=2, cache_dir=tmp_path)
        path = tmp_path / f"{key}.{damage}"
        path.write_bytes(path.read_bytes()[:-7] + b"garbage")
        assert load_cached_library(key, tmp_path) is None  # the loader refuses it too
        assert store_llvm_module(_module(context), opt_level=2, cache_dir=tmp_path) == (key, False)
    lib = load_cached_library(key, tmp_path)
    a = torch.arange(4, dtype=torch.float32)
    assert torch.equal(lib.function("exp", ["memref<?xf32>"], ["memref<?xf32>"])(a)[0], a.exp())


def test_nothing_is_stored_in_a_missing_directory_under_a_file(tmp_path):
    (tmp_path / "file").write_text("")
    with ir.Context() as context:
        assert store_llvm_module(_module(context), cache_dir=tmp_path / "file" / "c") is None


def test_nothing_is_stored_without_a_linker(tmp_path, monkeypatch):
    monkeypatch.setattr(link, "_which", lambda name: None)
    with ir.Context() as context:
        assert store_llvm_module(_module(context), cache_dir=tmp_path) is None
    assert not list(tmp_path.iterdir())


def test_a_foreign_target_entry_is_not_reported_found(tmp_path, monkeypatch):
    with ir.Context() as context:
        key, _ = store_llvm_module(_module(context), opt_level=2, cache_dir=tmp_path)
        # the same key in an entry another kind of host wrote (a shared directory)
        monkeypatch.setattr(native, "target_key", lambda: "another host")
        monkeypatch.setattr(native, "cache_key", lambda *a: key)
        assert store_llvm_module(_module(context), opt_level=2, cache_dir=tmp_path) == (key, False)

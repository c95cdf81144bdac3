"""`cpu_target`: LLVM's CPU name and features for the host and for named CPUs (asked of llc),
the vector width and code paths they give, the cache key's view of the target, AMX permission
and the loader's use of it."""

from __future__ import annotations

import pytest

from aten_mlir.backends.cpu import NativeBuildError, compile_llvm_module, native, target, tools
from aten_mlir.backends.cpu.target import cpu_target, request_amx, target_key

from .test_native import binary, lower


@pytest.mark.parametrize(
    "cpu, width, amx, bf16, fp16",
    [
        ("sapphirerapids", 64, True, True, True),
        ("emeraldrapids", 64, True, True, True),
        ("graniterapids", 64, True, True, True),
        ("skylake-avx512", 64, False, False, False),
        ("icelake-server", 64, False, False, False),
        ("znver4", 64, False, True, False),
        ("x86-64-v4", 64, False, False, False),
        ("x86-64-v3", 32, False, False, False),
        ("haswell", 32, False, False, False),
        ("x86-64-v2", 16, False, False, False),
    ],
)
def test_named_cpus(cpu, width, amx, bf16, fp16):
    t = cpu_target(cpu)
    assert t.name == cpu and not t.host
    assert (t.vector_bytes, t.amx_bf16, t.avx512_bf16, t.avx512_fp16) == (width, amx, bf16, fp16)
    if width >= 32:
        assert {"avx2", "fma", "f16c"} <= t.features
    if width == 64:
        assert {"avx512f", "avx512bw", "avx512vl"} <= t.features
    assert t.describe().startswith(
        f"{cpu}: {width * 8}-bit vectors, AMX bf16 {'on' if amx else 'off'}"
    )


def test_unknown_cpu_is_an_error():
    with pytest.raises(ValueError, match="does not know the CPU 'no-such-cpu'"):
        cpu_target("no-such-cpu")
    with pytest.raises(ValueError, match="not a CPU name"):
        cpu_target("a b")


def _host_flags() -> set[str]:
    with open("/proc/cpuinfo") as f:
        return set(next(line for line in f if line.startswith("flags")).split(":")[1].split())


def test_the_host():
    host = cpu_target("native")
    assert host.host and host.name == tools.host_cpu() != "native"
    flags = _host_flags()
    assert ("avx512f" in host.features) == ("avx512f" in flags)
    assert ("avx512bf16" in host.features) == ("avx512_bf16" in flags)
    assert host.vector_bytes == (64 if "avx512f" in flags else 32 if "avx2" in flags else 16)
    assert "pni" not in host.features and ("sse3" in host.features) == ("pni" in flags)
    assert all(" " not in f and "_" not in f for f in host.features)  # LLVM's spelling


def test_cpu_target_follows_native_cpu(monkeypatch):
    monkeypatch.setattr(native, "CPU", "haswell")
    assert cpu_target() == cpu_target("haswell") and target_key() == "cpu=haswell"
    monkeypatch.setattr(native, "CPU", "native")
    assert cpu_target().host


def test_key_is_the_resolved_target():
    key = target_key("native")
    assert "native" not in key and key != target_key("haswell")
    # the host's kind (vendor/family/model) and every feature flag, in LLVM's names
    flags = key.split("+", 1)[1].split(",")
    assert "avx2" in flags and "pni" not in flags


def test_amx_needs_the_os(monkeypatch):
    assert isinstance(request_amx(), bool)
    host = cpu_target("native")
    if not {"amx-tile", "amx-bf16"} <= host.features:
        assert not host.amx_bf16
        return
    assert host.amx_bf16 == request_amx()
    monkeypatch.setattr(target, "request_amx", lambda: False)
    assert not host.amx_bf16
    assert cpu_target("sapphirerapids").amx_bf16  # building for another machine


@pytest.mark.parametrize(
    "line, amx",
    [
        ("call void @llvm.x86.tdpbf16ps.internal(i16 16, i16 64, i16 16, x86_amx %a", True),
        ("%t = call x86_amx @llvm.x86.tileloadd64.internal(i16 16, i16 64, ptr %p", True),
        ("call void @llvm.x86.ldtilecfg(ptr %cfg)", True),
        ("call void @llvm.x86.tdpbf16ps(i8 0, i8 1, i8 2)", True),
        ("%r = call <16 x float> @llvm.x86.avx512.mask.rndscale.ps.512(", False),
        ("%r = call float @llvm.fma.f32(float %a, float %b, float %c)", False),
    ],
)
def test_amx_calls_are_recognised(line, amx):
    assert (native._AMX.search(line.encode()) is not None) == amx


def test_amx_library_loads_only_with_permission(tmp_path, monkeypatch):
    """A library the sidecar marks as AMX code is not loaded when the OS refuses the tile
    state (its first tile instruction would kill the process): a miss, built again."""
    text = lower(binary("add", "tensor<8xf32>"))
    lib = compile_llvm_module(text, cache_dir=tmp_path)
    sidecar = lib.path.with_suffix(".json")
    sidecar.write_text(sidecar.read_text().replace('"amx": false', '"amx": true'))
    monkeypatch.setattr(native, "request_amx", lambda: False)
    assert native.load_cached_library(lib.key, tmp_path) is None
    with pytest.raises(NativeBuildError, match="uses AMX"):
        native._open(lib.path, ["add"], tmp_path, amx=True)
    monkeypatch.setattr(native, "request_amx", lambda: True)
    assert native.load_cached_library(lib.key, tmp_path).functions == ("add",)


def test_library_of_another_target_is_a_miss(tmp_path, monkeypatch):
    """`load_cached_library(key)` (the program cache's way in, keyed on the program alone)
    returns None for an entry built for another CPU: code for a host with AVX-512 must not
    run on one without."""
    text = lower(binary("add", "tensor<8xf32>"))
    lib = compile_llvm_module(text, cache_dir=tmp_path)
    assert native.load_cached_library(lib.key, tmp_path) is not None
    monkeypatch.setattr(native, "CPU", "x86-64")
    assert native.load_cached_library(lib.key, tmp_path) is None
    other = compile_llvm_module(text, cache_dir=tmp_path)
    assert other.key != lib.key and not other.from_cache

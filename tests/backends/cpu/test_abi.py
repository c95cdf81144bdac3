"""Calls of compiled functions through the pool library's `aten_mlir_call` (threads.c), which
forms each descriptor pointer in C and calls with the function's own arity, and the plain ctypes
call it replaces (more pointers than its table, or no pool library); results wrapped as tensors
over their native buffers."""

from __future__ import annotations

import ctypes
import gc
import shutil
import subprocess

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu import threads
from aten_mlir.backends.cpu.abi import NativeFunction, parse_memref_type
from aten_mlir.backends.cpu.results import _Allocation, _wrap
from aten_mlir.backends.cpu.results import free as libc_free
from tests.modules import Fn

# one recorder per arity: the table's (1..64) and one beyond it
ARITIES = [*range(1, 65), 70]


def _recorders(tmp_path):
    """A library of `record<n>(void *a0, ..., void *a<n-1>)`, each storing its arguments in
    `seen`, the 5 words each points to in `words` (a rank-1 descriptor) and `n` in
    `seen_count`."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (the pool library needs one too)")
    lines = ["#include <stdint.h>", "#include <string.h>", "void *seen[80];"]
    lines += ["int64_t words[80][5];", "int64_t seen_count;"]
    for n in ARITIES:
        params = ", ".join(f"void *a{i}" for i in range(n))
        stores = " ".join(f"seen[{i}] = a{i}; memcpy(words[{i}], a{i}, 40);" for i in range(n))
        lines.append(f"void record{n}({params}) {{ {stores} seen_count = {n}; }}")
    source = tmp_path / "record.c"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "record.so"
    subprocess.run([cc, "-shared", "-O1", "-fPIC", "-o", str(out), str(source)], check=True)
    return ctypes.CDLL(str(out))


def _seen(lib, count: int) -> list[int]:
    return list((ctypes.c_void_p * 80).in_dll(lib, "seen")[:count])


def test_every_arity_of_the_table_gets_its_pointers_in_order(tmp_path):
    lib = _recorders(tmp_path)
    call, most = threads.caller()
    assert call is not None and most == 64
    base = (ctypes.c_int64 * 256)()
    address = ctypes.addressof(base)
    for n in range(1, most + 1):
        for results in (None, address + 8 * 200):
            count = n - (results is not None)
            offsets = (ctypes.c_int64 * max(1, count))(*[8 * (3 * i + 1) for i in range(count)])
            ctypes.c_int64.in_dll(lib, "seen_count").value = 0
            fn = ctypes.cast(getattr(lib, f"record{n}"), ctypes.c_void_p).value
            assert call(fn, results, base, offsets, count) == 1
            want = ([results] if results is not None else []) + [
                address + 8 * (3 * i + 1) for i in range(count)
            ]
            assert ctypes.c_int64.in_dll(lib, "seen_count").value == n
            assert _seen(lib, n) == want, n


def test_a_call_beyond_the_table_is_refused_without_calling(tmp_path):
    lib = _recorders(tmp_path)
    call, most = threads.caller()
    ctypes.c_int64.in_dll(lib, "seen_count").value = 0
    base = (ctypes.c_int64 * 80)()
    offsets = (ctypes.c_int64 * 70)(*[8 * i for i in range(70)])
    fn = ctypes.cast(lib.record70, ctypes.c_void_p).value
    assert call(fn, None, base, offsets, 70) == 0
    assert call(fn, ctypes.addressof(base), base, offsets, most) == 0  # most + 1 pointers
    assert call(fn, None, base, offsets, -1) == 0
    assert ctypes.c_int64.in_dll(lib, "seen_count").value == 0


@pytest.mark.parametrize("n", [1, 41, 64, 70])
def test_native_function_passes_each_descriptor(tmp_path, n):
    """Through `aten_mlir_call` up to 64 pointers, by ctypes beyond: the same descriptors."""
    lib = _recorders(tmp_path)
    raw = getattr(lib, f"record{n}")
    raw.argtypes, raw.restype = [ctypes.c_void_p] * n, None
    types = ["memref<?xf32>" if i % 2 else "memref<3xf32>" for i in range(n)]
    function = NativeFunction(f"record{n}", raw, types, [])
    assert (function._call is not None) == (n <= 64)
    tensors = [torch.full((3 + i % 2 * i,), float(i)) for i in range(n)]
    assert function(*tensors) == []
    # the descriptors as the callee saw them (the buffer holding them is gone with the call)
    words = (ctypes.c_int64 * 5 * 80).in_dll(lib, "words")
    for i, t in enumerate(tensors):
        assert list(words[i]) == [t.data_ptr(), t.data_ptr(), 0, t.shape[0], 1], i


def test_a_compiled_dynamic_program_calls_through_the_table():
    def f(x, w):
        return torch.softmax(x @ w, dim=-1) + x.sum(-1, keepdim=True)

    w = torch.randn(16, 16)
    ep = torch.export.export(
        Fn(f), (torch.randn(5, 16), w), dynamic_shapes=(({0: Dim("n", min=1, max=64)}, None),)
    )
    compiled = aten_mlir.compile(ep, target="cpu")
    functions = list(compiled._functions.values())
    assert functions and all(f._call is not None for f in functions)
    for rows in (1, 7, 33):
        x = torch.randn(rows, 16)
        through_table = compiled(x, w)
        kept = [function._call for function in functions]
        for function in functions:
            function._call = None
        by_ctypes = compiled(x, w)
        for function, call in zip(functions, kept):
            function._call = call
        torch.testing.assert_close(through_table, f(x, w))
        assert torch.equal(through_table, by_ctypes)


def test_the_untyped_caller_passes_ctypes_objects_as_they_are(tmp_path):
    """`threads.untyped_caller()` (no argtypes: NativeFunction passes ctypes objects made once)
    forms the same pointers as the typed one; None is a null results pointer."""
    lib = _recorders(tmp_path)
    call, most = threads.untyped_caller()
    assert call is not None and most == threads.caller()[1]
    base = (ctypes.c_int64 * 256)()
    address = ctypes.addressof(base)
    offsets = (ctypes.c_int64 * 3)(8, 48, 96)
    for n, results in ((3, None), (4, ctypes.c_void_p(address + 8 * 200))):
        fn = ctypes.c_void_p(ctypes.cast(getattr(lib, f"record{n}"), ctypes.c_void_p).value)
        ctypes.c_int64.in_dll(lib, "seen_count").value = 0
        assert call(fn, results, base, offsets, ctypes.c_int64(3)) == 1
        want = [address + o for o in (8, 48, 96)]
        if results is not None:
            want = [results.value, *want]
        assert ctypes.c_int64.in_dll(lib, "seen_count").value == n
        assert _seen(lib, n) == want


@pytest.mark.parametrize("element", ["f32", "i64", "i1", "bf16", "complex<f32>"])
def test_a_wrapped_result_frees_its_buffer_once_with_its_last_view(element):
    """Results are wrapped through numpy where numpy has the dtype (bf16 has not: frombuffer):
    either way the buffer outlives the tensor while a view of it is alive, and is freed once."""
    spec = parse_memref_type(f"memref<?x3x{element}>")
    assert (spec.numpy is None) == (element == "bf16")
    libc = ctypes.CDLL(None)
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    address = libc.malloc(4 * 3 * spec.itemsize)
    freed = []
    owner = _Allocation(address, lambda a: freed.append(a) or libc_free(a))
    source = torch.arange(12).view(4, 3).to(spec.dtype)
    ctypes.memmove(address, source.data_ptr(), source.nbytes)
    out = _wrap(owner, address, (4, 3), spec)
    del owner
    assert out.dtype == spec.dtype and out.shape == (4, 3) and out.data_ptr() == address
    assert torch.equal(out, source)
    view = out[1:]
    del out
    gc.collect()
    assert freed == [] and torch.equal(view, source[1:])
    del view
    gc.collect()
    assert freed == [address]

"""The compiled code's cache of temporaries (runtime_support.c `aten_mlir_alloc` / `_free`):
MiB buffers are recycled between calls instead of being faulted in fresh, values unchanged,
safe from several threads, bounded and released on demand."""

from __future__ import annotations

import ctypes
import resource
import threading

import torch

import aten_mlir
from aten_mlir.backends.cpu.runtime_ir import route_allocations


class Block(torch.nn.Module):
    """A 2 MiB result and MiB temporaries (the product's output feeds a softmax)."""

    def forward(self, x, w):
        return torch.softmax(x @ w, dim=-1) * 2 + x


def _compiled(tmp_path, **dims):
    x, w = torch.randn(512, 1024), torch.randn(1024, 1024) / 32
    ep = torch.export.export(Block(), (x, w), dynamic_shapes=dims or None)
    return aten_mlir.compile(ep, target="cpu", cache=False), x, w


def _library(program):
    (library,) = {f._owner for f in program._functions.values()}
    return library


def _cached_bytes(library) -> int:
    function = library._handle["aten_mlir_cached_bytes"]
    function.restype = ctypes.c_size_t
    return function()


def test_the_generated_code_allocates_through_the_cache():
    ir = b"declare ptr @malloc(i64)\ndeclare void @free(ptr)\n%1 = call ptr @malloc(i64 8)\n"
    ir += b"call void @free(ptr %1)\n@malloc.table = global i8 0\ndeclare void @free_list()\n"
    routed = route_allocations(ir)
    assert b"@malloc(" not in routed and b"@free(" not in routed
    assert routed.count(b"@aten_mlir_alloc(") == 2 and routed.count(b"@aten_mlir_free(") == 2
    assert b"@malloc.table" in routed and b"@free_list" in routed  # other names untouched


def test_a_freed_result_is_reused_by_the_next_call(tmp_path):
    program, x, w = _compiled(tmp_path)
    library = _library(program)
    library.release_temporaries()
    first = program(x, w)
    torch.testing.assert_close(first, Block()(x, w))
    del first  # its buffer goes back to the library's cache, not to the OS
    assert _cached_bytes(library) >= 512 * 1024 * 4
    second = program(x, w)  # takes it (or the product's temporary takes it) again
    torch.testing.assert_close(second, Block()(x, w))
    del second
    program(x, w)  # settled: no fresh pages for the temporaries or the result
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    out = program(x, w)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 256, faults  # a fresh 2 MiB result alone is 512 pages
    torch.testing.assert_close(out, Block()(x, w))
    assert library.release_temporaries() > 0
    assert _cached_bytes(library) == 0


def test_recycled_buffers_of_other_sizes_give_the_right_values(tmp_path):
    """Dynamic rows: a cached block is reused only when it is large enough."""
    rows = torch.export.Dim("rows", min=2, max=2048)
    program, _, w = _compiled(tmp_path, x={0: rows}, w=None)
    for n in (512, 7, 1025, 33, 700, 512):
        x = torch.randn(n, 1024)
        torch.testing.assert_close(program(x, w), Block()(x, w))


def test_calls_from_several_threads_share_the_cache_safely(tmp_path):
    program, _, w = _compiled(tmp_path)
    inputs = [torch.randn(512, 1024) for _ in range(4)]
    expected = [Block()(x, w) for x in inputs]
    errors = []

    def work(k):
        try:
            for _ in range(6):
                torch.testing.assert_close(program(inputs[k], w), expected[k])
        except Exception as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert _cached_bytes(_library(program)) <= 256 << 20  # the cap

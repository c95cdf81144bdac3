"""Result descriptors of a `_mlir_ciface_` call made torch tensors (`abi.NativeFunction`).

The callee allocates every result buffer (malloc, through runtime_support.c's cache of
temporaries). A buffer returned whole, in its own allocation, becomes its tensor's storage and is
freed (with the library's `free`) when the last tensor over it dies; any other result (an
argument's buffer, a global constant, a strided view, a second result over one buffer) is copied
into a tensor of its own, so no result ever aliases an input, a constant or another result.

`StaticResults` does the common case of a function whose results are all static and non-empty
in a handful of C-level calls for all of them: a training graph returns dozens of results, and
the per-result Python of `take_results` was ~0.35 ms of a train_cnn step.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
import torch

from aten_mlir.backends.plan import picker

# `memref.get_global` lowers to this sentinel allocated pointer: the buffer is not heap memory.
_NOT_HEAP = frozenset({0, 0xDEADBEEF})

_libc = ctypes.CDLL(None)
free = _libc.free
free.argtypes = [ctypes.c_void_p]
free.restype = None
# `from_address` of an array type, called as a function of (type, address) by `map`
_FROM_ADDRESS = type(ctypes.c_char * 1).from_address


class _Allocation:
    """Owns one result buffer malloc'd by the compiled code: freed when the last tensor over it
    (views included: torch keeps the buffer object alive with the storage) is gone."""

    __slots__ = ("address", "wrapped", "free")

    def __init__(self, address: int, free=free):
        self.address = address
        self.wrapped = False  # a tensor already uses it as storage
        self.free = free  # the library's (its cache of temporaries), else libc's

    def __del__(self):
        self.free(self.address)


def _wrap(owner: _Allocation, address: int, sizes, spec) -> torch.Tensor:
    """A tensor over `nbytes` at `address`, no copy; it keeps `owner` alive (the tensor's
    storage holds the array, the array the ctypes buffer, the buffer `owner`)."""
    count = math.prod(sizes)
    view = (ctypes.c_char * (count * spec.itemsize)).from_address(address)
    view._owner = owner
    if spec.numpy is not None:
        return torch.from_numpy(np.ndarray(sizes, spec.numpy, view))
    flat = torch.frombuffer(view, dtype=spec.dtype, count=count)
    # sizes unpacked: `view(tuple)` parses a sequence and took half again as long
    return flat.view(*sizes) if sizes else flat.view(())


def take_results(function, raw: list[int], input_pointers: list[int]) -> list:
    """The results of one call of `function` (a NativeFunction) from the result descriptors'
    words `raw`; `input_pointers` are the buffers the call was given."""
    outputs, owners = [], {}
    try:
        for k, (spec, at, strides_at, end, static_strides) in enumerate(function._result_layout):
            alloc, aligned, offset = raw[at : at + 3]
            sizes = tuple(raw[at + 3 : strides_at])
            strides = tuple(raw[strides_at:end])
            if k in function._bytes_results:
                outputs.append(_bytes_of(spec, alloc, aligned, offset, sizes, strides))
                if alloc not in _NOT_HEAP and alloc not in input_pointers:
                    owners.setdefault(alloc, _Allocation(alloc, function._free))
                continue
            # a `?` result in its own row-major buffer is wrapped too, not copied out
            static_strides = static_strides or function.strides_of(sizes)
            # a result returned in its own heap buffer becomes the tensor's storage; one
            # that is an input, a constant or a strided view of a buffer is copied
            owned = alloc not in _NOT_HEAP and alloc not in input_pointers
            if owned and alloc not in owners:
                owners[alloc] = _Allocation(alloc, function._free)
            if spec.static_shape is not None and sizes != spec.static_shape:
                raise RuntimeError(
                    f"{function.name}: result of type {spec.text} came back with sizes {sizes}"
                )
            address = aligned + offset * spec.itemsize
            # two results over one buffer (`return %x, %x`) stay two tensors: copy the second
            fresh = owned and not owners[alloc].wrapped
            if fresh and strides == static_strides and math.prod(sizes) > 0:
                owners[alloc].wrapped = True
                outputs.append(_wrap(owners[alloc], address, sizes, spec))
                continue
            if strides == static_strides:
                out = torch.empty(sizes, dtype=spec.dtype)
                ctypes.memmove(out.data_ptr(), address, out.nbytes)
            else:
                out = _copy_out(spec, address, sizes, strides)
            outputs.append(out)
    finally:
        # owned buffers are freed with their last tensor (or here, on an error)
        owners.clear()
    return outputs


class StaticResults:
    """`take(raw, input_pointers)`: every result wrapped by a few calls over all of them, or
    None when a result is not a whole buffer of its own (then `take_results` copies it, or
    raises for sizes other than declared). For functions whose results are wrapped through
    numpy (not bf16/complex32) or read as bytes; static results must be non-empty.

    Results with `?` dims take the same path: their size words, read as one tuple, key the
    expected descriptor words, shapes and buffer types of those sizes (made once per distinct
    sizes, like `CallGuards`' sizes key), so a dynamic program's results cost a dict lookup
    more than a static one's rather than `take_results`' per-result Python (0.5-0.9 us of a
    b1 s7 call). Sizes with an empty result (or a negative size) go to `take_results`.

    Each result's buffer is held by an instance of a ctypes array type of its size (over the
    aligned address) whose finalizer frees its allocation: the buffer object numpy and torch
    keep alive, so it is freed with the last tensor over it, as `_Allocation` does (one object
    less per result)."""

    def __init__(self, function):
        layout = function._result_layout
        words, allocs, aligned, sized = [], [], [], []
        for spec, at, _strides_at, end, _strides in layout:
            # offset 0, the sizes, identity strides: one comparison for all results
            words += range(at + 2, end)
            allocs.append(at)
            aligned.append(at + 1)
            sized += (at + 3 + d for d, n in enumerate(spec.sizes) if n is None)
        self._free = function._free
        self._specs = tuple(spec for spec, *_ in layout)
        self._meta = picker(words)
        self._allocs = picker(allocs)
        self._aligned = picker(aligned)
        self._dtypes = tuple(function.numpy_dtype(k) for k in range(len(layout)))
        self._count = len(layout)
        self._names = ("allocation",) * len(layout)  # set on each buffer object (`take`)
        self._bytes = tuple(sorted(function._bytes_results))
        # the `?` results' size words, in order (None: every result is static)
        self._sizes = picker(sized) if sized else None
        self._by_sizes: dict = {}  # their values -> `_expect` of them, or None
        self._types: dict = {}  # bytes -> a buffer type of that size
        self._static = None if sized else self._expect(())

    @staticmethod
    def applies(function) -> bool:
        return bool(function._result_layout) and all(
            (spec.static_shape is None or math.prod(spec.static_shape) > 0)
            and (function.numpy_dtype(k) is not None or k in function._bytes_results)
            for k, (spec, *_) in enumerate(function._result_layout)
        )

    def _expect(self, sizes: tuple):
        """(the descriptor words after each allocated/aligned pair, the shapes, the buffer
        types) of results whose `?` dims are `sizes` in order; None when a result would be
        empty or a size is negative (`take_results` then handles or refuses them)."""
        expected, shapes, types = [], [], []
        rest = iter(sizes)
        for spec in self._specs:
            shape = spec.static_shape
            if shape is None:
                shape = tuple(next(rest) if n is None else n for n in spec.sizes)
            if min(shape, default=1) <= 0:
                return None
            expected += [0, *shape, *_row_major(shape)]
            shapes.append(shape)
            nbytes = spec.itemsize * math.prod(shape)
            kind = self._types.get(nbytes)
            if kind is None:
                if len(self._types) >= _KEPT:
                    self._types.clear()  # live buffers keep their own type alive
                kind = self._types[nbytes] = type(
                    "OwnedBuffer", (ctypes.c_char * nbytes,), {"__del__": _freeing(self._free)}
                )
            types.append(kind)
        return tuple(expected), tuple(shapes), tuple(types)

    def take(self, raw: list[int], input_pointers: list[int]) -> list | None:
        known = self._static
        if known is None:
            sizes = self._sizes(raw)
            known = self._by_sizes.get(sizes, False)
            if known is False:
                if len(self._by_sizes) >= _KEPT:
                    self._by_sizes.clear()
                known = self._by_sizes[sizes] = self._expect(sizes)
            if known is None:
                return None
        expected, shapes, types = known
        allocs = self._allocs(raw)
        if (
            self._meta(raw) != expected
            or len(set(allocs)) != self._count  # two results over one buffer
            or not _NOT_HEAP.isdisjoint(allocs)
            or not set(allocs).isdisjoint(input_pointers)  # an argument returned
        ):
            return None
        buffers = list(map(_FROM_ADDRESS, types, self._aligned(raw)))
        # from here on each buffer is owned by its ctypes object: freed if anything below fails
        list(map(setattr, buffers, self._names, allocs))
        outputs = list(map(torch.from_numpy, map(np.ndarray, shapes, self._dtypes, buffers)))
        for k in self._bytes:
            outputs[k] = bytes(buffers[k])  # the flags: read, and their buffer freed
        return outputs


# distinct result sizes (and buffer sizes) remembered per function; cleared when full
_KEPT = 256


def _row_major(sizes: tuple) -> list:
    """The identity-layout strides of `sizes` (abi.identity_strides; abi imports this module)."""
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= size
    return strides[::-1]


def _freeing(free):
    """The finalizer of a buffer's ctypes array: gives the buffer back (`free(its address)`)."""

    def __del__(self):
        allocation = getattr(self, "allocation", None)  # None: `take` failed before setting it
        if allocation is not None:
            free(allocation)

    return __del__


def _bytes_of(spec, alloc, aligned, offset, sizes, strides) -> bytes:
    address = aligned + offset * spec.itemsize
    if sizes != spec.static_shape or strides != spec.strides:
        return _copy_out(spec, address, sizes, strides).numpy().tobytes()
    return ctypes.string_at(address, math.prod(sizes) * spec.itemsize)


def _copy_out(spec, address: int, sizes: tuple, strides: tuple):
    """Copies one result buffer of any (non-negative) strides into a fresh contiguous tensor."""
    out = torch.empty(sizes, dtype=spec.dtype)
    numel = math.prod(sizes)
    if numel == 0:
        return out
    identity = []
    step = 1
    for size in reversed(sizes):
        identity.append(step)
        step *= size
    if all(n == 1 or s == t for n, s, t in zip(sizes, strides, reversed(identity))):
        ctypes.memmove(out.data_ptr(), address, numel * spec.itemsize)
        return out
    if any(s < 0 for s in strides):
        raise RuntimeError(f"result of type {spec.text} has negative strides {strides}")
    span = 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    source = (ctypes.c_char * (span * spec.itemsize)).from_address(address)
    flat = torch.frombuffer(source, dtype=spec.dtype)
    out.copy_(flat.as_strided(sizes, strides))
    return out

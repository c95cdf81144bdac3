"""Kernel count and bytes moved by a Triton program, against the ideal.

One call of the program runs with every kernel wrapped: each launch records the bytes of the
tensors it loads from and stores to (a whole tensor per pointer: an upper bound for the kernels
that read a window of one). The ideal is what any schedule must move: the program's inputs
(user inputs and the state it reads) read once, its outputs written once, and the operands and
of the tensor-core products that are intermediates written and read once each (a `tl.dot`
kernel reads its operands from memory; its result can stay in registers for an epilogue).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Launch:
    kernel: str
    read: int
    written: int
    ops: list[str]
    operands: dict = None  # matmuls: name -> (data_ptr, bytes) of a and b
    stores: frozenset = frozenset()  # data_ptrs of the tensors written


def _nbytes(t) -> int:
    """The bytes of the elements `t` can address: a stride-0 (broadcast) dim counts once."""
    if not isinstance(t, torch.Tensor):
        return 0
    n = 1
    for size, stride in zip(t.shape, t.stride()):
        n *= size if stride != 0 else min(size, 1)
    return n * t.element_size()


_BQ = 22  # the position of a partner product's B among a matmul kernel's arguments


def _distinct_bytes(tensors) -> int:
    """The bytes of `tensors`, a memory two views name (a buffer and its reshape) once: a
    kernel reading it through both moves it once."""
    seen = {(t.data_ptr(), _nbytes(t)) for t in tensors if isinstance(t, torch.Tensor)}
    return sum(n for _, n in seen)


def trace(compiled, *args, **kwargs) -> tuple[list[Launch], object]:
    """Calls `compiled` once; returns every kernel launch with its traffic, and the result."""
    library = compiled.library
    module = library.module
    launches: list[Launch] = []
    saved = {}
    for kernel in library.kernels:
        jit = getattr(module, kernel.name)
        saved[kernel.name] = jit
        setattr(module, kernel.name, _Recorder(jit, kernel, launches))
    copy = module.copy

    def traced_copy(dst, src):
        stores = frozenset({dst.data_ptr()})
        launches.append(Launch("copy", _nbytes(src), _nbytes(dst), [], None, stores))
        copy(dst, src)

    module.copy = traced_copy
    try:
        result = compiled(*args, **kwargs)
    finally:
        for name, jit in saved.items():
            setattr(module, name, jit)
        module.copy = copy
    return launches, result


class _Recorder:
    def __init__(self, jit, kernel, launches):
        self.jit, self.kernel, self.launches = jit, kernel, launches

    def __getitem__(self, grid):
        launch = self.jit[grid]

        def run(*args, **kwargs):
            names, values = [p.name for p in self.kernel.params], list(args)
            if self.kernel.mode in ("matmul", "conv"):
                # a, b, c, then the template's sizes and strides, (a partner product's bq and
                # cq, each followed by its strides), then the epilogue's params
                own = [*args[:3]]
                if names[3:5] == ["bq", "cq"]:
                    own += [args[_BQ], args[_BQ + 6]]
                extra = len(names) - len(own)
                values = [*own, *(args[len(args) - extra :] if extra else [])]
            by_name = dict(zip(names, values))
            read = _distinct_bytes(by_name.get(p) for p in self.kernel.reads)
            written = _distinct_bytes(by_name.get(p) for p in self.kernel.writes)
            operands = None
            if self.kernel.mode in ("matmul", "conv"):
                # the operands, which a tensor-core product must read from memory; its result
                # can stay in registers (an epilogue consumes it)
                operands = {
                    n: (by_name[n].data_ptr(), _nbytes(by_name[n]))
                    for n in ("a", "b", "bq")
                    if isinstance(by_name.get(n), torch.Tensor)
                }
            stores = frozenset(
                by_name[p].data_ptr()
                for p in self.kernel.writes
                if isinstance(by_name.get(p), torch.Tensor)
            )
            launch_ = Launch(self.kernel.name, read, written, self.kernel.ops, operands, stores)
            self.launches.append(launch_)
            return launch(*args, **kwargs)

        return run


def report(compiled, *args) -> dict:
    launches, result = trace(compiled, *args)
    # the outputs of the traced call: their memory is not an intermediate's
    outputs = [t for t in torch.utils._pytree.tree_leaves(result) if isinstance(t, torch.Tensor)]
    inputs = [a for a in torch.utils._pytree.tree_leaves(args) if isinstance(a, torch.Tensor)]
    moved = sum(launch.read + launch.written for launch in launches)
    ideal = sum(_nbytes(t) for t in inputs) + sum(_nbytes(t) for t in outputs)
    ideal += sum(_nbytes(t) for t in compiled.state.values())
    sources = {t.data_ptr() for t in [*inputs, *compiled.state.values()]}
    ideal += _matmul_intermediates(launches, sources, {t.data_ptr() for t in outputs})
    return {
        "kernels": len(compiled.library.kernels),
        "launches": len(launches),
        "bytes_moved": moved,
        "bytes_ideal": ideal,
        "ratio": moved / max(ideal, 1),
        "per_kernel": launches,
    }


def _matmul_intermediates(launches: list[Launch], sources: set[int], sinks: set[int]) -> int:
    """Bytes a tensor-core product must exchange with memory beyond the program's inputs,
    state and outputs: each operand that is an intermediate, written once and read
    once (counted once however many products share it; memory the launcher reuses for another
    tensor counts again once something writes it anew)."""
    last = {ptr: i for i, launch in enumerate(launches) for ptr in launch.stores}
    seen, total, version = set(), 0, {}
    for i, launch in enumerate(launches):
        for ptr, nbytes in (launch.operands or {}).values():
            key = (ptr, version.get(ptr))
            # an input or state tensor read before anything overwrote it, or an output's
            # final contents: counted with the program's ends
            end = key[1] is None and ptr in sources or ptr in sinks and key[1] == last.get(ptr)
            if not end and key not in seen:
                seen.add(key)
                total += 2 * nbytes
        for ptr in launch.stores:
            version[ptr] = i
    return total

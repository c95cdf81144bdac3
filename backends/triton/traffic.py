"""Kernel count and bytes moved by a Triton program, against the ideal.

One call of the program runs with every kernel wrapped: each launch records the bytes of the
tensors it loads from and stores to (a whole tensor per pointer: an upper bound for the kernels
that read a window of one). The ideal is what any schedule must move: the program's inputs
(user inputs and the state it reads) read once, its outputs written once, and the operands and
results of matrix products that are intermediates written and read once each (a tensor-core
product cannot be fused with both its producer and its consumer).
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


def _nbytes(t) -> int:
    return t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0


def trace(compiled, *args, **kwargs) -> list[Launch]:
    """Calls `compiled` once and returns every kernel launch with its traffic."""
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
        launches.append(Launch("copy", _nbytes(src), _nbytes(dst), []))
        copy(dst, src)

    module.copy = traced_copy
    try:
        compiled(*args, **kwargs)
    finally:
        for name, jit in saved.items():
            setattr(module, name, jit)
        module.copy = copy
    return launches


class _Recorder:
    def __init__(self, jit, kernel, launches):
        self.jit, self.kernel, self.launches = jit, kernel, launches

    def __getitem__(self, grid):
        launch = self.jit[grid]

        def run(*args, **kwargs):
            names = [p.name for p in self.kernel.params]
            if self.kernel.mode == "matmul":
                names = ["a", "b", "c"]
            by_name = dict(zip(names, args))
            read = sum(_nbytes(by_name.get(p)) for p in self.kernel.reads)
            written = sum(_nbytes(by_name.get(p)) for p in self.kernel.writes)
            self.launches.append(Launch(self.kernel.name, read, written, self.kernel.ops))
            return launch(*args, **kwargs)

        return run


def report(compiled, *args) -> dict:
    launches = trace(compiled, *args)
    outputs = torch.utils._pytree.tree_leaves(compiled(*args))
    inputs = [a for a in torch.utils._pytree.tree_leaves(args) if isinstance(a, torch.Tensor)]
    moved = sum(launch.read + launch.written for launch in launches)
    ideal = sum(_nbytes(t) for t in inputs) + sum(_nbytes(t) for t in outputs)
    ideal += sum(_nbytes(t) for t in compiled.state.values())
    ideal += _matmul_intermediates(launches)
    return {
        "kernels": len(compiled.library.kernels),
        "launches": len(launches),
        "bytes_moved": moved,
        "bytes_ideal": ideal,
        "ratio": moved / max(ideal, 1),
        "per_kernel": launches,
    }


def _matmul_intermediates(launches: list[Launch]) -> int:
    """Bytes a matmul must exchange with memory beyond the program's inputs and outputs: its
    result written once and read once (approximated by the bytes it writes, twice)."""
    return sum(2 * launch.written for launch in launches if "_mm" in launch.kernel)

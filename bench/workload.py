"""What a bench workload is: a builder of (module, example inputs), the rate it is judged by,
its set, and for the dynamic set the `dynamic_shapes` it is exported with and the sizes it is
called at.

`kind` says which rate and which limit the report gives:
- "flops": GFLOP/s, counted by torch's `FlopCounterMode` in eager at each call's sizes (products:
  mm, bmm, addmm, convs, sdpa), unless `flops` gives the count; limit: the f32 FMA peak (bf16
  workloads: the bf16 matmul rate) x threads;
- "bytes": GB/s of the inputs and outputs read and written once; limit: the copy bandwidth;
- "weights": GB/s of the parameters plus the inputs and outputs (decode: every weight is read
  once per token); limit: the copy bandwidth;
- "time": neither (the zoo's tiny models, where a call is mostly dispatch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

SETS = ("small", "dynamic", "bf16", "realistic", "training")


@dataclass(frozen=True)
class Dynamic:
    """Export with `shapes` (torch.export `dynamic_shapes`, a function since `Dim`s are made
    fresh), call at each of `sizes()`: (label, inputs) pairs."""

    shapes: Callable[[], object]
    sizes: Callable[[], list[tuple[str, tuple]]]


@dataclass(frozen=True)
class Workload:
    name: str
    build: Callable[[], tuple[nn.Module, tuple]]
    kind: str  # "flops" | "bytes" | "weights" | "time"
    flops: float = 0.0  # 0: counted with FlopCounterMode
    group: str = "small"  # one of SETS
    dynamic: Dynamic | None = None


def seeded(build):
    def wrapped():
        torch.manual_seed(0)
        return build()

    return wrapped


def io_bytes(inputs, outputs) -> int:
    """Bytes of the tensors a memory-bound workload must read and write once."""
    leaves = torch.utils._pytree.tree_leaves((inputs, outputs))
    return sum(t.numel() * t.element_size() for t in leaves if isinstance(t, torch.Tensor))


def weight_bytes(model: nn.Module) -> int:
    tensors = list(model.parameters()) + list(model.buffers())
    return sum(t.numel() * t.element_size() for t in tensors)


def counted_flops(model: nn.Module, inputs) -> float:
    """FLOPs of one eager call: torch's counter (matmuls, convs), with each
    `scaled_dot_product_attention` counted as its two products (4 b h Sq Sk d) in place of what
    the counter saw of it (nothing for the CPU's fused kernel)."""
    from torch.overrides import TorchFunctionMode
    from torch.utils.flop_counter import FlopCounterMode

    sdpa = torch.nn.functional.scaled_dot_product_attention
    counter = FlopCounterMode(display=False)
    correction = [0.0]

    class _Attention(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func is not sdpa:
                return func(*args, **(kwargs or {}))
            q, k = args[0], args[1]
            before = counter.get_total_flops()
            out = func(*args, **(kwargs or {}))
            seen = counter.get_total_flops() - before
            correction[0] += 4.0 * q.numel() // q.shape[-1] * k.shape[-2] * q.shape[-1] - seen
            return out

    with torch.no_grad(), counter, _Attention():
        model(*inputs)
    return float(counter.get_total_flops()) + correction[0]


def to_bf16(build):
    """`build`'s module and floating-point inputs in bfloat16."""

    def wrapped():
        model, inputs = build()
        cast = tuple(t.bfloat16() if t.is_floating_point() else t for t in inputs)
        return model.bfloat16(), cast

    return wrapped

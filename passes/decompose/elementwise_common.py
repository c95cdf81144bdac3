"""What the elementwise and special-function rules share: the dtype a formula computes in, scalars
as 0-d tensors, and one-to-one renames (aliases and overloads that ATen forwards verbatim)."""

from __future__ import annotations

import torch

from aten_mlir.dialects import get_op_def

from .common import dtype, to_dtype
from .registry import register_decomposition

# ATen's `opmath_type`: a kernel on reduced-precision floats computes in float32 and rounds once.
# A formula of several ops computes in the same dtype, so it does not round after every step.
OPMATH = {
    torch.float16: torch.float32,
    torch.bfloat16: torch.float32,
    torch.complex32: torch.complex64,
}


def result_dtype(op, index: int = 0) -> torch.dtype:
    return dtype(op.results[index])


def compute_dtype(op) -> torch.dtype:
    """The dtype a multi-op formula for `op` computes in (its result's opmath type)."""
    out = result_dtype(op)
    return OPMATH.get(out, out)


def cast_all(rewriter, target: torch.dtype, *values):
    """Tensors cast to `target`; Python numbers pass through (ops promote them as wrapped)."""
    return [to_dtype(rewriter, v, target) if hasattr(v, "type") else v for v in values]


def finish(rewriter, op, value):
    """`value` in the op's result dtype (the cast back from `compute_dtype`)."""
    return to_dtype(rewriter, value, result_dtype(op))


def scalar(rewriter, value, elem: torch.dtype):
    """A 0-d tensor holding `value` (a branch of `where.self`, which takes no Python numbers)."""
    return rewriter.aten("aten.scalar_tensor", value, dtype=elem)


def is_complex(value) -> bool:
    return dtype(value).is_complex


def call_with(rewriter, target: str, args: dict):
    """`target` called with schema arguments by name: the leading ones positionally (`self` cannot
    be a keyword of `rewriter.aten`), from the first one missing or keyword-only on by name."""
    positional, named = [], {}
    for a in get_op_def(target).args:
        if a.name not in args:
            continue
        if not named and not a.kwarg_only and len(positional) == _index_of(target, a.name):
            positional.append(args[a.name])
        else:
            named[a.name] = args[a.name]
    return rewriter.aten(target, *positional, **named)


def _index_of(target: str, name: str) -> int:
    return [a.name for a in get_op_def(target).args].index(name)


def register_renamed(source: str, target: str, **fixed) -> None:
    """Registers `source -> target` called with the same schema arguments (plus `fixed` ones):
    aliases (`true_divide`), dunder spellings (`__and__`) and `special_*` forwarders."""

    def rule(op, rewriter):
        return call_with(rewriter, target, {**rewriter.args, **fixed})

    rule.__doc__ = f"{source} -> {target}"
    rule.__name__ = "decompose_" + source[len("aten.") :].replace(".", "_")
    register_decomposition(source)(rule)


def register_scalar_overload(source: str, target: str, arg: str) -> None:
    """Registers `source -> aten.scalar_tensor, target`: the overload taking a Python number for
    `arg` is the Tensor overload on a 0-d tensor of the result dtype (ATen wraps the number the
    same way; a wrapped number and such a 0-d tensor promote alike)."""

    def rule(op, rewriter):
        args = dict(rewriter.args)
        args[arg] = scalar(rewriter, args[arg], result_dtype(op))
        return call_with(rewriter, target, args)

    rule.__doc__ = f"{source} -> aten.scalar_tensor, {target}"
    rule.__name__ = "decompose_" + source[len("aten.") :].replace(".", "_")
    register_decomposition(source)(rule)

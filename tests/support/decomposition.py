"""The check every decomposition test makes: run a program on the reference interpreter before and
after `aten_mlir.decompose` and compare.

`assert_decomposes(program, tensors)` takes a built program; `check_decomposition(op_name,
tensors, kwargs)` builds the single-op program first (`list_op_program` with `tensor_list=True`).
The families differ only in what they accept, given as keywords:

- `keep`: ops allowed to stay (added to `target_set`: ops kept whole, the elementwise ops a
  family leaves to another); `left`: the ops expected outside `target_set(keep)`, exactly
  (default none; fft leaves the complex-to-complex transforms);
- `absent`: strings the decomposed IR must not contain (the op itself, `as_strided`);
- `equal_nan` and `assert_close`'s `rtol`/`atol` (default: assert_close's dtype-based ones);
  `exact=True` is `rtol=0, atol=0` (bit-exact families: views, padding, triangles).

`assert_family_decomposes` checks a whole imported program for one family's ops
(`family_ops(module)`), keeping the ops of families not decomposed yet.

Results are compared leaf by leaf (tuple and list outputs flattened): the same count, dtype and
shape, then values.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

import aten_mlir
from aten_mlir.frontend.program import Program
from aten_mlir.passes.decompose import DECOMPOSITIONS, ops_outside, target_set
from aten_mlir.passes.pipeline import run_pipeline

from .programs import list_op_program, single_op_program


class Decomposition(NamedTuple):
    program: Program  # the decomposed program
    expected: object  # reference result of the original program
    actual: object  # reference result of the decomposed one


def leaves(value) -> list:
    """The tensors of a (nested) tuple/list result, in order; a tensor is its own leaf."""
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in leaves(v)]
    return [value]


def assert_same_results(actual, expected, equal_nan=True, **close) -> None:
    """Leaf by leaf: the same number of results, dtypes, shapes, and values within `close`."""
    actual, expected = leaves(actual), leaves(expected)
    assert len(actual) == len(expected), (len(actual), len(expected))
    for a, e in zip(actual, expected):
        if isinstance(a, torch.Tensor) and isinstance(e, torch.Tensor):
            assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, a.shape, e.dtype, e.shape)
        torch.testing.assert_close(a, e, equal_nan=equal_nan, **close)


def assert_decomposes(
    program: Program,
    tensors,
    *,
    keep=(),
    left=(),
    absent=(),
    exact=False,
    equal_nan=True,
    **close,
) -> Decomposition:
    """Decomposes `program`; asserts the ops outside `target_set(keep)` are exactly `left`, no
    string of `absent` is in the IR, and it computes what the original computes on `tensors`."""
    if exact:
        close = {"rtol": 0, "atol": 0, **close}
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    text = str(decomposed)
    outside = {op.name for op in ops_outside(decomposed.module.operation, target_set(tuple(keep)))}
    assert outside == set(left), text
    for s in absent:
        assert s not in text, f"{s!r} left in\n{text}"
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert_same_results(actual, expected, equal_nan=equal_nan, **close)
    return Decomposition(decomposed, expected, actual)


def check_decomposition(
    op_name: str, tensors, kwargs=None, dynamic=False, *, tensor_list=False, lead=None, **checks
) -> Decomposition:
    """`assert_decomposes` on `@main` holding `op_name(tensors..., **kwargs)`. `dynamic`: True
    makes every dim `?`, a list gives the `?` dims per tensor; `tensor_list` passes the tensors
    (after the first `lead`) as the op's `Tensor[]` argument."""
    kwargs = dict(kwargs or {})
    if tensor_list:
        program = list_op_program(op_name, tensors, dynamic=dynamic, lead=lead, **kwargs)
    else:
        program = single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    return assert_decomposes(program, tensors, **checks)


def family_ops(module) -> set[str]:
    """The ops the decomposition module `module` registers rules for."""
    return {n for n, d in DECOMPOSITIONS.items() if d.fn.__module__ == module.__name__}


def assert_family_decomposes(program: Program, inputs, expected, family: set[str]) -> None:
    """Decomposes a whole (imported) program, checks no op of `family` is left
    (`aten-check-target`, keeping the other families' ops not decomposed yet) and that it still
    computes `expected` (atol = rtol = 1e-5)."""
    decomposed = aten_mlir.decompose(program)
    others = {op.name for op in ops_outside(decomposed.module.operation, target_set())}
    assert not others & family, sorted(others & family)
    keep = ",".join(sorted(others))
    run_pipeline(
        decomposed.module, f"aten-check-target{{keep={keep}}}" if keep else "aten-check-target"
    )
    actual = aten_mlir.run_reference(decomposed, *inputs)
    torch.testing.assert_close(actual, expected, equal_nan=True, atol=1e-5, rtol=1e-5)

"""Checks for lowering rules: compile a single aten op (or a small module) and compare with eager.

`assert_lowers(op_name, tensors, **kwargs)` builds `@main` with one aten op, compiles it to native
code with no fallback allowed for that op, runs it and compares with the eager overload (shape,
dtype and values; NaN positions equal). `dynamic=True` makes every dim `?`.

`ATEN_MLIR_TEST_TARGET=triton` runs the same checks on the Triton backend (a measurement, not
part of the default suite: `ATEN_MLIR_TEST_TARGET=triton python -m pytest
tests/passes/aten_to_linalg`).
"""

from __future__ import annotations

import os

import torch

import aten_mlir
from tests.support.programs import single_op_program

TARGET = os.environ.get("ATEN_MLIR_TEST_TARGET", "cpu")
if TARGET == "triton":
    import triton

    triton.knobs.runtime.interpret = True


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def assert_close_like_eager(actual, expected, atol=1e-5, rtol=1.3e-6, exact_dtype=True):
    actual, expected = _flat(actual), _flat(expected)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        if not isinstance(e, torch.Tensor):
            assert a == e
            continue
        assert a.shape == e.shape, (a.shape, e.shape)
        if exact_dtype:
            assert a.dtype == e.dtype, (a.dtype, e.dtype)
        torch.testing.assert_close(a, e, atol=atol, rtol=rtol, equal_nan=True, check_dtype=False)


def compile_op(op_name: str, tensors, dynamic=False, names=None, **kwargs):
    """The `CompiledProgram` of `@main` holding `op_name(tensors..., **kwargs)`."""
    program = single_op_program(op_name, list(tensors), dynamic=dynamic, names=names, **kwargs)
    return program, aten_mlir.compile(program, target=TARGET)


def assert_lowers(
    op_name: str, tensors, dynamic=False, names=None, atol=1e-5, rtol=1.3e-6, **kwargs
):
    """Compiles the single-op program, asserts `op_name` was lowered (not a fallback) and that
    the native result equals eager's. Returns (actual, expected)."""
    program, compiled = compile_op(op_name, tensors, dynamic=dynamic, names=names, **kwargs)
    assert not compiled.fallbacks, f"{op_name} fell back: {compiled.fallbacks}"
    expected = aten_mlir.run_reference(program, *[t.clone() for t in tensors])
    actual = compiled(*[t.clone() for t in tensors])
    assert_close_like_eager(actual, expected, atol=atol, rtol=rtol)
    return actual, expected


def assert_module_lowers(
    module: torch.nn.Module, inputs, dynamic_shapes=None, atol=1e-5, rtol=1.3e-6, allow_fallback=()
):
    """Exports `module`, compiles it, asserts no fallback beyond `allow_fallback` and that it
    computes what eager computes."""
    ep = torch.export.export(module, tuple(inputs), dynamic_shapes=dynamic_shapes, strict=False)
    compiled = aten_mlir.compile(ep, target=TARGET)
    left = [f for f in compiled.fallbacks if f.op not in allow_fallback]
    assert not left, f"fallbacks: {left}"
    expected = module(*[t.clone() for t in inputs])
    actual = compiled(*[t.clone() for t in inputs])
    assert_close_like_eager(actual, expected, atol=atol, rtol=rtol)
    return compiled


def static_and_batch_dim(model, x, tmp_path):
    """`model` exported at `x` static, then with a `Dim` on the batch, each compiled with its
    stages dumped: yields (dynamic, program, the IR after the vectorize stage)."""
    for dynamic in (None, ({0: torch.export.Dim("b")},)):
        ep = torch.export.export(model, (x,), dynamic_shapes=dynamic)
        dump = tmp_path / ("dynamic" if dynamic else "static")
        program = aten_mlir.compile(ep, dump_dir=dump, cache=False)
        yield dynamic, program, (dump / "05-vectorize.mlir").read_text()

"""A function body to build aten ops in: `with function("tensor<2x3xf32>", "index") as args:`."""

from __future__ import annotations

import contextlib

import pytest
from mlir import ir
from mlir.dialects import func

from aten_mlir.dialects import make_context


@contextlib.contextmanager
def _function(*arg_types: str):
    """Yields the block arguments of a fresh `func.func @f(<arg_types>)`; ops built inside go into
    its body. The module stays alive until the block exits (ops die with it)."""
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ir.FunctionType.get([ir.Type.parse(t) for t in arg_types], []))
        block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            yield list(block.arguments)
        del module


@pytest.fixture
def function():
    return _function

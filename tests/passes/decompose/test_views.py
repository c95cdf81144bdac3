"""Each view/shape decomposition equals the op it replaces (eager kernels on both sides), static
and with `?` dims where the rule supports them, and leaves only target-set ops; the view OpInfo
samples import, decompose, pass `aten-check-target` and match eager."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.dialects import ArgKind, get_op_def
from aten_mlir.passes.decompose import ops_outside, target_set

from . import single_op
from .samples import check_opinfo_samples
from .single_op import single_op_program


def list_op_program(op_name, tensors, dynamic=False, **kwargs):
    """`single_op_program`, but an op whose first argument is a `Tensor[]` takes all the
    tensors in it (`aten.stack([x0, x1], dim=1)`)."""
    first = get_op_def(op_name).args[0]
    if first.kind is not ArgKind.TENSOR_LIST:
        return single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    real_build = single_op.build_aten

    def build_with_list(name, *args, **kw):
        return real_build(name, **{first.name: list(args)}, **kw)

    single_op.build_aten = build_with_list
    try:
        return single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    finally:
        single_op.build_aten = real_build


X_FLOAT = torch.cat(
    [torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0]), torch.randn(20)]
).reshape(2, 3, 4)
X_INT = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4) - 7


def one(x):
    return [x]


# (op, inputs from a 2x3x4 tensor, kwargs, supports `?` dims)
CASES = [
    ("aten.transpose.int", one, {"dim0": 0, "dim1": -1}, True),
    ("aten.t", lambda x: [x[0]], {}, True),
    ("aten.t", lambda x: [x[0, 0]], {}, True),
    ("aten.swapaxes", one, {"axis0": 1, "axis1": 2}, True),
    ("aten.movedim.int", one, {"source": 0, "destination": 2}, True),
    ("aten.movedim.int", one, {"source": -1, "destination": 0}, True),
    ("aten.reshape", one, {"shape": [4, -1]}, False),
    ("aten._unsafe_view", one, {"size": [6, 4]}, False),
    ("aten.view_as", lambda x: [x, x.reshape(6, 4)], {}, False),
    ("aten.flatten.using_ints", one, {"start_dim": 1, "end_dim": -1}, True),
    ("aten.flatten.using_ints", lambda x: [x[0, 0, 0]], {}, False),
    ("aten.unflatten.int", one, {"dim": -1, "sizes": [2, 2]}, False),
    ("aten.squeeze", lambda x: [x[:1, :, None, :1]], {}, False),
    ("aten.expand_as", lambda x: [x[:1, :, :1], x], {}, True),
    ("aten.broadcast_tensors", lambda x: [x[:1, :, :1], x[0, 0], x], {}, True),
    ("aten.split.Tensor", one, {"split_size": 3, "dim": -1}, False),
    ("aten.split.sizes", one, {"split_size": [1, 2], "dim": 1}, False),
    ("aten.chunk", one, {"chunks": 3, "dim": 2}, False),
    ("aten.unbind.int", one, {"dim": 1}, False),
    ("aten.narrow", one, {"dim": 2, "start": -3, "length": 2}, True),
    ("aten.view_copy", one, {"size": [-1, 2]}, False),
    ("aten.expand_copy", lambda x: [x[:, :1]], {"size": [2, 5, 4]}, False),
    ("aten.permute_copy", one, {"dims": [2, 0, 1]}, True),
    ("aten.t_copy", lambda x: [x[1]], {}, True),
    ("aten.transpose_copy.int", one, {"dim0": 1, "dim1": 0}, True),
    ("aten.squeeze_copy", lambda x: [x[:, :1]], {}, False),
    ("aten.unsqueeze_copy", one, {"dim": -1}, True),
    ("aten.narrow_copy", one, {"dim": 1, "start": 1, "length": 2}, True),
    ("aten.select_copy.int", one, {"dim": 1, "index": -1}, True),
    ("aten.slice_copy.Tensor", one, {"dim": 2, "start": 1, "end": 4, "step": 2}, True),
    ("aten.diagonal_copy", one, {"offset": 1, "dim1": 1, "dim2": 2}, True),
    ("aten.alias_copy", one, {}, True),
    ("aten.squeeze_copy.dim", lambda x: [x[:, :1]], {"dim": 1}, False),
    ("aten.squeeze_copy.dims", lambda x: [x[:1, :, :1]], {"dim": [0, 2]}, False),
    ("aten.stack", lambda x: [x, x * 2], {"dim": -1}, True),
    ("aten.hstack", lambda x: [x[0, 0], x[1, 1]], {}, False),
    ("aten.hstack", lambda x: [x, x[:, :1]], {}, True),
    ("aten.vstack", lambda x: [x[0, 0], x[0, 1:]], {}, False),
    ("aten.dstack", lambda x: [x[0], x[1]], {}, True),
    ("aten.column_stack", lambda x: [x[0, 0], x[0].t(), x[1, 1]], {}, False),
    ("aten.column_stack", lambda x: [x[0, 0, 0], x[1, 1, :1]], {}, False),
    ("aten.atleast_1d.Sequence", lambda x: [x[0, 0, 0], x[0]], {}, False),
    ("aten.atleast_2d.Sequence", lambda x: [x[0, 0, 0], x[0, 0], x], {}, False),
    ("aten.atleast_3d.Sequence", lambda x: [x[0, 0, 0], x[0, 0], x[0], x], {}, False),
    ("aten.unfold", one, {"dimension": 2, "size": 2, "step": 1}, False),
    ("aten.unfold", one, {"dimension": 1, "size": 2, "step": 2}, False),
    ("aten.unfold", lambda x: [x[0, 0, 0]], {"dimension": 0, "size": 1, "step": 1}, False),
    ("aten.fliplr", one, {}, True),
    ("aten.flipud", one, {}, True),
    ("aten.rot90", one, {"k": 1, "dims": [2, 0]}, True),
    ("aten.rot90", one, {"k": -2}, True),
    ("aten.rot90", one, {"k": 3, "dims": [1, 2]}, True),
    ("aten.rot90", one, {"k": 4}, True),
]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def check_decomposition(op_name, tensors, kwargs, dynamic=False):
    tensors = [t.contiguous() for t in tensors]
    program = list_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    assert "as_strided" not in str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    torch.testing.assert_close(actual, expected, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("x", [X_FLOAT, X_INT], ids=["f32", "i32"])
@pytest.mark.parametrize(("op_name", "inputs", "kwargs", "dynamic"), CASES, ids=_ids(CASES))
def test_view_decomposition_matches_the_op(op_name, inputs, kwargs, dynamic, x):
    check_decomposition(op_name, inputs(x), kwargs)


DYNAMIC = [c for c in CASES if c[3]]


@pytest.mark.parametrize(("op_name", "inputs", "kwargs", "dynamic"), DYNAMIC, ids=_ids(DYNAMIC))
def test_view_decomposition_with_dynamic_dims(op_name, inputs, kwargs, dynamic):
    check_decomposition(op_name, inputs(X_FLOAT), kwargs, dynamic=True)


# The view OpInfos whose exported samples hold non-core ops (the survey of issue 3).
VIEW_OPINFOS = (
    "transpose t squeeze squeeze_copy split chunk unbind narrow_copy stack hstack vstack dstack "
    "column_stack fliplr flipud rot90 broadcast_tensors atleast_1d atleast_2d atleast_3d "
    "permute_copy expand_copy t_copy transpose_copy unsqueeze_copy view_copy mT unfold"
).split()


def test_view_opinfo_samples_decompose_to_core():
    check_opinfo_samples(VIEW_OPINFOS)

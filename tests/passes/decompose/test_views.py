"""Each view/shape decomposition equals the op it replaces (eager kernels on both sides), static
and with `?` dims where the rule supports them, and leaves only target-set ops; the view OpInfo
samples import, decompose, pass `aten-check-target` and match eager."""

from __future__ import annotations

from functools import partial

import pytest
import torch

from tests.support.decomposition import check_decomposition
from tests.support.opinfo_samples import check_opinfo_samples

# As in test_matrices: only target ops, no as_strided; a `Tensor[]` argument takes the tensors.
check = partial(check_decomposition, tensor_list=True, absent=("as_strided",))


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
    ("aten.atleast_1d", lambda x: [x[0, 0, 0]], {}, False),
    ("aten.atleast_2d", lambda x: [x[0, 0]], {}, True),
    ("aten.atleast_3d", lambda x: [x[0]], {}, True),
    ("aten.atleast_3d", one, {}, True),
    ("aten.ravel", lambda x: [x.transpose(0, 2)], {}, True),
    ("aten.reshape_as", lambda x: [x, x.reshape(4, 6)], {}, False),
    ("aten.swapdims", one, {"dim0": 0, "dim1": 2}, True),
    ("aten.moveaxis.int", one, {"source": 0, "destination": -1}, True),
    ("aten.movedim.intlist", one, {"source": [0, 2], "destination": [2, 1]}, True),
    ("aten.moveaxis.intlist", one, {"source": [-1], "destination": [0]}, True),
    ("aten.linalg_diagonal", one, {"offset": -1, "dim1": 1, "dim2": 2}, True),
    ("aten.detach", one, {}, True),
    ("aten.detach_copy", one, {}, True),
    ("aten.lift_fresh_copy", one, {}, True),
    (
        "aten.contiguous",
        lambda x: [x.transpose(1, 2)],
        {"memory_format": torch.contiguous_format},
        True,
    ),
    ("aten._reshape_copy", one, {"size": [3, -1]}, False),
    ("aten.unsafe_split.Tensor", one, {"split_size": 3, "dim": -1}, False),
    ("aten.split_copy.Tensor", one, {"split_size": 2, "dim": 1}, False),
    ("aten.unsafe_split_with_sizes", one, {"split_sizes": [1, 3], "dim": 2}, False),
    ("aten.split_with_sizes_copy", one, {"split_sizes": [2, 1], "dim": 1}, False),
    ("aten.unsafe_chunk", one, {"chunks": 2, "dim": 2}, False),
    ("aten.unbind_copy.int", one, {"dim": -1}, False),
    ("aten.unfold_copy", one, {"dimension": 1, "size": 2, "step": 1}, False),
    ("aten.tensor_split.sections", one, {"sections": 3, "dim": 2}, False),
    ("aten.tensor_split.indices", one, {"indices": [1, 5, 2], "dim": -1}, False),
    ("aten.hsplit.int", one, {"sections": 3}, False),
    ("aten.hsplit.array", one, {"indices": [1]}, False),
    ("aten.vsplit.array", one, {"indices": [1, 1]}, False),
    ("aten.dsplit.int", one, {"sections": 2}, False),
    # rolling, tiling, repeating (shapes_repeat.py)
    ("aten.roll", one, {"shifts": [1], "dims": [0]}, True),
    ("aten.roll", one, {"shifts": [-5, 2], "dims": [1, 2]}, True),
    ("aten.roll", one, {"shifts": [3], "dims": []}, True),
    ("aten.roll", one, {"shifts": [8], "dims": [2]}, True),
    ("aten.fft_fftshift", one, {}, True),
    ("aten.fft_ifftshift", one, {"dim": [1]}, True),
    ("aten.tile", one, {"dims": [2]}, False),
    ("aten.tile", one, {"dims": [2, 1, 1, 2]}, False),
    ("aten.repeat_interleave.self_int", one, {"repeats": 3, "dim": 1}, True),
    ("aten.repeat_interleave.self_int", one, {"repeats": 2}, True),
    # differences, grids, sums to a size, chunk_cat, resize_as (shapes_calculus.py)
    ("aten.diff", one, {"n": 2, "dim": -1}, True),
    ("aten.diff", lambda x: [x > 0], {"n": 1, "dim": 1}, True),
    ("aten.diff", lambda x: [x, x[:1]], {"n": 0, "dim": 0, "names": ["self", "prepend"]}, False),
    ("aten.meshgrid", lambda x: [x[0, 0], x[0, :, 0], x[0, 0, 0]], {}, False),
    ("aten.meshgrid.indexing", lambda x: [x[0, 0], x[0, :, 0]], {"indexing": "xy"}, False),
    ("aten.sum_to_size", one, {"size": [3, 1]}, False),
    ("aten.sum_to_size", one, {"size": [1, 3, 4]}, False),
    ("aten._chunk_cat", lambda x: [x[0], x[1, :, :3]], {"dim": 1, "num_chunks": 2}, False),
    ("aten.resize_as", lambda x: [x, x[0, :2]], {}, False),
    ("aten.resize_as", lambda x: [x[:, :2], x[0, :, 1:]], {}, False),
]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def _check_view(op_name, tensors, kwargs, dynamic=False):
    """`check` on contiguous copies of `tensors`, bit-exact."""
    check(op_name, [t.contiguous() for t in tensors], kwargs, dynamic, exact=True)


@pytest.mark.parametrize("x", [X_FLOAT, X_INT], ids=["f32", "i32"])
@pytest.mark.parametrize(("op_name", "inputs", "kwargs", "dynamic"), CASES, ids=_ids(CASES))
def test_view_decomposition_matches_the_op(op_name, inputs, kwargs, dynamic, x):
    _check_view(op_name, inputs(x), kwargs)


DYNAMIC = [c for c in CASES if c[3]]


@pytest.mark.parametrize(("op_name", "inputs", "kwargs", "dynamic"), DYNAMIC, ids=_ids(DYNAMIC))
def test_view_decomposition_with_dynamic_dims(op_name, inputs, kwargs, dynamic):
    _check_view(op_name, inputs(X_FLOAT), kwargs, dynamic=True)


# The view OpInfos whose exported samples hold non-core ops (the survey of issue 3).
VIEW_OPINFOS = (
    "transpose t squeeze squeeze_copy split chunk unbind narrow_copy stack hstack vstack dstack "
    "column_stack fliplr flipud rot90 broadcast_tensors atleast_1d atleast_2d atleast_3d "
    "permute_copy expand_copy t_copy transpose_copy unsqueeze_copy view_copy mT unfold "
    "unsafe_split split_with_sizes_copy unbind_copy unfold_copy unsafe_chunk tensor_split hsplit "
    "vsplit dsplit ravel reshape_as movedim contiguous"
).split()

# The shape OpInfos of shapes_repeat.py and shapes_calculus.py.
SHAPE_OPINFOS = (
    "roll fft.fftshift fft.ifftshift tile repeat_interleave diff meshgrid.variadic_tensors "
    "meshgrid.list_of_tensors sum_to_size _chunk_cat trapz trapezoid cumulative_trapezoid gradient"
).split()


def test_view_opinfo_samples_decompose_to_core():
    check_opinfo_samples(VIEW_OPINFOS)


def test_shape_opinfo_samples_decompose_to_core():
    check_opinfo_samples(SHAPE_OPINFOS, limit=2)


Y = torch.cat([torch.tensor([float("nan"), float("inf"), -0.0]), torch.randn(17)]).reshape(4, 5)

# (op, tensors, kwargs, supports `?` dims): numeric shape ops, compared with float tolerance
NUMERIC = [
    ("aten.trapezoid.x", [Y, torch.randn(5)], {"dim": 1}, True),
    ("aten.trapezoid.x", [Y, torch.randn(4, 5)], {"dim": 0}, True),
    ("aten.trapz.x", [Y, torch.randn(1, 5)], {"dim": -1}, False),
    ("aten.trapezoid.dx", [Y], {"dx": 0.5, "dim": 0}, True),
    ("aten.trapz.dx", [X_INT[0]], {"dx": 2, "dim": 1}, True),
    ("aten.trapezoid.dx", [Y[:, :0]], {"dx": 1, "dim": 1}, False),
    ("aten.cumulative_trapezoid.x", [Y, torch.randn(4, 5)], {"dim": 1}, True),
    ("aten.cumulative_trapezoid.dx", [Y], {"dx": 0.3, "dim": 0}, True),
    ("aten.cumulative_trapezoid.dx", [X_INT[0]], {"dx": 1, "dim": -1}, False),
    *[
        (f"aten.gradient.{overload}", [Y], {**kwargs, "edge_order": order}, False)
        for order in (1, 2)
        for overload, kwargs in [
            ("scalarint", {}),
            ("scalarint", {"spacing": 2.0, "dim": 1}),
            ("scalararray", {"spacing": 0.5, "dim": [1, 0]}),
            ("array", {"dim": [0]}),
            ("scalarrayint", {"spacing": [3], "dim": 1}),
            ("scalarrayarray", {"spacing": [0.5, 3], "dim": [1, 0]}),
        ]
    ],
    ("aten.gradient.scalarint", [X_INT[0]], {"edge_order": 1}, False),
    (
        "aten.repeat_interleave.self_Tensor",
        [Y, torch.tensor([1, 0, 3, 2])],
        {"dim": 0, "output_size": 6},
        False,
    ),
    (
        "aten.repeat_interleave.self_Tensor",
        [Y, torch.tensor(2)],
        {"dim": 1, "output_size": 10},
        False,
    ),
]


@pytest.mark.parametrize(("op_name", "tensors", "kwargs", "dynamic"), NUMERIC, ids=_ids(NUMERIC))
def test_numeric_shape_decomposition_matches_the_op(op_name, tensors, kwargs, dynamic):
    check(op_name, tensors, kwargs)
    if dynamic:
        check(op_name, tensors, kwargs, dynamic=True)


@pytest.mark.parametrize("order", [1, 2])
def test_gradient_with_coordinates_matches_the_op(order):
    x, rows, cols = torch.randn(4, 6), torch.rand(4).cumsum(0), torch.rand(6).cumsum(0)
    check(
        "aten.gradient.tensorarray", [x, rows, cols], {"dim": [0, 1], "edge_order": order}, lead=1
    )
    check("aten.gradient.tensorarrayint", [x, cols], {"dim": 1, "edge_order": order}, lead=1)


def test_roll_never_uses_as_strided_and_keeps_runtime_shifts_exact():
    x = torch.arange(10.0).reshape(2, 5)
    decomposed = check(
        "aten.roll", [x], {"shifts": [-7], "dims": [1]}, dynamic=True, exact=True
    ).program
    assert "arith.remsi" in str(decomposed)

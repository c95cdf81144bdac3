"""Each indexing / scatter / masking / searching decomposition equals the op it replaces (eager
kernels on both sides), on static and `?` dims, special values and integer dtypes, and leaves
only target-set ops."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from tests.support.decomposition import assert_decomposes
from tests.support.opinfo_samples import check_opinfo_samples
from tests.support.programs import single_op_program

NAN, INF = float("nan"), float("inf")


def _x(*shape, dtype=torch.float32):
    torch.manual_seed(0)
    x = torch.randn(*shape) * 4
    flat = x.view(-1)
    special = torch.tensor([NAN, INF, -INF, -0.0, 0.0])[: flat.numel()]
    flat[: special.numel()] = special
    return x.to(dtype) if dtype.is_floating_point else torch.randint(-9, 9, shape, dtype=dtype)


IDX = torch.tensor([2, 0, -1])
MASK = torch.tensor([[True, False, True, False], [False, False, True, True], [True] * 4])
SORTED = torch.tensor([-INF, -2.0, -0.0, 1.0, 1.0, 3.5, NAN])

UNIQUE = torch.tensor([[3.0, NAN, 1.0, 3.0], [NAN, -0.0, 0.0, 1.0]])
# name -> (op, tensors, kwargs); NAMES binds tensors to schema arguments by name
CASES = {
    "index_fill_scalar": ("aten.index_fill.int_Scalar", [_x(3, 4), IDX], {"dim": 1, "value": -2.5}),
    "index_fill_int": (
        "aten.index_fill.int_Scalar",
        [_x(3, 4, dtype=torch.int32), IDX],
        {"dim": 0, "value": 7},
    ),
    "index_fill_tensor": (
        "aten.index_fill.int_Tensor",
        [_x(3, 4), IDX, torch.tensor(NAN)],
        {"dim": -1},
    ),
    "index_copy": ("aten.index_copy", [_x(3, 4), torch.tensor([2, 0, 1]), _x(3, 3)], {"dim": 1}),
    "index_copy_0d": (
        "aten.index_copy",
        [torch.tensor(1.5), torch.tensor([0]), torch.tensor(-2.0)],
        {"dim": 0},
    ),
    "index_add": (
        "aten.index_add",
        [_x(4, 3), torch.tensor([1, 1, 3]), _x(3, 3)],
        {"dim": 0, "alpha": 2},
    ),
    "index_add_int": (
        "aten.index_add",
        [_x(4, 3, dtype=torch.int64), torch.tensor([0, 0]), _x(4, 2, dtype=torch.int64)],
        {"dim": 1},
    ),
    "index_reduce_amax": (
        "aten.index_reduce",
        [_x(4, 3), torch.tensor([1, 1, 3]), _x(3, 3)],
        {"dim": 0, "reduce": "amax"},
    ),
    "index_reduce_mean": (
        "aten.index_reduce",
        [_x(4, 3), torch.tensor([1, 1, 3]), _x(3, 3)],
        {"dim": 0, "reduce": "mean", "include_self": False},
    ),
    "index_reduce_prod_int": (
        "aten.index_reduce",
        [_x(3, 4, dtype=torch.int32), torch.tensor([0, 2, 0]), _x(3, 3, dtype=torch.int32)],
        {"dim": 1, "reduce": "prod"},
    ),
    "masked_fill_scalar": ("aten.masked_fill.Scalar", [_x(3, 4), MASK], {"value": -0.0}),
    "masked_fill_bcast": (
        "aten.masked_fill.Scalar",
        [_x(2, 3, 4, dtype=torch.int16), MASK],
        {"value": 3},
    ),
    "masked_fill_tensor": (
        "aten.masked_fill.Tensor",
        [_x(3, 4), MASK, torch.tensor(INF, dtype=torch.float64)],
        {},
    ),
    "take": ("aten.take", [_x(3, 4), torch.tensor([[0, 11], [-1, 5]])], {}),
    "take_along_dim": (
        "aten.take_along_dim",
        [_x(3, 4), torch.tensor([[0, 3], [1, -1], [-4, 0]])],
        {"dim": 1},
    ),
    "take_along_dim_bcast": (
        "aten.take_along_dim",
        [_x(3, 4), torch.tensor([[0, 2, 2, 1]])],
        {"dim": 0},
    ),
    "take_along_dim_flat": ("aten.take_along_dim", [_x(3, 4), torch.tensor([0, 11, 5])], {}),
    "put": ("aten.put", [_x(3, 4), torch.tensor([[0, -1], [5, 7]]), _x(2, 2)], {}),
    "put_accumulate": (
        "aten.put",
        [_x(3, 4, dtype=torch.int32), torch.tensor([1, 1, -1]), _x(3, dtype=torch.int32)],
        {"accumulate": True},
    ),
    "isin": ("aten.isin.Tensor_Tensor", [_x(3, 4), torch.tensor([[NAN, INF], [0.0, 1.0]])], {}),
    "isin_invert_int": (
        "aten.isin.Tensor_Tensor",
        [_x(3, 4, dtype=torch.int64), torch.tensor([1, 2, 3, -4])],
        {"invert": True},
    ),
    "isin_tensor_scalar": (
        "aten.isin.Tensor_Scalar",
        [_x(3, 4)],
        {"test_element": 0.0, "invert": True},
    ),
    "isin_scalar_tensor": (
        "aten.isin.Scalar_Tensor",
        [_x(3, 4, dtype=torch.int32)],
        {"element": 3},
    ),
    "bucketize": ("aten.bucketize.Tensor", [_x(3, 5), SORTED[:-1]], {}),
    "bucketize_right_nan": (
        "aten.bucketize.Tensor",
        [_x(3, 5), SORTED],
        {"right": True, "out_int32": True},
    ),
    "bucketize_scalar": ("aten.bucketize.Scalar", [SORTED[1:6]], {"self": 1.0, "right": True}),
    "searchsorted_2d": (
        "aten.searchsorted.Tensor",
        [torch.sort(_x(3, 6)).values, _x(3, 4)],
        {"side": "right"},
    ),
    "searchsorted_sorter": (
        "aten.searchsorted.Tensor",
        [torch.tensor([5, 1, 3, 3, 9]), _x(2, 3, dtype=torch.int64), torch.tensor([1, 2, 3, 0, 4])],
        {},
    ),
    "searchsorted_scalar": ("aten.searchsorted.Scalar", [torch.tensor([1, 2, 2, 4])], {"self": 2}),
    "searchsorted_empty": ("aten.searchsorted.Tensor", [torch.zeros(0), _x(4)], {}),
    "diagonal_scatter": ("aten.diagonal_scatter", [_x(3, 4), _x(3)], {"offset": 1}),
    "diagonal_scatter_3d": (
        "aten.diagonal_scatter",
        [_x(2, 4, 3), _x(4, 2)],
        {"offset": -1, "dim1": 2, "dim2": 0},
    ),
    "as_strided_copy": (
        "aten.as_strided_copy",
        [_x(3, 4)],
        {"size": [2, 3], "stride": [1, 4], "storage_offset": 1},
    ),
    "as_strided_scatter": (
        "aten.as_strided_scatter",
        [_x(3, 4), _x(2, 2)],
        {"size": [2, 2], "stride": [5, 1], "storage_offset": 2},
    ),
    "argwhere": ("aten.argwhere", [_x(3, 4)], {}),
    "nonzero_static_pad": ("aten.nonzero_static", [MASK], {"size": 12, "fill_value": -7}),
    "nonzero_static_cut": ("aten.nonzero_static", [MASK], {"size": 3}),
    "masked_select": ("aten.masked_select", [_x(3, 4), MASK], {}),
    "masked_select_bcast": ("aten.masked_select", [_x(4, dtype=torch.int32), MASK], {}),
    "histc": ("aten.histc", [_x(4, 5)], {"bins": 7, "min": -3, "max": 4}),
    "histc_data_range": ("aten.histc", [torch.randn(50) * 3], {"bins": 10}),
    "histc_one_value": ("aten.histc", [torch.full((3,), 2.0)], {"bins": 4}),
    "histogram_bins": (
        "aten.histogram.bins_tensor",
        [torch.randn(6, 5), torch.tensor([-2.0, -0.5, 0.0, 0.1, 1.5])],
        {"density": True, "weight": torch.rand(6, 5)},
    ),
    "histogram_bin_ct": (
        "aten.histogram.bin_ct",
        [torch.randn(40, dtype=torch.float64)],
        {"bins": 6},
    ),
    "histogram_range": (
        "aten.histogram.bin_ct",
        [_x(8, 3)],
        {"bins": 5, "range": [-1.0, 2.0], "density": True},
    ),
    "histogram_empty": ("aten.histogram.bin_ct", [torch.zeros(0, 3)], {"bins": 2}),
    "histogramdd": (
        "aten.histogramdd",
        [torch.randn(5, 7, 2)],
        {"bins": [3, 4], "density": True, "weight": torch.rand(5, 7)},
    ),
    "histogramdd_tensor_bins": (
        "aten.histogramdd.TensorList_bins",
        [torch.randn(9, 2)],
        {"bins": [torch.tensor([-1.0, 0.0, 1.0]), torch.tensor([-3.0, 0.5, 2.0, 2.5])]},
    ),
    "unique": ("aten._unique2", [UNIQUE], {"return_inverse": True, "return_counts": True}),
    "unique_int": ("aten._unique2", [torch.tensor([[3, 1], [1, -2]])], {"sorted": False}),
    "unique_bool": ("aten._unique2", [torch.tensor([True, False, True])], {"return_counts": True}),
    "unique_consecutive": (
        "aten.unique_consecutive",
        [UNIQUE],
        {"return_inverse": True, "return_counts": True},
    ),
    "select_backward": (
        "aten.select_backward",
        [_x(3, 5)],
        {"input_sizes": [3, 4, 5], "dim": 1, "index": -2},
    ),
    "slice_backward": (
        "aten.slice_backward",
        [_x(3, 2)],
        {"input_sizes": [3, 5], "dim": 1, "start": 1, "end": 5, "step": 2},
    ),
    "diagonal_backward": (
        "aten.diagonal_backward",
        [_x(4, 1)],
        {"input_sizes": [3, 4, 2], "offset": 1, "dim1": 0, "dim2": 2},
    ),
    "index_select_backward": (
        "aten.index_select_backward",
        [_x(3, 3), torch.tensor([1, 1, 0])],
        {"self_sizes": [3, 4], "dim": 1},
    ),
    "gather_backward": (
        "aten.gather_backward",
        [_x(2, 3), _x(3, 4), torch.tensor([[0, 3, 3], [1, 0, 0]])],
        {"dim": 1, "sparse_grad": False},
    ),
    "scatter_multiply": (
        "aten.scatter.reduce",
        [_x(3, 4), torch.tensor([[0, 0], [3, 1]]), _x(2, 2)],
        {"dim": 1, "reduce": "multiply"},
    ),
    "scatter_value_add": (
        "aten.scatter.value_reduce",
        [_x(3, 4, dtype=torch.int32), torch.tensor([[0, 0], [3, 1]])],
        {"dim": 1, "value": 5, "reduce": "add"},
    ),
    "unsafe_index": ("aten._unsafe_index.Tensor", [_x(3, 4)], {"indices": [None, IDX]}),
    "unsafe_index_put": (
        "aten._unsafe_index_put",
        [_x(3, 4)],
        {"indices": [torch.tensor([1, 1])], "values": _x(2, 4), "accumulate": True},
    ),
    "embedding_bag_last_padding": (
        "aten.embedding_bag.padding_idx",
        [_x(5, 3), torch.tensor([0, 4, 4, 2, 1]), torch.tensor([0, 2])],
        {
            "scale_grad_by_freq": False,
            "mode": 1,
            "sparse": False,
            "per_sample_weights": None,
            "include_last_offset": False,
            "padding_idx": -1,
        },
    ),
    "embedding_bag": (
        "aten.embedding_bag",
        [_x(5, 3), torch.tensor([0, 4, 4, 2, 1]), torch.tensor([0, 2, 2])],
        {"mode": 2},
    ),
    "embedding_backward": (
        "aten.embedding_backward",
        [_x(2, 3, 4), torch.tensor([[0, 2, 2], [5, 0, 1]])],
        {"num_weights": 6, "padding_idx": 2, "scale_grad_by_freq": True, "sparse": False},
    ),
}
NAMES = {
    "scatter_multiply": ["self", "index", "src"],
    "scatter_value_add": ["self", "index"],
    "index_select_backward": ["grad", "index"],
    "gather_backward": ["grad", "self", "index"],
    **{c: ["self", "index", "source"] for c in CASES if c.startswith(("index_copy", "index_add"))},
    **{c: ["self", "index", "source"] for c in CASES if c.startswith("index_reduce")},
    "index_fill_scalar": ["self", "index"],
    "index_fill_int": ["self", "index"],
    "index_fill_tensor": ["self", "index", "value"],
    "bucketize_scalar": ["boundaries"],
    "isin_scalar_tensor": ["test_elements"],
    "searchsorted_scalar": ["sorted_sequence"],
    "searchsorted_sorter": ["sorted_sequence", "self", "sorter"],
    "searchsorted_empty": ["sorted_sequence", "self"],
}
# Result shapes that depend on the data: meta tensors cannot type them, torch.export can.
EXPORTED = {"argwhere", "masked_select", "masked_select_bcast", "nonzero_static_pad"}
EXPORTED |= {c for c in CASES if c.startswith(("histogram", "unique"))}  # no meta kernels
EXPORTED |= {"unsafe_index", "unsafe_index_put"}  # index lists: constants of the export
# `?` dims of each tensor where a rule needs some static size (default: every dim is `?`).
DYNAMIC = {
    "take_along_dim": [[0], [0]],
    "take_along_dim_bcast": [[1], [1]],
    "diagonal_backward": [[0]],
}
# Rules that need a static size where the op's `?` dims would put a runtime one.
STATIC_ONLY = EXPORTED | {
    "embedding_bag",  # _embedding_bag's meta kernel cannot type `?` bags
    "embedding_bag_last_padding",
    "take_along_dim_flat",
    "histc_data_range",
    "histc_one_value",
    "as_strided_scatter",
    "bucketize_scalar",
    "bucketize_right_nan",
    "bucketize",
    "searchsorted_2d",
    "searchsorted_sorter",
    "searchsorted_scalar",
    "searchsorted_empty",
    "diagonal_scatter",
    "diagonal_scatter_3d",
    "nonzero_static_pad",
    "nonzero_static_cut",
    "index_copy_0d",
}


class _Call(torch.nn.Module):
    def __init__(self, op_name, kwargs):
        super().__init__()
        packet, _, overload = op_name.removeprefix("aten.").partition(".")
        self.op = getattr(getattr(torch.ops.aten, packet), overload or "default")
        self.kwargs = kwargs

    def forward(self, *tensors):
        return self.op(*tensors, **self.kwargs)


def _program(case: str, dynamic: bool):
    op_name, tensors, kwargs = CASES[case]
    if case in EXPORTED:
        exported = torch.export.export(_Call(op_name, kwargs), tuple(tensors))
        return aten_mlir.import_program(exported)
    dynamic = DYNAMIC.get(case, True) if dynamic else False
    return single_op_program(op_name, tensors, dynamic=dynamic, names=NAMES.get(case), **kwargs)


def _check(case: str, dynamic: bool) -> None:
    assert_decomposes(_program(case, dynamic), CASES[case][1], absent=('aten.as_strided"',))


@pytest.mark.parametrize("case", sorted(CASES))
def test_indexing_decomposition_matches_the_op(case):
    _check(case, dynamic=False)


@pytest.mark.parametrize("case", sorted(set(CASES) - STATIC_ONLY))
def test_indexing_decomposition_with_dynamic_dims(case):
    _check(case, dynamic=True)


def test_searchsorted_needs_a_static_sequence_length():
    seq, x = torch.tensor([1.0, 2.0]), torch.tensor([1.5])
    program = single_op_program("aten.searchsorted.Tensor", [seq, x], dynamic=[[0], []])
    assert "aten.searchsorted.Tensor" in str(aten_mlir.decompose(program))


def test_opinfo_samples():
    # One sample per rule family member (the full sweep covers every sample; this stays fast).
    check_opinfo_samples(
        [
            "index_fill",
            "index_add",
            "index_reduce.amax",
            "take_along_dim",
            "masked_select",
            "isin",
            "searchsorted",
            "diagonal_scatter",
            "histc",
            "unique",
            "nonzero_static",
            "put",
        ],
        limit=1,
    )


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_renorm_scales_only_named_long_rows(norm_type, dynamic):
    weight = torch.tensor([[3.0, 4.0], [0.1, 0.2], [6.0, 8.0], [-5.0, 12.0]])
    indices = torch.tensor([[0, 1], [0, 3]])  # row 2 is long but not named: unchanged
    program = single_op_program(
        "aten.embedding_renorm",
        [weight, indices],
        dynamic=dynamic,
        max_norm=2.5,
        norm_type=norm_type,
    )
    actual = assert_decomposes(program, [weight, indices]).actual
    assert torch.equal(actual[2], weight[2]) and torch.equal(actual[1], weight[1])
    assert torch.linalg.vector_norm(actual[3], norm_type) <= 2.5 + 1e-5

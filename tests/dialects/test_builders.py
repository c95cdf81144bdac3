"""`build_aten` / `aten`: arguments bound like a torch call, defaults filled, operand segments
where needed, result types inferred on meta tensors; clear `AtenBuildError`s otherwise."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from mlir.dialects import arith, tensor

from aten_mlir.dialects import (
    AtenBuildError,
    AttributeEncodingError,
    aten,
    build_aten,
    op_arguments,
    verify_op,
)


def attrs(op) -> dict[str, str]:
    return {name: str(op.attributes[name]) for name in op.attributes}


def types(op) -> list[str]:
    return [str(r.type) for r in op.results]


def test_defaults_are_filled_and_result_type_inferred(function):
    with function("tensor<2x3xf32>", "tensor<3xi64>") as (x, n):
        op = build_aten("aten.add.Tensor", x, n)
        # Promotion and broadcasting come from the meta kernel.
        assert types(op) == ["tensor<2x3xf32>"]
        assert attrs(op) == {"alpha": "1 : i64"}  # plain tensors: no operandSegmentSizes
        assert list(op.operands) == [x, n]
        assert verify_op(op) == []


def test_keyword_arguments_and_absent_optionals(function):
    with function("tensor<2x3xf32>") as (x,):
        op = build_aten("aten.sum.dim_IntList", x, [1], keepdim=True)
        assert types(op) == ["tensor<2x1xf32>"]
        assert attrs(op) == {"dim": "array<i64: 1>", "keepdim": "true"}  # dtype=None: absent
        op = build_aten("aten.sum.dim_IntList", x, dim=[0, 1], dtype=torch.float64)
        assert types(op) == ["tensor<f64>"]
        assert attrs(op) == {"dim": "array<i64: 0, 1>", "keepdim": "false", "dtype": "f64"}
        assert verify_op(op) == []


def test_aten_returns_the_single_result(function):
    with function("tensor<4xf32>") as (x,):
        y = aten("aten.relu", x)
        assert isinstance(y, ir.Value) and str(y.type) == "tensor<4xf32>"
        assert y.owner.name == "aten.relu"
        with pytest.raises(AtenBuildError, match="2 results"):
            aten("aten.max.dim", x, 0)


def test_multi_result_and_result_list_inference(function):
    with function("tensor<2x6xf32>") as (x,):
        op = build_aten("aten.max.dim", x, 1, True)
        assert types(op) == ["tensor<2x1xf32>", "tensor<2x1xi64>"]
        op = build_aten("aten.split.Tensor", x, 4, 1)
        assert types(op) == ["tensor<2x4xf32>", "tensor<2x2xf32>"]
        op = build_aten("aten.native_layer_norm", x, [6], None, None, 1e-5)
        assert types(op) == ["tensor<2x6xf32>", "tensor<2x1xf32>", "tensor<2x1xf32>"]
        assert verify_op(op) == []


@pytest.mark.parametrize(
    "op_name, make_args, segments, extra",
    [
        ("aten.add.Tensor", lambda x, i: (x, 2.5), [1, 0, 0], {"other": "2.500000e+00 : f64"}),
        ("aten.linear", lambda x, i: (x, x), [1, 1, 0], {}),
        ("aten.cat", lambda x, i: ([x, x, x],), [3, 0], {"dim": "0 : i64"}),
        (
            "aten.index.Tensor",
            lambda x, i: (x, [None, i]),
            [1, 1],
            {"indices": "array<i1: false, true>"},
        ),
    ],
    ids=["wrapped_number", "absent_optional", "tensor_list", "optional_tensor_list"],
)
def test_operand_segments(function, op_name, make_args, segments, extra):
    with function("tensor<3x3xf32>", "tensor<2xi64>") as (x, i):
        op = build_aten(op_name, *make_args(x, i))
        a = attrs(op)
        assert a.pop("operandSegmentSizes") == f"array<i32: {', '.join(map(str, segments))}>"
        assert {k: v for k, v in a.items() if k in extra} == extra
        assert len(op.operands) == sum(segments)
        assert verify_op(op) == []


def test_symbolic_sizes_are_index_operands(function):
    with function("tensor<?x6xf32>") as (x,):
        n = arith.ConstantOp(ir.IndexType.get(), 4).result
        op = build_aten("aten.view", x, [n, 3, -1], results=[ir.Type.parse("tensor<?x3x?xf32>")])
        assert attrs(op) == {"operandSegmentSizes": "array<i32: 1, 3>"}
        size = op_arguments(op)["size"]
        assert size[0] == n
        # Python ints next to runtime sizes become `index` constants.
        assert [str(v.owner.attributes["value"]) for v in size[1:]] == ["3 : index", "-1 : index"]
        assert verify_op(op) == []


def test_dynamic_dims_are_inferred_from_two_meta_runs(function):
    with function("tensor<?x6xf32>", "tensor<6x?xf32>") as (x, y):
        assert types(build_aten("aten.relu", x)) == ["tensor<?x6xf32>"]
        assert types(build_aten("aten.mm", x, y)) == ["tensor<?x?xf32>"]
        assert types(build_aten("aten.sum.dim_IntList", x, [0])) == ["tensor<6xf32>"]
        assert types(build_aten("aten.view", x, [-1, 3])) == ["tensor<?x3xf32>"]


def test_runtime_scalars_need_explicit_results(function):
    with function("tensor<?x6xf32>") as (x,):
        size = tensor.DimOp(x, arith.ConstantOp(ir.IndexType.get(), 0).result).result
        with pytest.raises(AtenBuildError, match="results="):
            build_aten("aten.view", x, [size, 6])
        op = build_aten("aten.view", x, [size, 6], results=[x.type])
        assert types(op) == ["tensor<?x6xf32>"]


def test_location_and_insertion_point(function):
    with function("tensor<4xf32>") as (x,):
        loc = ir.Location.file("model.py", 12, 0)
        first = build_aten("aten.relu", x, loc=loc)
        second = build_aten("aten.neg", x, ip=ir.InsertionPoint(first))
        assert str(first.location) == 'loc("model.py":12:0)'
        ops = [op.name for op in first.parent.regions[0].blocks[0].operations]
        assert ops == ["aten.neg", "aten.relu"]
        assert second.name == "aten.neg"


def test_result_segments_for_a_list_among_results(function):
    with function("tensor<8x2xf32>") as (x,):
        hist, edge = ir.Type.parse("tensor<4x4xf32>"), ir.Type.parse("tensor<5xf32>")
        op = build_aten("aten.histogramdd", x, [4, 4], results=[hist, [edge, edge]])
        assert attrs(op)["resultSegmentSizes"] == "array<i32: 1, 2>"
        assert types(op) == ["tensor<4x4xf32>", "tensor<5xf32>", "tensor<5xf32>"]
        assert verify_op(op) == []


@pytest.mark.parametrize(
    "op_name, args, kwargs, message",
    [
        ("aten.no_such_op", (), {}, "not an op of the aten dialect"),
        ("aten.size", (), {}, "cannot be expressed"),
        ("aten.add.Tensor", (), {}, "missing argument 'self'"),
        ("aten.add.Tensor", ("X",), {"bogus": 1}, r"unknown arguments \['bogus'\]"),
        ("aten.relu", ("X", "X"), {}, "too many positional"),
        ("aten.softmax.int", ("X", 0), {"dim": 1}, "'dim' given twice"),
        ("aten.add.Tensor", ("X", None), {}, "'other' may not be None"),
        ("aten._to_copy", ("X",), {"dtype": "I"}, "cannot be a runtime value"),
    ],
    ids=[
        "unknown_op",
        "inexpressible",
        "missing",
        "unknown_kwarg",
        "too_many",
        "twice",
        "none",
        "runtime_dtype",
    ],
)
def test_build_errors(function, op_name, args, kwargs, message):
    with function("tensor<4xf32>", "index") as (x, i):
        pick = {"X": x, "I": i}
        args = tuple(pick.get(a, a) if isinstance(a, str) else a for a in args)
        kwargs = {k: pick.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
        with pytest.raises(AtenBuildError, match=message):
            build_aten(op_name, *args, **kwargs)


def test_bad_attribute_values_are_encoding_errors(function):
    with function("tensor<4xf32>") as (x,):
        with pytest.raises(AttributeEncodingError, match="Generator"):
            build_aten("aten.bernoulli", x, generator=torch.Generator())
        with pytest.raises(AttributeEncodingError, match="does not fit in i64"):
            build_aten("aten.softmax.int", x, 2**63)
        with pytest.raises(AttributeEncodingError):
            build_aten("aten.gelu", x, approximate=3)
        # An absent generator is fine.
        assert verify_op(build_aten("aten.bernoulli", x, generator=None)) == []

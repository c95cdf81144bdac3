"""`op_arguments` reads back what `build_aten` wrote, for every `ArgKind` (as attribute, and as a
runtime operand where a kind may be symbolic); `encode_attr`/`decode_attr` round-trip values."""

from __future__ import annotations

import math

import pytest
import torch
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import (
    ArgKind,
    AttributeEncodingError,
    build_aten,
    decode_attr,
    encode_attr,
    get_op_def,
    make_context,
    op_arguments,
    verify_op,
)

ARGS = ("tensor<2x3xf32>", "tensor<2x3xf32>", "tensor<2xi64>", "tensor<1x1x2x2xf32>")


def _t(text):
    return ir.Type.parse(text)


# kind -> (op, lambda x, y, i, img: (args, kwargs, results or None), {argument: expected value});
# in expected values the strings "x", "y", "i", "img" stand for those block arguments.
CASES = {
    ArgKind.TENSOR: (
        "aten.add.Tensor",
        lambda x, y, i, img: ((x, y), {"alpha": 2}, None),
        {"self": "x", "other": "y", "alpha": 2},
    ),
    ArgKind.TENSOR_LIST: (
        "aten.cat",
        lambda x, y, i, img: (([x, y, x],), {"dim": -2}, None),
        {"tensors": ["x", "y", "x"], "dim": -2},
    ),
    ArgKind.OPT_TENSOR_LIST: (
        "aten.index.Tensor",
        lambda x, y, i, img: ((x, [None, i]), {}, None),
        {"self": "x", "indices": [None, "i"]},
    ),
    ArgKind.INT: (
        "aten.softmax.int",
        lambda x, y, i, img: ((x, -1), {}, None),
        {"self": "x", "dim": -1, "dtype": None},
    ),
    ArgKind.FLOAT: (
        "aten.native_dropout",
        lambda x, y, i, img: ((x, 0.25, None), {}, None),
        {"input": "x", "p": 0.25, "train": None},
    ),
    ArgKind.BOOL: (
        "aten.sum.dim_IntList",
        lambda x, y, i, img: ((x, [1], True), {}, None),
        {"self": "x", "dim": [1], "keepdim": True, "dtype": None},
    ),
    ArgKind.STR: (
        "aten.div.Tensor_mode",
        lambda x, y, i, img: ((x, y), {"rounding_mode": "floor"}, None),
        {"self": "x", "other": "y", "rounding_mode": "floor"},
    ),
    ArgKind.SCALAR: (
        "aten.clamp",
        lambda x, y, i, img: ((x, -1, 2.5), {}, None),
        {"self": "x", "min": -1, "max": 2.5},
    ),
    ArgKind.COMPLEX: (
        "aten.angle.complex",
        lambda x, y, i, img: ((1 - 2j,), {}, [_t("f64")]),
        {"a": 1 - 2j},
    ),
    ArgKind.INT_LIST: (
        "aten.permute",
        lambda x, y, i, img: ((x, [1, 0]), {}, None),
        {"self": "x", "dims": [1, 0]},
    ),
    ArgKind.FLOAT_LIST: (
        "aten.upsample_bilinear2d.vec",
        lambda x, y, i, img: ((img, None, False, [2.0, 1.5]), {}, None),
        {"input": "img", "output_size": None, "align_corners": False, "scale_factors": [2.0, 1.5]},
    ),
    ArgKind.BOOL_LIST: (
        "aten.all.bool",
        lambda x, y, i, img: (([True, False, True],), {}, [_t("i1")]),
        {"self": [True, False, True]},
    ),
    ArgKind.SCALAR_LIST: (
        "aten._foreach_add.ScalarList",
        lambda x, y, i, img: (([x, y], [1, 2.5]), {}, None),
        {"self": ["x", "y"], "scalars": [1, 2.5]},
    ),
    ArgKind.STR_LIST: (
        "aten.eq.str_list",
        lambda x, y, i, img: ((["a", "b"], ["a"]), {}, [_t("i1")]),
        {"a": ["a", "b"], "b": ["a"]},
    ),
    ArgKind.DTYPE: (
        "aten._to_copy",
        lambda x, y, i, img: ((x,), {"dtype": torch.bfloat16}, None),
        {"self": "x", "dtype": torch.bfloat16, "layout": None, "non_blocking": False},
    ),
    ArgKind.LAYOUT: (
        "aten.zeros_like",
        lambda x, y, i, img: ((x,), {"layout": torch.strided}, None),
        {"self": "x", "layout": torch.strided},
    ),
    ArgKind.DEVICE: (
        "aten.zeros_like",
        lambda x, y, i, img: ((x,), {"device": torch.device("cpu")}, None),
        {"self": "x", "device": torch.device("cpu")},
    ),
    ArgKind.MEMORY_FORMAT: (
        "aten.clone",
        lambda x, y, i, img: ((img,), {"memory_format": torch.channels_last}, None),
        {"self": "img", "memory_format": torch.channels_last},
    ),
    ArgKind.GENERATOR: (
        "aten.bernoulli",
        lambda x, y, i, img: ((x,), {"generator": None}, None),
        {"self": "x", "generator": None},
    ),
}


def test_every_kind_has_a_case():
    assert set(CASES) == set(ArgKind)
    for kind, (op_name, _, expected) in CASES.items():
        assert any(get_op_def(op_name).arg(a).kind is kind for a in expected), kind


@pytest.mark.parametrize("kind", list(CASES), ids=[k.name for k in CASES])
def test_op_arguments_round_trip(function, kind):
    op_name, make, expected = CASES[kind]
    with function(*ARGS) as (x, y, i, img):
        values = {"x": x, "y": y, "i": i, "img": img}
        args, kwargs, results = make(x, y, i, img)
        op = build_aten(op_name, *args, results=results, **kwargs)
        assert verify_op(op) == []
        got = op_arguments(op)
        assert set(got) == {a.name for a in get_op_def(op_name).args}
        for name, want in expected.items():
            want = _resolve(want, values)
            assert got[name] == want and type(got[name]) is type(want), (name, got[name], want)


def _resolve(want, values):
    if isinstance(want, str) and want in values:
        return values[want]
    if isinstance(want, list):
        return [_resolve(w, values) for w in want]
    return want


@pytest.mark.parametrize(
    "op_name, make, arg",
    [
        ("aten.select.int", lambda x, n, f, b: (x, 0, n), "index"),  # int
        ("aten.view", lambda x, n, f, b: (x, [n, 3]), "size"),  # int[]
        ("aten.native_dropout", lambda x, n, f, b: (x, f, b), "p"),  # float
        ("aten.native_dropout", lambda x, n, f, b: (x, f, b), "train"),  # bool
        ("aten.clamp", lambda x, n, f, b: (x, n), "min"),  # Scalar
        ("aten.mul.Tensor", lambda x, n, f, b: (x, n), "other"),  # a runtime wrapped number
    ],
    ids=["int", "int_list", "float", "bool", "scalar", "wrapped_number"],
)
def test_runtime_scalars_round_trip(function, op_name, make, arg):
    with function("tensor<2x3xf32>") as (x,):
        n = arith.ConstantOp(ir.IndexType.get(), 2).result
        f = arith.ConstantOp(ir.F64Type.get(), 0.5).result
        b = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
        args = make(x, n, f, b)
        op = build_aten(
            op_name, *args, results=[_t("tensor<2x3xf32>")] * len(get_op_def(op_name).results)
        )
        assert verify_op(op) == []
        want = {"index": n, "size": [n, None], "p": f, "train": b, "min": n, "other": n}[arg]
        got = op_arguments(op)[arg]
        if arg == "size":
            assert got[0] == n and str(got[1].owner.attributes["value"]) == "3 : index"
        else:
            assert got == want


VALUES = {
    ArgKind.INT: [0, -1, 2**63 - 1, -(2**63), True],
    ArgKind.FLOAT: [0.0, -0.0, 1e-300, 3, math.inf, -math.inf],
    ArgKind.BOOL: [True, False],
    ArgKind.STR: ["", "tanh", 'ünï cödé "quoted"'],
    ArgKind.SCALAR: [7, -2.5, True, 1 + 2j, 0j],
    ArgKind.COMPLEX: [1 - 2j],
    ArgKind.INT_LIST: [[], [1, -2, 3]],
    ArgKind.FLOAT_LIST: [[], [0.5, 2.0]],
    ArgKind.BOOL_LIST: [[], [True, False]],
    ArgKind.SCALAR_LIST: [[], [1, 2.5, False]],
    ArgKind.STR_LIST: [[], ["a", "b"]],
    ArgKind.DTYPE: [
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.float64,
        torch.bool,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.uint8,
        torch.complex64,
    ],
    ArgKind.LAYOUT: [torch.strided, torch.sparse_coo],
    ArgKind.MEMORY_FORMAT: [torch.contiguous_format, torch.channels_last, torch.preserve_format],
    ArgKind.DEVICE: [torch.device("cpu"), torch.device("cuda:1")],
}


def _normalise(kind, value):
    """What decoding gives back: ints as bools/ints as encoded, floats for float kinds."""
    if kind is ArgKind.INT:
        return int(value)
    if kind is ArgKind.FLOAT:
        return float(value)
    return value


@pytest.mark.parametrize(
    "kind, value",
    [(k, v) for k, vs in VALUES.items() for v in vs],
    ids=[f"{k.name}-{i}" for k, vs in VALUES.items() for i in range(len(vs))],
)
def test_attribute_encoding_round_trips(kind, value):
    with make_context():
        attr = encode_attr(kind, value)
        again = ir.Attribute.parse(str(attr))  # through text, too
        for a in (attr, again):
            got = decode_attr(kind, a)
            want = _normalise(kind, value)
            assert got == want and type(got) is type(want), (str(a), got, want)
            if isinstance(want, float) and want == 0.0:
                assert math.copysign(1, got) == math.copysign(1, want)


def test_scalar_type_numbers_encode_as_their_dtype():
    with make_context():
        assert str(encode_attr(ArgKind.DTYPE, 6)) == "f32"  # c10::ScalarType::Float
        assert str(encode_attr(ArgKind.DTYPE, 11)) == "i1"  # c10::ScalarType::Bool


@pytest.mark.parametrize(
    "kind, value",
    [
        (ArgKind.INT, 2**63),
        (ArgKind.INT, 1.5),
        (ArgKind.INT_LIST, [1, True]),
        (ArgKind.INT_LIST, 3),
        (ArgKind.BOOL_LIST, [1, 0]),
        (ArgKind.STR, 3),
        (ArgKind.DTYPE, "float32"),
        (ArgKind.LAYOUT, torch.channels_last),
        (ArgKind.MEMORY_FORMAT, torch.strided),
        (ArgKind.SCALAR, "1"),
        (ArgKind.GENERATOR, torch.Generator()),
    ],
)
def test_bad_values_do_not_encode(kind, value):
    with make_context(), pytest.raises(AttributeEncodingError):
        encode_attr(kind, value)

"""The aten verifier rejects every malformed op with a message naming the op, the problem and
where it is (`file:line:col` of parsed text); well-formed ops pass."""

from __future__ import annotations

import pytest

import aten_mlir
from aten_mlir import AtenVerificationError, Program
from aten_mlir.dialects import verify_aten_ops

ARGS = "%x: tensor<2x3xf32>, %i: tensor<2xi64>, %n: index"


def parse(body: str, args: str = ARGS) -> Program:
    """`body` as the ops of `@main(<args>)`, its first op on line 2 of "t.mlir"."""
    return Program.from_text(f"func.func @main({args}) {{\n{body}\n  return\n}}", "t.mlir")


def first_line(body: str, args: str = ARGS) -> str:
    program = parse(body, args)
    with pytest.raises(AtenVerificationError) as info:
        aten_mlir.verify_module(program.module)
    return str(info.value).splitlines()[0]


WELL_FORMED = {
    "relu": '%0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
    "wrapped_number": '%0 = "aten.add.Tensor"(%x) {alpha = 1 : i64, other = 2.5 : f64, '
    "operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
    "runtime_wrapped_number": '%0 = "aten.mul.Tensor"(%x, %n) : (tensor<2x3xf32>, index) -> '
    "tensor<2x3xf32>",
    "tensor_list": '%0 = "aten.cat"(%x, %x) {dim = 0 : i64, operandSegmentSizes = array<i32: 2, 0>}'
    " : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
    "index_tensor": '%0 = "aten.index.Tensor"(%x, %i) {indices = array<i1: false, true>, '
    "operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>",
    "symbolic_size": '%0 = "aten.view"(%x, %n) {operandSegmentSizes = array<i32: 1, 1>} : '
    "(tensor<2x3xf32>, index) -> tensor<?xf32>",
    "split": '%0:2 = "aten.split.Tensor"(%x) {split_size = 1 : i64, dim = 0 : i64} : '
    "(tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)",
    "discardable_attribute": '%0 = "aten.relu"(%x) {aten.note = "kept"} : (tensor<2x3xf32>) -> '
    "tensor<2x3xf32>",
    "enums": '%0 = "aten.zeros_like"(%x) {dtype = i1, layout = "strided", device = "cpu", '
    'memory_format = "preserve_format", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : '
    "(tensor<2x3xf32>) -> tensor<2x3xi1>",
    "int_result": '%0 = "aten.sym_size.int"(%x) {dim = 0 : i64} : (tensor<2x3xf32>) -> index',
}


@pytest.mark.parametrize("name", sorted(WELL_FORMED))
def test_well_formed_ops_pass(name):
    program = parse(WELL_FORMED[name])
    aten_mlir.verify_module(program.module)
    assert verify_aten_ops(program.module.operation) == []


# name: (op text, the op's name, fragments the first line must contain)
MALFORMED = {
    "unknown_op": (
        '%0 = "aten.no_such_op"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.no_such_op",
        ["not an op of the aten dialect"],
    ),
    "inexpressible_op": (
        '%0 = "aten.Complex.Scalar"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.Complex.Scalar",
        ["cannot be expressed", "complex"],
    ),
    "missing_required_attribute": (
        '%0 = "aten.gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.gelu",
        ["requires attribute 'approximate'"],
    ),
    "wrong_attribute_kind": (
        '%0 = "aten.gelu"(%x) {approximate = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.gelu",
        ["attribute 'approximate'", "str"],
    ),
    "bool_for_int": (
        '%0 = "aten.softmax.int"(%x) {dim = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.softmax.int",
        ["attribute 'dim'", "int"],
    ),
    "i32_array_for_int_list": (
        '%0 = "aten.permute"(%x) {dims = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>',
        "aten.permute",
        ["attribute 'dims'", "int[]"],
    ),
    "unknown_dtype": (
        '%0 = "aten.zeros_like"(%x) {dtype = i3, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, '
        "0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
        "aten.zeros_like",
        ["attribute 'dtype'", "i3"],
    ),
    "unknown_memory_format": (
        '%0 = "aten.clone"(%x) {memory_format = "sideways"} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.clone",
        ["attribute 'memory_format'", "sideways"],
    ),
    "unknown_device": (
        '%0 = "aten.zeros_like"(%x) {device = "toaster", operandSegmentSizes = array<i32: 1, 0, 0, '
        "0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
        "aten.zeros_like",
        ["attribute 'device'", "toaster"],
    ),
    "unknown_attribute": (
        '%0 = "aten.relu"(%x) {inplace = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.relu",
        ["unknown attributes ['inplace']"],
    ),
    "missing_segments": (
        '%0 = "aten.cat"(%x, %x) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> '
        "tensor<4x3xf32>",
        "aten.cat",
        ["operandSegmentSizes"],
    ),
    "segments_wrong_length": (
        '%0 = "aten.cat"(%x, %x) {dim = 0 : i64, operandSegmentSizes = array<i32: 2>} : '
        "(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
        "aten.cat",
        ["operandSegmentSizes", "1 entries", "2 arguments"],
    ),
    "segments_wrong_sum": (
        '%0 = "aten.cat"(%x, %x) {dim = 0 : i64, operandSegmentSizes = array<i32: 1, 0>} : '
        "(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
        "aten.cat",
        ["operandSegmentSizes", "sums to 1", "2 operands"],
    ),
    "segments_negative": (
        '%0 = "aten.cat"(%x, %x) {dim = 0 : i64, operandSegmentSizes = array<i32: 3, -1>} : '
        "(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
        "aten.cat",
        ["operandSegmentSizes", "negative"],
    ),
    "two_tensors_for_an_optional": (
        '%0:3 = "aten.native_layer_norm"(%x, %x, %x) {normalized_shape = array<i64: 3>, eps = '
        "1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 2, 0, 0>} : (tensor<2x3xf32>, "
        "tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)",
        "aten.native_layer_norm",
        ["'weight'", "got 2"],
    ),
    "too_many_operands": (
        '%0 = "aten.relu"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
        "aten.relu",
        ["expects 1 operands", "got 2"],
    ),
    "too_many_results": (
        '%0:2 = "aten.relu"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)',
        "aten.relu",
        ["results", "got 2"],
    ),
    "too_few_results": (
        '%0:2 = "aten.native_layer_norm"(%x) {normalized_shape = array<i64: 3>, eps = 1.0e-5 : '
        "f64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> "
        "(tensor<2x3xf32>, tensor<2x1xf32>)",
        "aten.native_layer_norm",
        ["results", "got 2"],
    ),
    "scalar_result_for_tensor": (
        '%0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> f32',
        "aten.relu",
        ["result #0", "f32"],
    ),
    "unranked_result": (
        '%0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>',
        "aten.relu",
        ["result #0", "ranked"],
    ),
    "tensor_result_for_int": (
        '%0 = "aten.sym_size.int"(%x) {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<i64>',
        "aten.sym_size.int",
        ["result #0", "int"],
    ),
    "list_element_not_a_tensor": (
        '%0:2 = "aten.split.Tensor"(%x) {split_size = 1 : i64, dim = 0 : i64} : '
        "(tensor<2x3xf32>) -> (tensor<1x3xf32>, f32)",
        "aten.split.Tensor",
        ["result #1", "f32"],
    ),
    "mask_mismatch": (
        '%0 = "aten.index.Tensor"(%x, %i) {indices = array<i1: true, true>, operandSegmentSizes = '
        "array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>",
        "aten.index.Tensor",
        ["'indices'", "presence mask", "1 operands"],
    ),
    "mask_missing": (
        '%0 = "aten.index.Tensor"(%x, %i) {operandSegmentSizes = array<i32: 1, 1>} : '
        "(tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>",
        "aten.index.Tensor",
        ["'indices'", "presence mask"],
    ),
    "mask_wrong_kind": (
        '%0 = "aten.index.Tensor"(%x, %i) {indices = array<i64: 1>, operandSegmentSizes = '
        "array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>",
        "aten.index.Tensor",
        ["attribute 'indices'"],
    ),
    "unsupported_operand_element_type": (
        '%0 = "aten.relu"(%y) : (tensor<2xi3>) -> tensor<2xf32>',
        "aten.relu",
        ["'self'", "i3"],
    ),
    "unsupported_result_element_type": (
        '%0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xindex>',
        "aten.relu",
        ["result #0", "index"],
    ),
    "tensor_operand_for_int_list": (
        '%0 = "aten.view"(%x, %x) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, '
        "tensor<2x3xf32>) -> tensor<6xf32>",
        "aten.view",
        ["'size'", "tensor<2x3xf32>"],
    ),
    "operand_for_a_dtype": (
        '%0 = "aten.zeros_like"(%x, %n) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : '
        "(tensor<2x3xf32>, index) -> tensor<2x3xf32>",
        "aten.zeros_like",
        ["'dtype'", "cannot be an operand"],
    ),
    "int_both_operand_and_attribute": (
        '%0 = "aten.select.int"(%x, %n) {dim = 0 : i64, index = 1 : i64, operandSegmentSizes = '
        "array<i32: 1, 0, 1>} : (tensor<2x3xf32>, index) -> tensor<3xf32>",
        "aten.select.int",
        ["'index'", "both"],
    ),
    "tensor_both_operand_and_attribute": (
        '%0 = "aten.add.Tensor"(%x, %x) {alpha = 1 : i64, other = 2 : i64} : (tensor<2x3xf32>, '
        "tensor<2x3xf32>) -> tensor<2x3xf32>",
        "aten.add.Tensor",
        ["'other'"],
    ),
    # result types the operands contradict (the overload run on meta tensors says otherwise)
    "transposed_result_shape": (
        '%0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>',
        "aten.relu",
        ["result #0 has type tensor<3x2xf32>", "operands give tensor<2x3xf32>"],
    ),
    "wrong_result_element_type": (
        '%0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xi32>',
        "aten.relu",
        ["result #0 has type tensor<2x3xi32>", "operands give tensor<2x3xf32>"],
    ),
    "unbroadcastable_operands": (
        '%0 = "aten.add.Tensor"(%x, %z) {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<4x5xf32>) '
        "-> tensor<2x3xf32>",
        "aten.add.Tensor",
        ["operands do not fit", "broadcast"],
    ),
    "wrong_result_rank": (
        '%0 = "aten.sum.dim_IntList"(%x) {dim = array<i64: 1>, keepdim = false, '
        "operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x1xf32>",
        "aten.sum.dim_IntList",
        ["result #0 has type tensor<2x1xf32>", "operands give tensor<2xf32>"],
    ),
    "wrong_promoted_type": (
        '%0 = "aten.add.Tensor"(%x) {alpha = 1 : i64, other = 2 : i64, operandSegmentSizes = '
        "array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf64>",
        "aten.add.Tensor",
        ["result #0 has type tensor<2x3xf64>", "operands give tensor<2x3xf32>"],
    ),
    # the other namespaces of the dialect are checked the same way
    "prims_without_attributes": (
        '%0 = "prims.collapse_view"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>',
        "prims.collapse_view",
        ["requires attribute 'start'"],
    ),
    "quantize_wrong_result": (
        '%0 = "quantized_decomposed.quantize_per_tensor"(%x) {scale = 0.5 : f64, zero_point = 0 '
        ": i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = i8} : (tensor<2x3xf32>) "
        "-> tensor<3x2xi8>",
        "quantized_decomposed.quantize_per_tensor",
        ["result #0 has type tensor<3x2xi8>", "operands give tensor<2x3xi8>"],
    ),
    "missing_result_segments": (
        '%0:3 = "aten.histogramdd"(%x) {bins = array<i64: 2, 2>, density = false, '
        "operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> "
        "(tensor<2x2xf32>, tensor<3xf32>, tensor<3xf32>)",
        "aten.histogramdd",
        ["resultSegmentSizes"],
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_ops_are_rejected_with_a_precise_message(name):
    body, op_name, fragments = MALFORMED[name]
    args = ARGS + (", %y: tensor<2xi3>" if "%y" in body else "")
    args += ", %z: tensor<4x5xf32>" if "%z" in body else ""
    line = first_line(body, args)
    assert line.startswith("aten verifier: t.mlir:2:"), line
    assert f"'{op_name}' op" in line, line
    for fragment in fragments:
        assert fragment in line, (fragment, line)


def test_all_problems_are_reported():
    body = "\n".join(
        [
            '%0 = "aten.gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
            '%1 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
            '%2 = "aten.bogus"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        ]
    )
    program = parse(body)
    with pytest.raises(AtenVerificationError) as info:
        aten_mlir.verify_module(program.module)
    error = info.value
    assert [d.op.name for d in error.diagnostics] == ["aten.gelu", "aten.bogus"]
    lines = str(error).splitlines()
    assert lines[0].endswith("(and 1 more)") and "t.mlir:2:" in lines[0]
    assert "t.mlir:4:" in lines[1] and "aten.bogus" in lines[1]


def test_failed_fake_inference_stays_quiet():
    """`?` dims stand in as equal sizes, which a backward op's shape checks can refuse (the
    gradient of a 2x2 pool must be half the input's size): the verifier then has no claim,
    and torch's fake-tensor logger must not print that refusal's traceback to the user."""
    import logging

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("torch._subclasses.fake_tensor")
    handler = Keep(level=logging.DEBUG)
    logger.addHandler(handler)
    try:
        program = parse(
            '%0 = "aten.avg_pool2d_backward"(%g, %x) {kernel_size = array<i64: 2, 2>, '
            "stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, "
            "count_include_pad = true, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : "
            "(tensor<1x2x?x?xf32>, tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>",
            "%g: tensor<1x2x?x?xf32>, %x: tensor<1x2x?x?xf32>",
        )
        aten_mlir.verify_module(program.module)
    finally:
        logger.removeHandler(handler)
    assert [r.getMessage() for r in records if r.levelno >= logging.WARNING] == []

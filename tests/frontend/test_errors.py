"""Expected user errors: ops the dialect cannot express (`UnsupportedOpError`, one first line naming
the op and the user's source line), malformed IR text (`IRParseError` with `file:line:col`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir import IRParseError, Program, UnsupportedOpError

THIS_FILE = Path(__file__).name


def line_of(marker: str) -> int:
    """The line of this file that ends with the comment `# <marker>`."""
    lines = Path(__file__).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.rstrip().endswith("# " + marker))


@torch.library.custom_op("aten_mlir_test::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@twice.register_fake
def _(x):
    return torch.empty_like(x)


# (A custom op in a model used to be refused here; it now imports as an `aten.opaque_call` and
# runs as one eager step: tests/frontend/test_custom_ops.py, tests/backends/
# test_custom_op_fallback.py. `twice` stays: test_program_cache registers no op of its own.)


class SymbolicFloat(torch.nn.Module):
    def forward(self, x):
        return x * (x.shape[0] / 2)  # SYM_FLOAT_LINE


def test_symbolic_float_arithmetic_is_no_longer_an_error():
    # it was refused here (`truediv` on a SymInt); frontend/symbolic.py now imports it as f64
    ep = torch.export.export(
        SymbolicFloat(), (torch.randn(4),), dynamic_shapes={"x": {0: Dim("n")}}
    )
    x = torch.randn(9)
    torch.testing.assert_close(aten_mlir.compile(ep, cache=False)(x), SymbolicFloat()(x))


class Identity(torch.nn.Module):
    def forward(self, x):
        return x.clone()


class CastToExotic(torch.nn.Module):
    def forward(self, x):
        return x.to(torch.float8_e8m0fnu)  # EXOTIC_CAST_LINE


def test_input_without_element_type_is_unsupported():
    x = torch.ones(3).to(torch.float8_e8m0fnu)
    ep = torch.export.export(Identity(), (x,))
    with pytest.raises(UnsupportedOpError) as info:
        aten_mlir.import_program(ep)
    first = str(info.value).splitlines()[0]
    assert "float8_e8m0fnu" in first and "x" in first


def test_result_without_element_type_is_unsupported_with_line():
    ep = torch.export.export(CastToExotic(), (torch.ones(3),))
    with pytest.raises(UnsupportedOpError) as info:
        aten_mlir.import_program(ep)
    first = str(info.value).splitlines()[0]
    assert "float8_e8m0fnu" in first
    assert f"{THIS_FILE}:{line_of('EXOTIC_CAST_LINE')}" in first


GOOD = """\
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""

MALFORMED = {
    # name: (text, line of the error, the token MLIR points at, a word of its diagnostic)
    "undeclared_value": (GOOD.replace('"(%x)', '"(%y)'), 2, "%y", "undeclared"),
    "operand_type_mismatch": (
        GOOD.replace("(%x) : (tensor<2xf32>)", "(%x) : (tensor<3xf32>)"),
        2,
        "%x",
        "type",
    ),
    "unknown_element_type": (
        GOOD.replace("-> tensor<2xf32>\n  return", "-> tensor<2xfoo>\n  return"),
        2,
        "foo",
        "type",
    ),
    "missing_brace": (GOOD.replace("tensor<2xf32> {", "tensor<2xf32>"), 3, "return", "unknown"),
    "misplaced_terminator": (
        GOOD.replace(
            "return %0 : tensor<2xf32>",
            "return %0 : tensor<2xf32>\n  %1 = arith.constant 0 : index",
        ),
        3,
        "return",
        "last operation",
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_ir_is_a_parse_error_with_position(name):
    text, line, token, word = MALFORMED[name]
    column = text.splitlines()[line - 1].index(token) + 1
    with pytest.raises(IRParseError) as info:
        Program.from_text(text, source_name="bad.mlir")
    first = str(info.value).splitlines()[0]
    m = re.search(r"bad\.mlir:(\d+):(\d+): (.*)", first)
    assert m, first
    assert (int(m[1]), int(m[2])) == (line, column), first
    assert word in m[3], first


def test_parse_error_default_source_name():
    with pytest.raises(IRParseError, match=r"<string>:1:\d+"):
        Program.from_text("func.func @main( {")


def test_parse_error_is_a_value_error():
    assert issubclass(IRParseError, ValueError)


def test_well_formed_text_parses_without_a_module_wrapper():
    program = Program.from_text(GOOD)
    aten_mlir.verify_module(program.module)
    assert program.main.name == "func.func"
    assert '"aten.relu"' in str(program)
    (out,) = [aten_mlir.run_reference(program, torch.tensor([-1.0, 2.0]))]
    assert out.tolist() == [0.0, 2.0]


def test_text_without_main_is_rejected():
    with pytest.raises(ValueError, match="main"):
        Program.from_text(GOOD.replace("@main", "@other"))


def test_invalid_aten_op_in_text_is_a_verification_error_with_position():
    program = Program.from_text(GOOD.replace('"aten.relu"', '"aten.gelu"'), source_name="v.mlir")
    with pytest.raises(aten_mlir.AtenVerificationError) as info:
        aten_mlir.verify_module(program.module)
    first = str(info.value).splitlines()[0]
    assert "v.mlir:2:8" in first and "'aten.gelu'" in first and "approximate" in first


def test_several_top_level_ops_are_wrapped_in_a_module():
    helper = GOOD.replace("@main", "@helper")
    program = Program.from_text(helper + GOOD, source_name="two.mlir")
    aten_mlir.verify_module(program.module)
    assert [op.attributes["sym_name"].value for op in program.module.body.operations] == [
        "helper",
        "main",
    ]
    # Line numbers still refer to the text as given.
    relu = program.main.regions[0].blocks[0].operations[0]
    assert aten_mlir.dialects.describe_location(relu.location) == "two.mlir:6:8"


class Branches(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,))  # COND_LINE


def test_control_flow_is_unsupported_at_the_users_line():
    """The error points at the user's `torch.cond` line, not at FX-generated code
    (`<eval_with_key>.N`) that the traced call went through."""
    ep = torch.export.export(Branches(), (torch.randn(3),))
    with pytest.raises(UnsupportedOpError) as info:
        aten_mlir.import_program(ep)
    first = str(info.value).splitlines()[0]
    assert f"{THIS_FILE}:{line_of('COND_LINE')}" in first, first
    assert "eval_with_key" not in first, first


class ToSparse(torch.nn.Module):
    def forward(self, x):
        return x.to_sparse()  # SPARSE_LINE


def test_sparse_results_are_unsupported_not_typed_dense():
    """Only strided tensors map to builtin tensor types: a sparse intermediate must be refused
    (as sparse inputs are), not given a dense `tensor<...>` type."""
    ep = torch.export.export(ToSparse(), (torch.randn(3),))
    with pytest.raises(UnsupportedOpError) as info:
        aten_mlir.import_program(ep)
    first = str(info.value).splitlines()[0]
    assert "sparse" in first and f"{THIS_FILE}:{line_of('SPARSE_LINE')}" in first, first


def test_sparse_inputs_are_unsupported():
    ep = torch.export.export(Identity(), (torch.randn(3).to_sparse(),))
    with pytest.raises(UnsupportedOpError, match="sparse"):
        aten_mlir.import_program(ep)


class Times(torch.nn.Module):
    def forward(self, x, n: int):
        return x * n


def test_a_dynamic_int_argument_is_unsupported_not_baked():
    """An int marked dynamic has no single value to compile in (it was baked as a SymInt)."""
    ep = torch.export.export(
        Times(), (torch.randn(3), 3), dynamic_shapes={"x": None, "n": Dim.DYNAMIC}
    )
    with pytest.raises(UnsupportedOpError) as info:
        aten_mlir.import_program(ep)
    first = str(info.value).splitlines()[0]
    assert "input 'n' is a dynamic non-tensor argument" in first, first

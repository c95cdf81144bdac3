"""Core overloads no OpInfo sample reaches after decomposition: scalar bitwise ops, eval-mode
batch norm and the symbolic-size queries."""

import pytest
import torch

import aten_mlir
from tests.support.lowering import assert_lowers
from tests.support.programs import single_op_program


@pytest.mark.parametrize(
    "op", ["aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar"]
)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.bool])
def test_bitwise_scalar(op, dtype):
    x = torch.randint(-100, 100, (3, 5)).to(dtype)
    assert_lowers(op, [x], other=True if dtype == torch.bool else 0x5A)


@pytest.mark.parametrize("dynamic", [False, True])
def test_native_batch_norm_legit_no_training(dynamic):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, 5, generator=g)
    w, b = torch.randn(3, generator=g), torch.randn(3, generator=g)
    mean, var = torch.randn(3, generator=g), torch.rand(3, generator=g) + 0.5
    program = single_op_program(
        "aten._native_batch_norm_legit_no_training",
        [x, w, b, mean, var],
        dynamic=[(0, 2, 3) if dynamic else (), (), (), (), ()],
        momentum=0.1,
        eps=1e-5,
    )
    compiled = aten_mlir.compile(program)
    assert not compiled.fallbacks
    # Only the output: the saved statistics are (C,) by the meta kernel the IR is typed from,
    # (0,) in CPU eager.
    out = compiled(x, w, b, mean, var)[0]
    expected = aten_mlir.run_reference(program, x, w, b, mean, var)[0]
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)


_SYM = """
func.func @main(%x: tensor<{shape}xf32>) -> {result} {{
  %0 = "{op}"(%x) {attrs} : (tensor<{shape}xf32>) -> {result}
  return %0 : {result}
}}
"""


@pytest.mark.parametrize("shape", ["4x6", "?x6"])
@pytest.mark.parametrize(
    "op, attrs, result, expected",
    [
        ("aten.sym_size.int", "{dim = 1 : i64}", "index", 6),
        ("aten.sym_numel", "", "index", 24),
        ("aten.sym_stride.int", "{dim = 0 : i64}", "index", 6),
        ("aten.sym_is_contiguous", '{memory_format = "contiguous_format"}', "i1", True),
    ],
)
def test_symbolic_size_queries(shape, op, attrs, result, expected):
    text = _SYM.format(shape=shape, op=op, attrs=attrs, result=result)
    compiled = aten_mlir.compile(aten_mlir.Program.from_text(text))
    assert not compiled.fallbacks
    assert compiled(torch.randn(4, 6)) == expected

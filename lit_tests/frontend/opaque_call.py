# RUN: %PYTHON %s | FileCheck %s
"""An op of another namespace (a user's `torch.library` op) is one `aten.opaque_call` naming
its overload in `aten.overload`; its arguments are laid out by the overload's schema as an aten
op's are (tensors as operands, an optional tensor left out by `operandSegmentSizes`, the rest
as attributes named after the schema arguments); several results are one op's results."""

import torch

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


@torch.library.custom_op("lit_opaque::blend", mutates_args=())
def blend(
    x: torch.Tensor, y: torch.Tensor | None, dims: list[int], alpha: float, mode: str
) -> tuple[torch.Tensor, torch.Tensor]:
    return x * alpha, x.sum(dims)


@blend.register_fake
def _(x, y, dims, alpha, mode):
    return torch.empty_like(x), x.sum(dims)


class Blends(torch.nn.Module):
    def forward(self, x):
        scaled, summed = blend(x.relu(), None, [1], 0.5, "lin")
        return scaled.exp(), summed


# CHECK-LABEL: TEST: test_custom_op_with_two_results
@run
def test_custom_op_with_two_results():
    program = aten_mlir.import_program(torch.export.export(Blends(), (torch.randn(2, 3),)))
    aten_mlir.verify_module(program.module)
    # CHECK: [[RELU:%.+]] = "aten.relu"(%arg0)
    # CHECK-NEXT: [[CALL:%.+]]:2 = "aten.opaque_call"([[RELU]]) {alpha = 5.000000e-01 : f64,
    # CHECK-SAME: aten.overload = "lit_opaque::blend.default", dims = array<i64: 1>, mode = "lin",
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>}
    # CHECK-SAME: : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
    # CHECK-NEXT: [[EXP:%.+]] = "aten.exp"([[CALL]]#0)
    # CHECK-NEXT: return [[EXP]], [[CALL]]#1
    print(program)

# RUN: %PYTHON %s | FileCheck %s
"""A `Tensor[]` argument is a variadic operand group: `operandSegmentSizes` has one entry per
schema argument, the list's length for the list and 0 for each attribute."""

import torch

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def import_module(module, *args):
    program = aten_mlir.import_program(torch.export.export(module, args))
    aten_mlir.verify_module(program.module)
    return program


class Lists(torch.nn.Module):
    def forward(self, x, y):
        return torch.cat([x, y, x], dim=1), torch.stack([x, x]), torch.cat([y])


# CHECK-LABEL: TEST: test_cat_and_stack
@run
def test_cat_and_stack():
    x, y = torch.randn(2, 3), torch.randn(2, 4)
    program = import_module(Lists(), x, y)
    # The same value may appear several times in one group.
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<2x3xf32> {aten.user_input = "x"},
    # CHECK-SAME: [[Y:%arg[0-9]+]]: tensor<2x4xf32> {aten.user_input = "y"})
    # CHECK-NEXT: "aten.cat"([[X]], [[Y]], [[X]]) {dim = 1 : i64,
    # CHECK-SAME: operandSegmentSizes = array<i32: 3, 0>} : (tensor<2x3xf32>, tensor<2x4xf32>,
    # CHECK-SAME: tensor<2x3xf32>) -> tensor<2x10xf32>
    # CHECK-NEXT: "aten.stack"([[X]], [[X]]) {dim = 0 : i64, operandSegmentSizes = array<i32: 2, 0>}
    # CHECK-SAME: : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
    # A one-element list is still a group.
    # CHECK-NEXT: "aten.cat"([[Y]]) {dim = 0 : i64, operandSegmentSizes = array<i32: 1, 0>}
    # CHECK-SAME: : (tensor<2x4xf32>) -> tensor<2x4xf32>
    print(program)
    got, want = aten_mlir.run_reference(program, x, y), Lists()(x, y)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")


class Broadcast(torch.nn.Module):
    def forward(self, x, y, z):
        return torch.broadcast_tensors(x, y, z)


# CHECK-LABEL: TEST: test_list_in_list_out
@run
def test_list_in_list_out():
    x, y, z = torch.randn(3, 1), torch.randn(1, 4), torch.randn(4)
    program = import_module(Broadcast(), x, y, z)
    # `broadcast_tensors(Tensor[] tensors) -> Tensor[]`: a group in, one result per element out.
    # CHECK: [[R:%.+]]:3 = "aten.broadcast_tensors"(%arg0, %arg1, %arg2)
    # CHECK-SAME: {operandSegmentSizes = array<i32: 3>} : (tensor<3x1xf32>, tensor<1x4xf32>,
    # CHECK-SAME: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
    # CHECK-NEXT: return [[R]]#0, [[R]]#1, [[R]]#2 :
    print(program)
    got, want = aten_mlir.run_reference(program, x, y, z), Broadcast()(x, y, z)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")

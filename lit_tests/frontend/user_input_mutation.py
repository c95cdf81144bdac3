# RUN: %PYTHON %s | FileCheck %s
"""In-place mutation of a user input is functionalized like a buffer's: the new value is a result
tagged `aten.mutated_input = "<input name>"`, and `run_reference` copies it into the caller's
tensor, as eager mutates it."""

import torch

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


class Accumulate(torch.nn.Module):
    def forward(self, acc, x):
        acc.add_(x)
        acc.mul_(2)
        return x.sum()


# CHECK-LABEL: TEST: test_mutated_user_input
@run
def test_mutated_user_input():
    acc, x = torch.ones(3), torch.tensor([1.0, 2.0, 3.0])
    program = aten_mlir.import_program(torch.export.export(Accumulate(), (acc.clone(), x)))
    aten_mlir.verify_module(program.module)
    # CHECK: func.func @main([[ACC:%arg[0-9]+]]: tensor<3xf32> {aten.user_input = "acc"},
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<3xf32> {aten.user_input = "x"})
    # CHECK-SAME: -> (tensor<f32> {aten.user_output = "sum_1"}, tensor<3xf32>
    # CHECK-SAME: {aten.mutated_input = "acc"})
    # CHECK-NEXT: [[ADD:%.+]] = "aten.add.Tensor"([[ACC]], [[X]])
    # CHECK-NEXT: [[MUL:%.+]] = "aten.mul.Tensor"([[ADD]])
    # CHECK-NEXT: [[SUM:%.+]] = "aten.sum"([[X]])
    # CHECK-NEXT: return [[SUM]], [[MUL]] :
    print(program)
    out = aten_mlir.run_reference(program, acc, x)
    # CHECK: out = 6.0 acc = [4.0, 6.0, 8.0] x = [1.0, 2.0, 3.0]
    print("out =", out.item(), "acc =", acc.tolist(), "x =", x.tolist())
    # CHECK-NEXT: out = 6.0 acc = [10.0, 16.0, 22.0]
    out = aten_mlir.run_reference(program, acc, x)
    print("out =", out.item(), "acc =", acc.tolist())

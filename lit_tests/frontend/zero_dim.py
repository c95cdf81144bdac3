# RUN: %PYTHON %s | FileCheck %s
"""0-d tensors are rank-0 ranked tensors (`tensor<f32>`), as inputs, results, constants and
buffers; they broadcast against ranked operands like any tensor."""

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


class Scalars(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tensor(0.5))

    def forward(self, x, s):
        total = (x * s).sum()
        return total + self.bias, torch.where(s > 0, s, -s), torch.tensor(3) * s


# CHECK-LABEL: TEST: test_zero_dim
@run
def test_zero_dim():
    x, s = torch.randn(4), torch.tensor(-2.0)
    program = import_module(Scalars(), x, s)
    # CHECK: func.func @main([[BIAS:%arg[0-9]+]]: tensor<f32> {aten.buffer = "bias"},
    # CHECK-SAME: [[C:%arg[0-9]+]]: tensor<i64> {aten.constant = "lifted_tensor_0"},
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<4xf32> {aten.user_input = "x"},
    # CHECK-SAME: [[S:%arg[0-9]+]]: tensor<f32> {aten.user_input = "s"})
    # CHECK-SAME: -> (tensor<f32> {aten.user_output = "add"}, tensor<f32>
    # CHECK-SAME: {aten.user_output = "where"}, tensor<f32> {aten.user_output = "mul_1"})
    # CHECK-NEXT: [[MUL:%.+]] = "aten.mul.Tensor"([[X]], [[S]]) : (tensor<4xf32>, tensor<f32>)
    # CHECK-SAME: -> tensor<4xf32>
    # CHECK-NEXT: [[SUM:%.+]] = "aten.sum"([[MUL]]) : (tensor<4xf32>) -> tensor<f32>
    # CHECK-NEXT: "aten.add.Tensor"([[SUM]], [[BIAS]]) {alpha = 1 : i64} : (tensor<f32>,
    # CHECK-SAME: tensor<f32>) -> tensor<f32>
    # CHECK-NEXT: [[GT:%.+]] = "aten.gt.Scalar"([[S]]) {other = 0 : i64} : (tensor<f32>)
    # CHECK-SAME: -> tensor<i1>
    # CHECK-NEXT: [[NEG:%.+]] = "aten.neg"([[S]]) : (tensor<f32>) -> tensor<f32>
    # CHECK-NEXT: "aten.where.self"([[GT]], [[S]], [[NEG]]) : (tensor<i1>, tensor<f32>, tensor<f32>)
    # CHECK-SAME: -> tensor<f32>
    # CHECK-NEXT: [[THREE:%.+]] = "aten.lift_fresh_copy"([[C]]) : (tensor<i64>) -> tensor<i64>
    # CHECK-NEXT: "aten.mul.Tensor"([[THREE]], [[S]]) : (tensor<i64>, tensor<f32>) -> tensor<f32>
    print(program)
    got, want = aten_mlir.run_reference(program, x, s), Scalars()(x, s)
    # CHECK: ranks: 0 0 0
    print("ranks:", *(t.dim() for t in got))
    # CHECK-NEXT: ok
    print("ok" if all(torch.allclose(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")


class Item(torch.nn.Module):
    def forward(self, x):
        return x.max().item()


# CHECK-LABEL: TEST: test_item_is_a_scalar_result
@run
def test_item_is_a_scalar_result():
    x = torch.tensor([1.0, 4.0, 2.0])
    program = import_module(Item(), x)
    # CHECK: -> (f64 {aten.user_output = "item"})
    # CHECK: [[MAX:%.+]] = "aten.max"(%arg0) : (tensor<3xf32>) -> tensor<f32>
    # CHECK-NEXT: "aten.item"([[MAX]]) : (tensor<f32>) -> f64
    print(program)
    # CHECK: 4.0
    print(aten_mlir.run_reference(program, x))

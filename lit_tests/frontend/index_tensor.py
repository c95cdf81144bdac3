# RUN: %PYTHON %s | FileCheck %s
"""`Tensor?[]` (advanced indexing): the present tensors are operands, and an attribute named after
the argument is the presence mask, one `i1` per list position (`x[:, i]` is `[None, i]`)."""

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


class Gather(torch.nn.Module):
    def forward(self, x, i, j):
        return x[i], x[:, i], x[i, :, j]


# CHECK-LABEL: TEST: test_index_tensor
@run
def test_index_tensor():
    x, i, j = torch.randn(4, 5, 6), torch.tensor([0, 3]), torch.tensor([5, 1])
    program = import_module(Gather(), x, i, j)
    # index.Tensor(Tensor self, Tensor?[] indices)
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<4x5x6xf32> {aten.user_input = "x"},
    # CHECK-SAME: [[I:%arg[0-9]+]]: tensor<2xi64> {aten.user_input = "i"},
    # CHECK-SAME: [[J:%arg[0-9]+]]: tensor<2xi64> {aten.user_input = "j"})
    # CHECK-NEXT: "aten.index.Tensor"([[X]], [[I]]) {indices = array<i1: true>,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x5x6xf32>, tensor<2xi64>)
    # CHECK-SAME: -> tensor<2x5x6xf32>
    # CHECK-NEXT: "aten.index.Tensor"([[X]], [[I]]) {indices = array<i1: false, true>,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x5x6xf32>, tensor<2xi64>)
    # CHECK-SAME: -> tensor<4x2x6xf32>
    # CHECK-NEXT: "aten.index.Tensor"([[X]], [[I]], [[J]]) {indices = array<i1: true, false, true>,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 2>} : (tensor<4x5x6xf32>, tensor<2xi64>,
    # CHECK-SAME: tensor<2xi64>) -> tensor<2x5xf32>
    print(program)
    got, want = aten_mlir.run_reference(program, x, i, j), Gather()(x, i, j)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")


class Scatter(torch.nn.Module):
    def forward(self, x, mask, i, v):
        y = x.clone()
        y[:, i] = v
        return y, x[mask]


# CHECK-LABEL: TEST: test_index_put_and_boolean_mask
@run
def test_index_put_and_boolean_mask():
    x, i, v = torch.randn(3, 4), torch.tensor([0, 2]), torch.randn(3, 2)
    mask = torch.tensor([True, False, True])
    program = import_module(Scatter(), x, mask, i, v)
    # index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False)
    # CHECK: "aten.index_put"({{%[^ ,)]+}}, %arg2, %arg3) {accumulate = false,
    # CHECK-SAME: indices = array<i1: false, true>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}
    # CHECK-SAME: : (tensor<3x4xf32>, tensor<2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
    # A boolean mask has a data-dependent size: the result dim is dynamic.
    # CHECK: "aten.index.Tensor"(%arg0, %arg1) {indices = array<i1: true>,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 1>} : (tensor<3x4xf32>, tensor<3xi1>)
    # CHECK-SAME: -> tensor<?x4xf32>
    print(program)
    got, want = aten_mlir.run_reference(program, x, mask, i, v), Scatter()(x, mask, i, v)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")

# RUN: %PYTHON %s | FileCheck %s
"""A Python number passed where ATen takes a Tensor (`x + 1`: `add.Tensor(x, 1)`) is a "wrapped
number": it promotes like a Scalar, not like a 0-d tensor, so it stays a scalar attribute named
after the argument (`other = 1 : i64`), with an empty operand group."""

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


class Arithmetic(torch.nn.Module):
    def forward(self, x, n):
        return x + 1, x * 0.5, x * True, n * 3, n / 2, 1 - x, x.clamp(min=-1.5, max=2)


# CHECK-LABEL: TEST: test_wrapped_numbers
@run
def test_wrapped_numbers():
    x, n = torch.randn(3), torch.tensor([1, 2, 3])
    program = import_module(Arithmetic(), x, n)
    # CHECK: "aten.add.Tensor"(%arg0) {alpha = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>,
    # CHECK-SAME: other = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
    # CHECK-NEXT: "aten.mul.Tensor"(%arg0) {operandSegmentSizes = array<i32: 1, 0>,
    # CHECK-SAME: other = 5.000000e-01 : f64} : (tensor<3xf32>) -> tensor<3xf32>
    # CHECK-NEXT: "aten.mul.Tensor"(%arg0) {operandSegmentSizes = array<i32: 1, 0>, other = true}
    # CHECK-SAME: : (tensor<3xf32>) -> tensor<3xf32>
    # An int tensor times an int stays int; true division of ints promotes to the default dtype.
    # CHECK-NEXT: "aten.mul.Tensor"(%arg1) {operandSegmentSizes = array<i32: 1, 0>, other = 3 : i64}
    # CHECK-SAME: : (tensor<3xi64>) -> tensor<3xi64>
    # CHECK-NEXT: "aten.div.Tensor"(%arg1) {operandSegmentSizes = array<i32: 1, 0>, other = 2 : i64}
    # CHECK-SAME: : (tensor<3xi64>) -> tensor<3xf32>
    # Scalar arguments proper (`rsub.Scalar`, `clamp`) are plain attributes: no segments needed.
    # CHECK-NEXT: "aten.rsub.Scalar"(%arg0) {alpha = 1 : i64, other = 1 : i64} : (tensor<3xf32>)
    # CHECK-SAME: -> tensor<3xf32>
    # CHECK-NEXT: "aten.clamp"(%arg0) {max = 2 : i64, min = -1.500000e+00 : f64} : (tensor<3xf32>)
    # CHECK-SAME: -> tensor<3xf32>
    print(program)
    got, want = aten_mlir.run_reference(program, x, n), Arithmetic()(x, n)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")


class ComplexAndSpecial(torch.nn.Module):
    def forward(self, c, x, m):
        return c * 1j, c + (2 - 3j), x.masked_fill(m, float("-inf")), x * 1e-300


# CHECK-LABEL: TEST: test_complex_and_special_floats
@run
def test_complex_and_special_floats():
    c, x = torch.randn(2, dtype=torch.complex64), torch.randn(2, dtype=torch.float64)
    m = torch.tensor([True, False])
    program = import_module(ComplexAndSpecial(), c, x, m)
    # A complex number is `[re, im]` in f64.
    # CHECK: "aten.mul.Tensor"(%arg0) {operandSegmentSizes = array<i32: 1, 0>,
    # CHECK-SAME: other = [0.000000e+00, 1.000000e+00]} : (tensor<2xcomplex<f32>>)
    # CHECK-SAME: -> tensor<2xcomplex<f32>>
    # CHECK-NEXT: "aten.add.Tensor"(%arg0) {alpha = 1 : i64,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 0, 0>, other = [2.000000e+00, -3.000000e+00]}
    # CHECK-NEXT: "aten.masked_fill.Scalar"(%arg1, %arg2) {value = 0xFFF0000000000000 : f64}
    # CHECK-SAME: : (tensor<2xf64>, tensor<2xi1>) -> tensor<2xf64>
    # CHECK-NEXT: "aten.mul.Tensor"(%arg1) {operandSegmentSizes = array<i32: 1, 0>,
    # CHECK-SAME: other = 1.000000e-300 : f64}
    print(program)
    got, want = aten_mlir.run_reference(program, c, x, m), ComplexAndSpecial()(c, x, m)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")

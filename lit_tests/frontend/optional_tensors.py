# RUN: %PYTHON %s | FileCheck %s
"""An optional tensor (`Tensor?`) is an operand group of size 0 or 1: absent is an empty group,
recorded in `operandSegmentSizes`."""

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


def check_against_eager(program, module, *args):
    got, want = aten_mlir.run_reference(program, *args), module(*args)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    print(
        "ok"
        if all(torch.allclose(a, b, atol=1e-6) for a, b in zip(got, want, strict=True))
        else "MISMATCH"
    )


class LinearNoBias(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.with_bias = torch.nn.Linear(4, 4)
        self.without_bias = torch.nn.Linear(4, 2, bias=False)

    def forward(self, x):
        return self.without_bias(self.with_bias(x))


# CHECK-LABEL: TEST: test_linear_bias
@run
def test_linear_bias():
    module, x = LinearNoBias(), torch.randn(3, 4)
    program = import_module(module, x)
    # linear(Tensor input, Tensor weight, Tensor? bias=None)
    # CHECK: [[H:%.+]] = "aten.linear"(%arg3, %arg0, %arg1)
    # CHECK-SAME: {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3x4xf32>, tensor<4x4xf32>,
    # CHECK-SAME: tensor<4xf32>) -> tensor<3x4xf32>
    # CHECK-NEXT: "aten.linear"([[H]], %arg2) {operandSegmentSizes = array<i32: 1, 1, 0>}
    # CHECK-SAME: : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
    print(program)
    # CHECK: ok
    check_against_eager(program, module, x)


class LayerNorms(torch.nn.Module):
    def forward(self, x, w, b):
        full = torch.ops.aten.native_layer_norm(x, [4], w, b, 1e-5)
        weight_only = torch.ops.aten.native_layer_norm(x, [4], w, None, 1e-5)
        bias_only = torch.ops.aten.native_layer_norm(x, [4], None, b, 1e-5)
        neither = torch.ops.aten.native_layer_norm(x, [4], None, None, 1e-5)
        return full[0], weight_only[0], bias_only[0], neither[0], neither[1], neither[2]


# CHECK-LABEL: TEST: test_native_layer_norm_weight_and_bias
@run
def test_native_layer_norm_weight_and_bias():
    x, w, b = torch.randn(2, 4), torch.randn(4), torch.randn(4)
    program = import_module(LayerNorms(), x, w, b)
    # native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
    #                   float eps) -> (Tensor, Tensor, Tensor)
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<2x4xf32> {aten.user_input = "x"},
    # CHECK-SAME: [[W:%arg[0-9]+]]: tensor<4xf32> {aten.user_input = "w"},
    # CHECK-SAME: [[B:%arg[0-9]+]]: tensor<4xf32> {aten.user_input = "b"})
    # CHECK-NEXT: "aten.native_layer_norm"([[X]], [[W]], [[B]]) {eps = 1.000000e-05 : f64,
    # CHECK-SAME: normalized_shape = array<i64: 4>, operandSegmentSizes = array<i32: 1, 0, 1, 1, 0>}
    # CHECK-SAME: : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>,
    # CHECK-SAME: tensor<2x1xf32>, tensor<2x1xf32>)
    # CHECK-NEXT: "aten.native_layer_norm"([[X]], [[W]])
    # CHECK-SAME: {{{.*}}operandSegmentSizes = array<i32: 1, 0, 1, 0, 0>} : (tensor<2x4xf32>,
    # CHECK-SAME: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    # CHECK-NEXT: "aten.native_layer_norm"([[X]], [[B]])
    # CHECK-SAME: {{{.*}}operandSegmentSizes = array<i32: 1, 0, 0, 1, 0>} : (tensor<2x4xf32>,
    # CHECK-SAME: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    # CHECK-NEXT: [[N:%.+]]:3 = "aten.native_layer_norm"([[X]])
    # CHECK-SAME: {{{.*}}operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x4xf32>)
    # CHECK-SAME: -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    # CHECK-NEXT: return {{.*}}, [[N]]#0, [[N]]#1, [[N]]#2 :
    print(program)
    # CHECK: ok
    check_against_eager(program, LayerNorms(), x, w, b)


class FunctionalLayerNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = torch.nn.LayerNorm(4)
        self.plain = torch.nn.LayerNorm(4, elementwise_affine=False)

    def forward(self, x):
        return self.plain(self.affine(x))


# CHECK-LABEL: TEST: test_layer_norm_module
@run
def test_layer_norm_module():
    module, x = FunctionalLayerNorm(), torch.randn(2, 4)
    program = import_module(module, x)
    # layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
    #            float eps=1e-05, bool cudnn_enable=True)
    # CHECK: [[A:%.+]] = "aten.layer_norm"(%arg2, %arg0, %arg1)
    # CHECK-SAME: {{{.*}}operandSegmentSizes = array<i32: 1, 0, 1, 1, 0, 0>} : (tensor<2x4xf32>,
    # CHECK-SAME: tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    # CHECK-NEXT: "aten.layer_norm"([[A]])
    # CHECK-SAME: {{{.*}}operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<2x4xf32>)
    # CHECK-SAME: -> tensor<2x4xf32>
    print(program)
    # CHECK: ok
    check_against_eager(program, module, x)

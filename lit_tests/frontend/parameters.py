# RUN: %PYTHON %s | FileCheck %s
"""Parameters become leading `@main` arguments tagged `aten.parameter = "<qualified.name>"`, bound
to their values in `program.state`."""

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


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.scale = torch.nn.Parameter(torch.full((3,), 2.0))

    def forward(self, x):
        return self.fc(x) * self.scale


# CHECK-LABEL: TEST: test_linear_and_bare_parameter
@run
def test_linear_and_bare_parameter():
    torch.manual_seed(0)
    module, x = Scaled(), torch.randn(2, 4)
    program = import_module(module, x)
    # CHECK: func.func @main(
    # CHECK-SAME: [[S:%arg[0-9]+]]: tensor<3xf32> {aten.parameter = "scale"}
    # CHECK-SAME: [[W:%arg[0-9]+]]: tensor<3x4xf32> {aten.parameter = "fc.weight"}
    # CHECK-SAME: [[B:%arg[0-9]+]]: tensor<3xf32> {aten.parameter = "fc.bias"}
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<2x4xf32> {aten.user_input = "x"}
    # CHECK-SAME: -> (tensor<2x3xf32> {aten.user_output = "mul"})
    # CHECK-NEXT: [[Y:%.+]] = "aten.linear"([[X]], [[W]], [[B]])
    # CHECK-SAME: {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4xf32>, tensor<3x4xf32>,
    # CHECK-SAME: tensor<3xf32>) -> tensor<2x3xf32>
    # CHECK-NEXT: [[Z:%.+]] = "aten.mul.Tensor"([[Y]], [[S]]) : (tensor<2x3xf32>, tensor<3xf32>)
    # CHECK-SAME: -> tensor<2x3xf32>
    # CHECK-NEXT: return [[Z]] : tensor<2x3xf32>
    print(program)
    # CHECK: parameters: ['scale', 'fc.weight', 'fc.bias']
    print("parameters:", [s.name for s in program.signature.inputs if s.role == "parameter"])
    # CHECK-NEXT: state holds their values: True
    same = all(torch.equal(program.state[n], p) for n, p in module.named_parameters())
    print("state holds their values:", same)
    # CHECK-NEXT: ok
    print("ok" if torch.allclose(aten_mlir.run_reference(program, x), module(x)) else "MISMATCH")


class Conv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 4, kernel_size=3, padding=1, bias=False)

    def forward(self, x):
        return self.conv(x)


# CHECK-LABEL: TEST: test_conv_parameter_without_bias
@run
def test_conv_parameter_without_bias():
    module, x = Conv(), torch.randn(1, 2, 5, 5)
    program = import_module(module, x)
    # CHECK: func.func @main([[W:%arg[0-9]+]]: tensor<4x2x3x3xf32> {aten.parameter = "conv.weight"},
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<1x2x5x5xf32> {aten.user_input = "x"})
    # CHECK-NEXT: "aten.conv2d"([[X]], [[W]])
    # CHECK-SAME: dilation = array<i64: 1, 1>, groups = 1 : i64,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>, padding = array<i64: 1, 1>,
    # CHECK-SAME: stride = array<i64: 1, 1>
    # CHECK-SAME: -> tensor<1x4x5x5xf32>
    print(program)
    # CHECK: ok
    print("ok" if torch.allclose(aten_mlir.run_reference(program, x), module(x)) else "MISMATCH")

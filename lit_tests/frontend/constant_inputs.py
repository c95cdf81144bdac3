# RUN: %PYTHON %s | FileCheck %s
"""Non-tensor user inputs (ints, floats, bools, strings) are specialised by export: their values
are baked into the IR and they are not `@main` arguments; `run_reference` takes only the tensor
user inputs."""

import torch

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


class Configured(torch.nn.Module):
    def forward(self, x, n: int, scale: float, relu: bool, mode: str, y):
        out = x * scale + n
        if relu:
            out = out.relu()
        return torch.nn.functional.gelu(out, approximate=mode) + y


# CHECK-LABEL: TEST: test_baked_constants
@run
def test_baked_constants():
    x, y = torch.randn(4), torch.randn(4)
    args = (x, 3, 0.25, True, "tanh", y)
    program = aten_mlir.import_program(torch.export.export(Configured(), args))
    aten_mlir.verify_module(program.module)
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<4xf32> {aten.user_input = "x"},
    # CHECK-SAME: [[Y:%arg[0-9]+]]: tensor<4xf32> {aten.user_input = "y"})
    # CHECK-NEXT: [[A:%.+]] = "aten.mul.Tensor"([[X]]) {operandSegmentSizes = array<i32: 1, 0>,
    # CHECK-SAME: other = 2.500000e-01 : f64}
    # CHECK-NEXT: [[B:%.+]] = "aten.add.Tensor"([[A]]) {alpha = 1 : i64,
    # CHECK-SAME: operandSegmentSizes = array<i32: 1, 0, 0>, other = 3 : i64}
    # CHECK-NEXT: [[C:%.+]] = "aten.relu"([[B]])
    # CHECK-NEXT: [[D:%.+]] = "aten.gelu"([[C]]) {approximate = "tanh"}
    # CHECK-NEXT: "aten.add.Tensor"([[D]], [[Y]]) {alpha = 1 : i64}
    print(program)
    # CHECK: user inputs: ['x', 'y']
    print("user inputs:", [s.name for s in program.signature.user_inputs])
    # CHECK-NEXT: ok
    same = torch.allclose(aten_mlir.run_reference(program, x, y), Configured()(*args))
    print("ok" if same else "MISMATCH")


# CHECK-LABEL: TEST: test_false_branch_is_not_traced
@run
def test_false_branch_is_not_traced():
    x, y = torch.randn(4), torch.randn(4)
    args = (x, -1, 2.0, False, "none", y)
    program = aten_mlir.import_program(torch.export.export(Configured(), args))
    # CHECK-NOT: aten.relu
    # CHECK: "aten.gelu"({{%[^ ,)]+}}) {approximate = "none"}
    print(program)
    # CHECK: ok
    same = torch.allclose(aten_mlir.run_reference(program, x, y), Configured()(*args))
    print("ok" if same else "MISMATCH")

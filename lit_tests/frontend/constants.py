# RUN: %PYTHON %s | FileCheck %s
"""Lifted tensor constants (plain tensor attributes, `torch.tensor(...)` literals in `forward`)
are `aten.constant` arguments whose values live in `program.state`."""

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


class WithConstants(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.tensor([1.0, 2.0, 3.0])  # neither parameter nor buffer

    def forward(self, x):
        return x * self.weights + torch.tensor([10.0, 20.0, 30.0]), x.sum() + torch.tensor(7)


# CHECK-LABEL: TEST: test_lifted_constants
@run
def test_lifted_constants():
    module, x = WithConstants(), torch.randn(3)
    program = import_module(module, x)
    # CHECK: func.func @main([[W:%arg[0-9]+]]: tensor<3xf32> {aten.constant = "weights"},
    # CHECK-SAME: [[C0:%arg[0-9]+]]: tensor<3xf32> {aten.constant = "lifted_tensor_0"},
    # CHECK-SAME: [[C1:%arg[0-9]+]]: tensor<i64> {aten.constant = "lifted_tensor_1"},
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<3xf32> {aten.user_input = "x"})
    # CHECK-NEXT: [[MUL:%.+]] = "aten.mul.Tensor"([[X]], [[W]])
    # CHECK-NEXT: [[LIT:%.+]] = "aten.lift_fresh_copy"([[C0]])
    # CHECK-NEXT: "aten.add.Tensor"([[MUL]], [[LIT]])
    # CHECK: "aten.lift_fresh_copy"([[C1]]) : (tensor<i64>) -> tensor<i64>
    print(program)
    # CHECK: lifted_tensor_0 = [10.0, 20.0, 30.0]
    # CHECK-NEXT: lifted_tensor_1 = 7
    # CHECK-NEXT: weights = [1.0, 2.0, 3.0]
    for name in sorted(program.state):
        print(name, "=", program.state[name].tolist())
    got, want = aten_mlir.run_reference(program, x), module(x)
    # CHECK-NEXT: ok
    print("ok" if all(torch.allclose(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")

# RUN: %PYTHON %s | FileCheck %s
"""Models built from `nn.Sequential`, `nn.ModuleList` and `nn.ModuleDict`: parameters keep their
fully qualified names (`layers.1.fc.weight`), ops follow the Python loop unrolled by export."""

import torch

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


class Block(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = torch.nn.Linear(width, width)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x)) + x


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GELU(approximate="tanh"))
        self.layers = torch.nn.ModuleList([Block(4) for _ in range(2)])
        self.heads = torch.nn.ModuleDict({"logits": torch.nn.Linear(4, 2, bias=False)})

    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = layer(x)
        return torch.log_softmax(self.heads["logits"](x), dim=-1)


# CHECK-LABEL: TEST: test_containers
@run
def test_containers():
    torch.manual_seed(0)
    module, x = Net(), torch.randn(5, 3)
    program = aten_mlir.import_program(torch.export.export(module, (x,)))
    aten_mlir.verify_module(program.module)
    # CHECK: func.func @main(
    # CHECK-SAME: [[W0:%arg[0-9]+]]: tensor<4x3xf32> {aten.parameter = "stem.0.weight"},
    # CHECK-SAME: [[B0:%arg[0-9]+]]: tensor<4xf32> {aten.parameter = "stem.0.bias"}
    # CHECK-SAME: [[W1:%arg[0-9]+]]: tensor<4x4xf32> {aten.parameter = "layers.0.fc.weight"},
    # CHECK-SAME: [[B1:%arg[0-9]+]]: tensor<4xf32> {aten.parameter = "layers.0.fc.bias"}
    # CHECK-SAME: [[W2:%arg[0-9]+]]: tensor<4x4xf32> {aten.parameter = "layers.1.fc.weight"},
    # CHECK-SAME: [[B2:%arg[0-9]+]]: tensor<4xf32> {aten.parameter = "layers.1.fc.bias"}
    # CHECK-SAME: [[WH:%arg[0-9]+]]: tensor<2x4xf32> {aten.parameter = "heads.logits.weight"}
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<5x3xf32> {aten.user_input = "x"}
    # CHECK-NEXT: [[L0:%.+]] = "aten.linear"([[X]], [[W0]], [[B0]])
    # CHECK-NEXT: [[G:%.+]] = "aten.gelu"([[L0]]) {approximate = "tanh"}
    # CHECK-NEXT: [[L1:%.+]] = "aten.linear"([[G]], [[W1]], [[B1]])
    # CHECK-NEXT: [[R1:%.+]] = "aten.relu"([[L1]])
    # CHECK-NEXT: [[A1:%.+]] = "aten.add.Tensor"([[R1]], [[G]])
    # CHECK-NEXT: [[L2:%.+]] = "aten.linear"([[A1]], [[W2]], [[B2]])
    # CHECK-NEXT: [[R2:%.+]] = "aten.relu"([[L2]])
    # CHECK-NEXT: [[A2:%.+]] = "aten.add.Tensor"([[R2]], [[A1]])
    # CHECK-NEXT: [[H:%.+]] = "aten.linear"([[A2]], [[WH]])
    # CHECK-SAME: {operandSegmentSizes = array<i32: 1, 1, 0>}
    # CHECK-NEXT: [[OUT:%.+]] = "aten.log_softmax.int"([[H]]) {dim = -1 : i64}
    # CHECK-NEXT: return [[OUT]] : tensor<5x2xf32>
    print(program)
    # CHECK: ok
    same = torch.allclose(aten_mlir.run_reference(program, x), module(x), atol=1e-6)
    print("ok" if same else "MISMATCH")

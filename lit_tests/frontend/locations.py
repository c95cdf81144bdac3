# RUN: %PYTHON %s | FileCheck %s
"""Every imported op is located at `fused[FileLineColLoc(user line), NameLoc(FX node),
NameLoc(module path)]` (no path for ops of the top module); `@main` arguments are NameLocs of
their placeholders; `return` is `loc("output")`. Printed with debug info, as
`--mlir-print-debuginfo` would."""

import torch

import aten_mlir
from aten_mlir.dialects import describe_location


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def line_of(marker: str) -> int:
    """The line of this file that ends with the comment `# <marker>`."""
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if line.rstrip().endswith("# " + marker))


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.tanh(self.fc(x))  # ENCODER_LINE


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, x):
        h = self.encoder(x)
        return h * 2  # TOP_LINE


# CHECK-LABEL: TEST: test_debug_info
@run
def test_debug_info():
    program = aten_mlir.import_program(torch.export.export(Net(), (torch.randn(2, 4),)))
    aten_mlir.verify_module(program.module)
    # CHECK: ENCODER_LINE=[[ENC:[0-9]+]] TOP_LINE=[[TOP:[0-9]+]]
    print(f"ENCODER_LINE={line_of('ENCODER_LINE')} TOP_LINE={line_of('TOP_LINE')}")
    # CHECK: func.func @main(
    # CHECK-SAME: %arg0: tensor<4x4xf32>
    # CHECK-SAME: {aten.parameter = "encoder.fc.weight"} loc("p_encoder_fc_weight")
    # CHECK-SAME: %arg2: tensor<2x4xf32> {aten.user_input = "x"} loc("x")
    # CHECK-NEXT: "aten.linear"{{.*}} loc(#[[LIN:loc[0-9]+]])
    # CHECK-NEXT: "aten.tanh"{{.*}} loc(#[[TANH:loc[0-9]+]])
    # CHECK-NEXT: "aten.mul.Tensor"{{.*}} loc(#[[MUL:loc[0-9]+]])
    # CHECK-NEXT: return {{.*}} loc(#[[RET:loc[0-9]+]])
    # CHECK-DAG: #[[ENC_FILE:loc[0-9]+]] = loc("{{.*}}locations.py":[[ENC]]:0)
    # CHECK-DAG: #[[TOP_FILE:loc[0-9]+]] = loc("{{.*}}locations.py":[[TOP]]:0)
    # CHECK-DAG: #[[LIN_NAME:loc[0-9]+]] = loc("linear")
    # CHECK-DAG: #[[FC_PATH:loc[0-9]+]] = loc("encoder.fc")
    # CHECK-DAG: #[[TANH_NAME:loc[0-9]+]] = loc("tanh")
    # CHECK-DAG: #[[ENC_PATH:loc[0-9]+]] = loc("encoder")
    # CHECK-DAG: #[[MUL_NAME:loc[0-9]+]] = loc("mul")
    # CHECK-DAG: #[[RET]] = loc("output")
    # CHECK-DAG: #[[LIN]] = loc(fused[#[[ENC_FILE]], #[[LIN_NAME]], #[[FC_PATH]]])
    # CHECK-DAG: #[[TANH]] = loc(fused[#[[ENC_FILE]], #[[TANH_NAME]], #[[ENC_PATH]]])
    # CHECK-DAG: #[[MUL]] = loc(fused[#[[TOP_FILE]], #[[MUL_NAME]]])
    print(program.text(debug_info=True))
    # Without debug info nothing of this is printed.
    # CHECK-NOT: loc(
    # CHECK: "aten.linear"
    print(program.text())
    # Error messages describe the same places.
    # CHECK: aten.linear: {{.*}}locations.py:[[ENC]] (node linear in encoder.fc)
    # CHECK-NEXT: aten.tanh: {{.*}}locations.py:[[ENC]] (node tanh in encoder)
    # CHECK-NEXT: aten.mul.Tensor: {{.*}}locations.py:[[TOP]] (node mul)
    for op in program.main.regions[0].blocks[0].operations:
        if op.operation.name.startswith("aten."):
            print(f"{op.operation.name}: {describe_location(op.location)}")

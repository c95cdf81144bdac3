# RUN: %PYTHON %s | FileCheck %s
"""The whole pipeline, executed: aten -> linalg -> loops -> LLVM -> native code, on a program
that mixes broadcasting, promotion, comparisons and a bool result, static and dynamic."""

import torch

import aten_mlir
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.passes.stages import stage_names


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


class Mix(torch.nn.Module):
    def forward(self, x, y):
        z = (x + 2 * y) / y
        return z, x > y, torch.div(x.int(), 3, rounding_mode="floor")


X = torch.tensor([[1.0, -2.0, 3.5], [-4.0, 5.0, -6.5]])
Y = torch.tensor([2.0, 4.0, -1.0])


# CHECK-LABEL: TEST: static_shapes
# CHECK: stages: decompose aten-to-linalg fusion bufferize vectorize loops llvm
# CHECK: fallbacks: []
# CHECK: z: [2.5, 1.5, -1.5, 0.0, 3.25, 8.5]
# CHECK: gt: [False, False, True, False, True, False]
# CHECK: floordiv: [0, -1, 1, -2, 1, -2]
@run
def static_shapes():
    program = aten_mlir.compile(torch.export.export(Mix(), (X, Y)))
    print("stages:", " ".join(stage_names(CPU_STAGES)))
    print("fallbacks:", program.fallbacks)
    z, gt, fd = program(X, Y)
    print("z:", z.flatten().tolist())
    print("gt:", gt.flatten().tolist())
    print("floordiv:", fd.flatten().tolist())


# CHECK-LABEL: TEST: dynamic_rows
# CHECK: rows 1: [2.5, 1.5, -1.5]
# CHECK: rows 2: [2.5, 1.5, -1.5, 0.0, 3.25, 8.5]
@run
def dynamic_rows():
    rows = torch.export.Dim("rows")
    ep = torch.export.export(Mix(), (X, Y), dynamic_shapes=({0: rows}, None))
    program = aten_mlir.compile(ep)
    for n in (1, 2):
        print(f"rows {n}:", program(X[:n], Y)[0].flatten().tolist())

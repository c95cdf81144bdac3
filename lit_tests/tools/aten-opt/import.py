# Importing a program saved with torch.export.save, then running a pipeline on it.
# RUN: %PYTHON %s %t.pt2
# RUN: aten-opt --import %t.pt2 | FileCheck %s
# RUN: aten-opt --import %t.pt2 -p 'aten-verify,aten-drop-dead' --mlir-print-debuginfo \
# RUN:   | FileCheck %s --check-prefix=DEBUG
# RUN: not aten-opt --import %t.pt2 -p 'aten-verify{target=core}' 2>&1 \
# RUN:   | FileCheck %s --check-prefix=CORE
# RUN: not aten-opt --import %s 2>&1 | FileCheck %s --check-prefix=BAD

import sys

import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        # CHECK-LABEL: func.func @main
        # CHECK-SAME: %[[W:[^ :]+]]: tensor<3x4xf32> {aten.parameter = "fc.weight"}
        # CHECK-SAME: %[[X:[^ :]+]]: tensor<2x4xf32> {aten.user_input = "x"}
        # CHECK: [[Y:%.+]] = "aten.linear"(%[[X]], %[[W]]
        # CHECK-NEXT: [[R:%.+]] = "aten.relu"([[Y]])
        # CHECK-NEXT: return [[R]]
        # Locations are the model's source line, the FX node and the module path.
        # DEBUG: "aten.relu"({{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc([[RELU:#loc[0-9]*]])
        # DEBUG: [[SRC:#loc[0-9]*]] = loc("{{.*}}import.py":[[@LINE+4]]:{{[0-9]+}})
        # DEBUG: [[NODE:#loc[0-9]*]] = loc("relu")
        # DEBUG: [[RELU]] = loc(fused{{\[}}[[SRC]], [[NODE]]])
        # CORE: import.py:[[@LINE+1]] (node linear in fc): error: 'aten.linear' op is not in
        return torch.relu(self.fc(x))


# BAD: import.py: error: cannot load an exported program:
# BAD-NOT: Traceback

if __name__ == "__main__":
    ep = torch.export.export(Model(), (torch.randn(2, 4),))
    torch.export.save(ep, sys.argv[1])

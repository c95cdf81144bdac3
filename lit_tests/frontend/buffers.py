# RUN: %PYTHON %s | FileCheck %s
"""Buffers are `aten.buffer` arguments; in-place mutation is functionalized: the new value is an
extra result tagged `aten.mutated_buffer`, after every user output, and `run_reference` writes it
back into `program.state`."""

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


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))
        self.register_buffer("table", torch.arange(3.0))

    def forward(self, x):
        self.count.add_(x)
        return x * self.table, self.count.sum()


# CHECK-LABEL: TEST: test_mutated_buffer
@run
def test_mutated_buffer():
    module, x = Counter(), torch.ones(3)
    program = import_module(Counter(), x)
    # CHECK: func.func @main([[COUNT:%arg[0-9]+]]: tensor<3xf32> {aten.buffer = "count"},
    # CHECK-SAME: [[TABLE:%arg[0-9]+]]: tensor<3xf32> {aten.buffer = "table"},
    # CHECK-SAME: [[X:%arg[0-9]+]]: tensor<3xf32> {aten.user_input = "x"})
    # CHECK-SAME: -> (tensor<3xf32> {aten.user_output = "mul"}, tensor<f32>
    # CHECK-SAME: {aten.user_output = "sum_1"}, tensor<3xf32> {aten.mutated_buffer = "count"})
    # CHECK-NEXT: [[NEW:%.+]] = "aten.add.Tensor"([[COUNT]], [[X]]) {alpha = 1 : i64}
    # CHECK-NEXT: [[MUL:%.+]] = "aten.mul.Tensor"([[X]], [[TABLE]])
    # CHECK-NEXT: [[SUM:%.+]] = "aten.sum"([[NEW]])
    # CHECK-NEXT: return [[MUL]], [[SUM]], [[NEW]] :
    print(program)
    for step in range(2):
        got, want = aten_mlir.run_reference(program, x), module(x)
        same = all(torch.equal(a, b) for a, b in zip(got, want, strict=True))
        # CHECK: step 0: outputs ok, count = [1.0, 1.0, 1.0]
        # CHECK: step 1: outputs ok, count = [2.0, 2.0, 2.0]
        print(f"step {step}: outputs {'ok' if same else 'MISMATCH'},", end=" ")
        print("count =", program.state["count"].tolist())
    # CHECK: table untouched: [0.0, 1.0, 2.0]
    print("table untouched:", program.state["table"].tolist())


class TrainBatchNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(2)

    def forward(self, x):
        return self.bn(x)


# CHECK-LABEL: TEST: test_batch_norm_running_stats
@run
def test_batch_norm_running_stats():
    torch.manual_seed(0)
    module, x = TrainBatchNorm().train(), torch.randn(4, 2)
    program = import_module(TrainBatchNorm().train(), x)
    # CHECK: func.func @main(
    # CHECK-SAME: {aten.parameter = "bn.weight"}
    # CHECK-SAME: {aten.parameter = "bn.bias"}
    # CHECK-SAME: [[MEAN:%arg[0-9]+]]: tensor<2xf32> {aten.buffer = "bn.running_mean"}
    # CHECK-SAME: [[VAR:%arg[0-9]+]]: tensor<2xf32> {aten.buffer = "bn.running_var"}
    # CHECK-SAME: [[N:%arg[0-9]+]]: tensor<i64> {aten.buffer = "bn.num_batches_tracked"}
    # CHECK-SAME: -> (tensor<4x2xf32> {aten.user_output = "getitem"}, tensor<2xf32>
    # CHECK-SAME: {aten.mutated_buffer = "bn.running_mean"}, tensor<2xf32>
    # CHECK-SAME: {aten.mutated_buffer = "bn.running_var"}, tensor<i64>
    # CHECK-SAME: {aten.mutated_buffer = "bn.num_batches_tracked"})
    # CHECK: [[N1:%.+]] = "aten.add.Tensor"([[N]]) {{{.*}}other = 1 : i64}
    # CHECK: [[BN:%.+]]:5 = "aten._native_batch_norm_legit_functional"({{.*}}, [[MEAN]], [[VAR]])
    # CHECK-SAME: training = true
    # CHECK-NEXT: return [[BN]]#0, [[BN]]#3, [[BN]]#4, [[N1]] :
    print(program)
    got, want = aten_mlir.run_reference(program, x), module(x)
    names = ["running_mean", "running_var", "num_batches_tracked"]
    same = torch.allclose(got, want) and all(
        torch.allclose(program.state[f"bn.{n}"], getattr(module.bn, n)) for n in names
    )
    # CHECK: ok
    print("ok" if same else "MISMATCH")

# RUN: %PYTHON %s | FileCheck %s
"""Ops with several results are one op with several results (`%r:2`); `getitem` on them picks a
result (`%r#1`) and emits nothing. A `Tensor[]` result (`split`) is a variadic result list whose
length comes from the FX node's value."""

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


class MaxAndTopk(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.max(x, dim=1)
        _, top = torch.topk(x, 2)
        return indices, values * 2, top


# CHECK-LABEL: TEST: test_max_dim_and_topk
@run
def test_max_dim_and_topk():
    x = torch.tensor([[1.0, 5.0, 3.0], [7.0, 0.0, 2.0]])
    program = import_module(MaxAndTopk(), x)
    # max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    # CHECK: [[MAX:%.+]]:2 = "aten.max.dim"(%arg0) {dim = 1 : i64, keepdim = false}
    # CHECK-SAME: : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
    # CHECK-NEXT: [[TOPK:%.+]]:2 = "aten.topk"(%arg0) {dim = -1 : i64, k = 2 : i64, largest = true,
    # CHECK-SAME: sorted = true} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
    # CHECK-NEXT: [[DOUBLE:%.+]] = "aten.mul.Tensor"([[MAX]]#0)
    # CHECK-NEXT: return [[MAX]]#1, [[DOUBLE]], [[TOPK]]#1 : tensor<2xi64>, tensor<2xf32>,
    # CHECK-SAME: tensor<2x2xi64>
    print(program)
    got = aten_mlir.run_reference(program, x)
    # CHECK: indices: 1 0; values*2: 10.0 14.0; top: 1 2 0 2
    print("indices:", *got[0].tolist(), end="; ")
    print("values*2:", *got[1].tolist(), end="; ")
    print("top:", *got[2].flatten().tolist())


class Splits(torch.nn.Module):
    def forward(self, x):
        a, b, c = torch.split(x, 2, dim=1)
        first, _, last = torch.split(x, [1, 2, 3], dim=1)
        return a + c, b, first, last, x.unbind(0)


# CHECK-LABEL: TEST: test_split_results
@run
def test_split_results():
    x = torch.arange(12.0).reshape(2, 6)
    program = import_module(Splits(), x)
    # split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
    # CHECK: [[S:%.+]]:3 = "aten.split.Tensor"(%arg0) {dim = 1 : i64, split_size = 2 : i64}
    # CHECK-SAME: : (tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
    # CHECK-NEXT: [[W:%.+]]:3 = "aten.split_with_sizes"(%arg0) {dim = 1 : i64,
    # CHECK-SAME: split_sizes = array<i64: 1, 2, 3>} : (tensor<2x6xf32>) -> (tensor<2x1xf32>,
    # CHECK-SAME: tensor<2x2xf32>, tensor<2x3xf32>)
    # CHECK-NEXT: [[AC:%.+]] = "aten.add.Tensor"([[S]]#0, [[S]]#2)
    # CHECK-NEXT: [[U:%.+]]:2 = "aten.unbind.int"(%arg0) {dim = 0 : i64} : (tensor<2x6xf32>)
    # CHECK-SAME: -> (tensor<6xf32>, tensor<6xf32>)
    # CHECK-NEXT: return [[AC]], [[S]]#1, [[W]]#0, [[W]]#2, [[U]]#0, [[U]]#1 :
    print(program)
    got, want = aten_mlir.run_reference(program, x), Splits()(x)
    same = all(torch.equal(a, b) for a, b in zip(got[:4], want[:4], strict=True))
    same = same and isinstance(got[4], tuple) and all(map(torch.equal, got[4], want[4]))
    # CHECK: ok
    print("ok" if same else "MISMATCH")

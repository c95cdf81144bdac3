# RUN: %PYTHON %s | FileCheck %s
"""Dims declared with `torch.export.Dim` stay dynamic: `?` in tensor types, sizes read with
`tensor.dim`, integer arithmetic on sizes in `arith` on `index`, and symbolic sizes passed to aten
ops as `index` operands (counted in `operandSegmentSizes`)."""

import torch
from torch.export import Dim

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def import_module(module, *args, dynamic_shapes):
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    program = aten_mlir.import_program(ep)
    aten_mlir.verify_module(program.module)
    return program


class ViewArange(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return x.view(n * 2, -1), torch.arange(n)


# CHECK-LABEL: TEST: test_view_and_arange
@run
def test_view_and_arange():
    batch = Dim("batch", min=2, max=64)
    program = import_module(ViewArange(), torch.randn(4, 6), dynamic_shapes={"x": {0: batch}})
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<?x6xf32>
    # CHECK-SAME: {aten.sizes = ["{{s[0-9]+}}", "6"], aten.user_input = "x"})
    # CHECK-SAME: -> (tensor<?x3xf32> {aten.user_output = "view"}, tensor<?xi64>
    # CHECK-SAME: {aten.user_output = "arange"})
    # CHECK-NEXT: [[C0:%.+]] = arith.constant 0 : index
    # CHECK-NEXT: [[N:%.+]] = tensor.dim [[X]], [[C0]] : tensor<?x6xf32>
    # CHECK-NEXT: [[C2:%.+]] = arith.constant 2 : index
    # CHECK-NEXT: [[N2:%.+]] = arith.muli [[N]], [[C2]] : index
    # CHECK-NEXT: [[CM1:%.+]] = arith.constant -1 : index
    # CHECK-NEXT: "aten.view"([[X]], [[N2]], [[CM1]]) {operandSegmentSizes = array<i32: 1, 2>}
    # CHECK-SAME: : (tensor<?x6xf32>, index, index) -> tensor<?x3xf32>
    # CHECK-NEXT: "aten.arange"([[N]]) {{{.*}}operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>{{.*}}}
    # CHECK-SAME: : (index) -> tensor<?xi64>
    print(program)
    for rows in (3, 10):
        x = torch.randn(rows, 6)
        got, want = aten_mlir.run_reference(program, x), ViewArange()(x)
        # CHECK: rows=3: (6, 3) ok
        # CHECK: rows=10: (20, 3) ok
        same = all(torch.equal(a, b) for a, b in zip(got, want, strict=True))
        print(f"rows={rows}:", tuple(got[0].shape), "ok" if same else "MISMATCH")


class SizeArithmetic(torch.nn.Module):
    def forward(self, x, y):
        n = x.shape[0]
        return (x + y) * n, torch.full((n // 2, 3), 1.5), n % 3, x.unsqueeze(0).expand(2, n, -1)


# CHECK-LABEL: TEST: test_size_arithmetic
@run
def test_size_arithmetic():
    n = Dim("n", min=4, max=100)
    x, y = torch.randn(5, 3), torch.randn(5, 3)
    program = import_module(SizeArithmetic(), x, y, dynamic_shapes={"x": {0: n}, "y": {0: n}})
    # A size returned by the module is an `index` result.
    # One export symbol names both batch dims (the call guards check that they agree).
    # CHECK: func.func @main([[X:%arg[0-9]+]]: tensor<?x3xf32>
    # CHECK-SAME: {aten.sizes = ["[[S:s[0-9]+]]", "3"], aten.user_input = "x"},
    # CHECK-SAME: [[Y:%arg[0-9]+]]: tensor<?x3xf32> {aten.sizes = ["[[S]]", "3"], aten.user_input = "y"})
    # CHECK-SAME: -> (tensor<?x3xf32> {aten.user_output = "{{mul[_0-9]*}}"}, tensor<?x3xf32>
    # CHECK-SAME: {aten.user_output = "full"}, index {aten.user_output = "mod"}, tensor<2x?x3xf32>
    # CHECK-SAME: {aten.user_output = "expand"})
    # x and y share the dim `n`: either one gives its size.
    # CHECK: [[N:%.+]] = tensor.dim {{%arg[01]}}, {{%[^ ,)]+}} : tensor<?x3xf32>
    # CHECK: [[SUM:%.+]] = "aten.add.Tensor"([[X]], [[Y]])
    # A size used as a wrapped number is an `index` operand of a Tensor argument.
    # CHECK-NEXT: "aten.mul.Tensor"([[SUM]], [[N]]) : (tensor<?x3xf32>, index) -> tensor<?x3xf32>
    # CHECK: [[HALF:%.+]] = arith.floordivsi [[N]], {{%[^ ,)]+}} : index
    # CHECK: "aten.full"([[HALF]], {{%[^ ,)]+}}) {{{.*}}fill_value = 1.500000e+00 : f64,
    # CHECK-SAME: operandSegmentSizes = array<i32: 2, 0, 0, 0, 0, 0>{{.*}}} : (index, index)
    # CHECK-SAME: -> tensor<?x3xf32>
    # Python's `%` (floor semantics) is `arith.remsi` plus a sign fix-up.
    # CHECK: arith.remsi [[N]]
    # CHECK: arith.select
    # CHECK: "aten.unsqueeze"([[X]]) {dim = 0 : i64} : (tensor<?x3xf32>) -> tensor<1x?x3xf32>
    # CHECK: "aten.expand"({{%[^ ,)]+}}, {{%[^ ,)]+}}, [[N]], {{%[^ ,)]+}})
    # CHECK-SAME: {{{.*}}operandSegmentSizes = array<i32: 1, 3, 0>{{.*}}} : (tensor<1x?x3xf32>,
    # CHECK-SAME: index, index, index) -> tensor<2x?x3xf32>
    print(program)
    for rows in (7, 8):
        x, y = torch.randn(rows, 3), torch.randn(rows, 3)
        got, want = aten_mlir.run_reference(program, x, y), SizeArithmetic()(x, y)
        same = all(
            torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b
            for a, b in zip(got, want, strict=True)
        )
        # CHECK: rows=7: mod=1 ok
        # CHECK: rows=8: mod=2 ok
        print(f"rows={rows}: mod={got[2]}", "ok" if same else "MISMATCH")

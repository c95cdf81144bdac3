// RUN: aten-opt %s -p aten-verify | FileCheck %s

// Well-formed ops of every operand layout pass the verifier unchanged.

// CHECK-LABEL: func.func @operand_layouts
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<2x3xf32>, %[[B:[^ :]+]]: tensor<2x3xf32>, %[[I:[^ :]+]]: tensor<2xi64>)
func.func @operand_layouts(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // CHECK-NEXT: [[ADD:%.+]] = "aten.add.Tensor"(%[[A]], %[[B]]) {alpha = 1 : i64}
  %0 = "aten.add.Tensor"(%a, %b) {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // A Tensor[] argument is one variadic operand group.
  // CHECK-NEXT: "aten.cat"(%[[A]], [[ADD]]) {dim = 0 : i64, operandSegmentSizes = array<i32: 2, 0>}
  %1 = "aten.cat"(%a, %0) {dim = 0 : i64, operandSegmentSizes = array<i32: 2, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: "aten.sum.dim_IntList"(%[[A]]) {dim = array<i64: 1>, keepdim = true}
  %2 = "aten.sum.dim_IntList"(%a) {dim = array<i64: 1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  // A Tensor?[] argument carries its presence mask.
  // CHECK-NEXT: "aten.index.Tensor"(%[[A]], %[[I]]) {indices = array<i1: true, false>
  %3 = "aten.index.Tensor"(%a, %i) {indices = array<i1: true, false>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  // Absent optional tensors are empty groups; several results.
  // CHECK-NEXT: {{%.+}}:3 = "aten.native_layer_norm"(%[[A]])
  %4:3 = "aten.native_layer_norm"(%a) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 3>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  // A wrapped number: a Python scalar where ATen takes a Tensor.
  // CHECK-NEXT: "aten.add.Tensor"(%[[A]]) {alpha = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>, other = 2.000000e+00 : f64}
  %5 = "aten.add.Tensor"(%a) {alpha = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>, other = 2.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: return [[ADD]]
  return %0 : tensor<2x3xf32>
}

// A symbolic size is an `index` operand.
// CHECK-LABEL: func.func @symbolic_size
// CHECK: "aten.view"(%{{.+}}, %{{.+}}) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<?x3xf32>, index) -> tensor<?xf32>
func.func @symbolic_size(%a: tensor<?x3xf32>, %n: index) -> tensor<?xf32> {
  %0 = "aten.view"(%a, %n) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<?x3xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// Each operand is copied into its window of one tensor.empty (no tensor.concat).
// CHECK-LABEL: func.func @cat
// CHECK: %[[D:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<3x?xf32>
// CHECK: %[[N:.+]] = arith.addi %[[D]], %{{.+}} : index
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: %[[W0:.+]] = tensor.extract_slice %[[E]][0, 0] [3, 2] [1, 1]
// CHECK: %[[C0:.+]] = linalg.copy {{.+}} outs(%[[W0]] : tensor<3x2xf32>)
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [3, 2] [1, 1]
// CHECK: tensor.insert_slice %{{.+}} into %[[I0]][0, 2] [3, %{{.+}}] [1, 1]
// CHECK-NOT: tensor.concat
func.func @cat(%x: tensor<3x2xf32>, %y: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %0 = "aten.cat"(%x, %y) {dim = 1 : i64, operandSegmentSizes = array<i32: 2, 0>} : (tensor<3x2xf32>, tensor<3x?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// repeat: broadcast to [r0, r1, s0, r2, s1], then collapse each (repeat, size) pair.
// CHECK-LABEL: func.func @repeat
// CHECK: linalg.broadcast ins(%{{.+}} : tensor<3x4xf32>) outs(%{{.+}} : tensor<2x1x3x2x4xf32>) dimensions = [0, 1, 3]
// CHECK-NEXT: tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2], [3, 4]] : tensor<2x1x3x2x4xf32> into tensor<2x3x8xf32>
func.func @repeat(%x: tensor<3x4xf32>) -> tensor<2x3x8xf32> {
  %0 = "aten.repeat"(%x) {repeats = array<i64: 2, 1, 2>} : (tensor<3x4xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @flip
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[R:.+]] = arith.subi %{{.+}}, %[[J]] : index
// CHECK: tensor.extract %{{.+}}[%[[I]], %[[R]]] : tensor<3x4xf32>
func.func @flip(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "aten.flip"(%x) {dims = array<i64: -1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice_scatter
// CHECK: %[[W:.+]] = tensor.extract_slice %[[X:[^\[]+]][0, 1] [4, 2] [1, 2]
// CHECK: %[[C:.+]] = linalg.copy {{.+}} outs(%[[W]] : tensor<4x2xf32>)
// CHECK: tensor.insert_slice %[[C]] into %[[X]][0, 1] [4, 2] [1, 2] : tensor<4x2xf32> into tensor<4x5xf32>
func.func @slice_scatter(%x: tensor<4x5xf32>, %s: tensor<4x2xf32>) -> tensor<4x5xf32> {
  %0 = "aten.slice_scatter"(%x, %s) {dim = 1 : i64, start = 1 : i64, end = 5 : i64, step = 2 : i64} : (tensor<4x5xf32>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

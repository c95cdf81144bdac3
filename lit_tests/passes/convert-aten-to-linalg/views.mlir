// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A reshape regroups dims with equal products: collapse, then expand.
// CHECK-LABEL: func.func @view
// CHECK-NEXT: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK-NEXT: %[[E:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [2, 12] : tensor<24xf32> into tensor<2x12xf32>
// CHECK-NEXT: return %[[E]]
func.func @view(%x: tensor<4x6xf32>) -> tensor<2x12xf32> {
  %0 = "aten.view"(%x) {size = array<i64: 2, 12>} : (tensor<4x6xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// A symbolic size that is the operand's own dim keeps that dim in its own group.
// CHECK-LABEL: func.func @view_dynamic
// CHECK: %[[D:.+]] = tensor.dim %[[X:.+]], %{{.+}} : tensor<?x6xf32>
// CHECK-NEXT: tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [%[[D]], 2, 3] : tensor<?x6xf32> into tensor<?x2x3xf32>
// CHECK-NOT: tensor.collapse_shape
func.func @view_dynamic(%x: tensor<?x6xf32>) -> tensor<?x2x3xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x6xf32>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %0 = "aten.view"(%x, %d, %c2, %c3) {operandSegmentSizes = array<i32: 1, 3>} : (tensor<?x6xf32>, index, index, index) -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK: %[[I:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT: linalg.transpose ins(%{{.+}} : tensor<2x3x4xf32>) outs(%[[I]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "aten.permute"(%x) {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// start 1, end -1 (= 5), step 2: two elements from offset 1, a strided view.
// CHECK-LABEL: func.func @slice
// CHECK-NEXT: tensor.extract_slice %{{.+}}[0, 1] [4, 2] [1, 2] : tensor<4x6xf32> to tensor<4x2xf32>
func.func @slice(%x: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %0 = "aten.slice.Tensor"(%x) {dim = 1 : i64, end = -1 : i64, start = 1 : i64, step = 2 : i64} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Bool tensors are viewed in their i8 storage; the index counts from the end.
// CHECK-LABEL: func.func @select_bool
// CHECK-SAME: tensor<4x6xi8>
// CHECK-NEXT: tensor.extract_slice %{{.+}}[0, 5] [4, 1] [1, 1] : tensor<4x6xi8> to tensor<4xi8>
func.func @select_bool(%x: tensor<4x6xi1>) -> tensor<4xi1> {
  %0 = "aten.select.int"(%x) {dim = 1 : i64, index = -1 : i64} : (tensor<4x6xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// The broadcast size-1 dim is collapsed away, then broadcast with the new leading dim.
// CHECK-LABEL: func.func @expand
// CHECK: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1]] : tensor<3x1xf32> into tensor<3xf32>
// CHECK: linalg.broadcast ins(%[[C]] : tensor<3xf32>) outs(%{{.+}} : tensor<2x3x5xf32>) dimensions = [0, 2]
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x5xf32> {
  %0 = "aten.expand"(%x) {size = array<i64: 2, -1, 5>} : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

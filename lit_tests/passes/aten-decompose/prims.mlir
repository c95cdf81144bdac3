// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// collapse_view's `end` is inclusive: dims 1..3 of ?x3x4x5 become one of 60.
// CHECK-LABEL: func.func @collapse_view
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3x4x5xf32>)
// CHECK-DAG: [[C60:%.+]] = arith.constant 60 : index
// CHECK-DAG: [[D:%.+]] = tensor.dim %[[X]]
// CHECK: [[V:%.+]] = "aten.view"(%[[X]], [[D]], [[C60]]) {{.*}} -> tensor<?x60xf32>
// CHECK-NEXT: return [[V]]
func.func @collapse_view(%x: tensor<?x3x4x5xf32>) -> tensor<?x60xf32> {
  %0 = "prims.collapse_view"(%x) {start = 1 : i64, end = 3 : i64} : (tensor<?x3x4x5xf32>) -> tensor<?x60xf32>
  return %0 : tensor<?x60xf32>
}

// -----

// A dynamic dim in the collapsed group: the merged size is a product at run time.
// CHECK-LABEL: func.func @collapse_dynamic
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3x4xf32>)
// CHECK: [[D:%.+]] = tensor.dim %[[X]]
// CHECK-NEXT: [[N:%.+]] = arith.muli [[D]], %{{.+}} : index
// CHECK-NEXT: "aten.view"(%[[X]], [[N]], %{{.+}}) {{.*}} -> tensor<?x4xf32>
func.func @collapse_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x4xf32> {
  %0 = "prims.collapse"(%x) {start = 0 : i64, end = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Splitting a dynamic dim: the inner length is the size divided by outer_length.
// CHECK-LABEL: func.func @split_dynamic
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3xf32>)
// CHECK: [[D:%.+]] = tensor.dim %[[X]]
// CHECK-NEXT: [[I:%.+]] = arith.divsi [[D]], %{{.+}} : index
// CHECK-NEXT: "aten.view"(%[[X]], %{{.+}}, [[I]], %{{.+}}) {{.*}} -> tensor<2x?x3xf32>
func.func @split_dynamic(%x: tensor<?x3xf32>) -> tensor<2x?x3xf32> {
  %0 = "prims.split_dim"(%x) {dim = 0 : i64, outer_length = 2 : i64} : (tensor<?x3xf32>) -> tensor<2x?x3xf32>
  return %0 : tensor<2x?x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4x5xf32>)
// CHECK-NEXT: [[V:%.+]] = "aten.view"(%[[X]]) {size = array<i64: 1, 4, 5>}
// CHECK-NEXT: [[E:%.+]] = "aten.expand"([[V]]) {implicit = false, size = array<i64: 2, 4, 5>}
// CHECK-NEXT: return [[E]]
func.func @broadcast_in_dim(%x: tensor<4x5xf32>) -> tensor<2x4x5xf32> {
  %0 = "prims.broadcast_in_dim"(%x) {shape = array<i64: 2, 4, 5>, broadcast_dimensions = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @others
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<1x3x4xf32>)
// CHECK-NEXT: "aten.squeeze.dims"(%[[X]]) {dim = array<i64: 0>}
// CHECK-NEXT: "aten.permute"(%[[X]]) {dims = array<i64: 2, 0, 1>}
// CHECK-NEXT: "aten._to_copy"(%[[X]]) {dtype = f64, {{.*}}}
// CHECK-NEXT: "aten.alias"(%[[X]])
func.func @others(%x: tensor<1x3x4xf32>) -> (tensor<3x4xf32>, tensor<4x1x3xf32>, tensor<1x3x4xf64>, tensor<1x3x4xf32>) {
  %0 = "prims.squeeze"(%x) {dimensions = array<i64: 0>} : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
  %1 = "prims.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<1x3x4xf32>) -> tensor<4x1x3xf32>
  %2 = "prims.convert_element_type"(%x) {dtype = f64} : (tensor<1x3x4xf32>) -> tensor<1x3x4xf64>
  %3 = "prims.view_of"(%x) : (tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<4x1x3xf32>, tensor<1x3x4xf64>, tensor<1x3x4xf32>
}

// -----

// dynamo's `addcmul_` in optimizer steps: (a * b) + c, two roundings as the prim's eager kernel
// CHECK-LABEL: func.func @fma
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<4x5xf32>, %[[B:[^ :]+]]: tensor<f32>, %[[C:[^ :]+]]: tensor<4x5xf32>)
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Tensor"(%[[A]], %[[B]])
// CHECK-NEXT: [[S:%.+]] = "aten.add.Tensor"([[P]], %[[C]])
// CHECK-NEXT: return [[S]]
func.func @fma(%a: tensor<4x5xf32>, %b: tensor<f32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = "prims.fma"(%a, %b, %c) : (tensor<4x5xf32>, tensor<f32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// The scalar takes the result dtype (f32 here, from an i64 tensor and a float scalar).
// CHECK-LABEL: func.func @where_scalar_self
// CHECK-SAME: (%[[C:[^ :]+]]: tensor<4xi1>, %[[X:[^ :]+]]: tensor<4xi64>)
// CHECK-NEXT: [[F:%.+]] = "aten.full_like"(%[[X]]) {dtype = f32, fill_value = 2.500000e+00 : f64} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT: [[W:%.+]] = "aten.where.self"(%[[C]], [[F]], %[[X]]) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT: return [[W]]
func.func @where_scalar_self(%c: tensor<4xi1>, %x: tensor<4xi64>) -> tensor<4xf32> {
  %0 = "aten.where.ScalarSelf"(%c, %x) {self = 2.5 : f64} : (tensor<4xi1>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @rsub_scalar
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Scalar"(%{{.+}}) {other = -2 : i64}
// CHECK-NEXT: [[A:%.+]] = "aten.add.Scalar"([[M]]) {alpha = 1 : i64, other = 2.500000e+00 : f64}
// CHECK-NEXT: return [[A]]
func.func @rsub_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.rsub.Scalar"(%x) {other = 2.5 : f64, alpha = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: [[C:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f64, non_blocking = false} : (tensor<3x4xf32>) -> tensor<3x4xf64>
// CHECK-NEXT: [[S:%.+]] = "aten._softmax"([[C]]) {dim = 1 : i64, half_to_float = false}
// CHECK-NEXT: return [[S]]
  func.func @softmax(%arg0: tensor<3x4xf32>) -> tensor<3x4xf64> {
    %0 = "aten.softmax.int"(%arg0) {dim = 1 : i64, dtype = f64} : (tensor<3x4xf32>) -> tensor<3x4xf64>
    return %0 : tensor<3x4xf64>
  }

// -----

// softmax(q @ k^T * scale + causal mask) @ v with bmm over the flattened batch dims.
// CHECK-LABEL: func.func @sdpa
// CHECK-SAME: (%[[Q:[^ :]+]]: tensor<2x4x3x8xf32>, %[[K:[^ :]+]]: tensor<2x4x5x8xf32>, %[[V:[^ :]+]]: tensor<2x4x5x8xf32>)
// CHECK-NEXT: [[KT:%.+]] = "aten.permute"(%[[K]]) {dims = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT: [[QC:%.+]] = "aten.clone"(%[[Q]])
// CHECK-NEXT: [[QF:%.+]] = "aten.view"([[QC]]) {size = array<i64: 8, 3, 8>}
// CHECK-NEXT: [[KC:%.+]] = "aten.clone"([[KT]])
// CHECK-NEXT: [[KF:%.+]] = "aten.view"([[KC]]) {size = array<i64: 8, 8, 5>}
// CHECK-NEXT: [[S:%.+]] = "aten.bmm"([[QF]], [[KF]]) : (tensor<8x3x8xf32>, tensor<8x8x5xf32>) -> tensor<8x3x5xf32>
// CHECK-NEXT: [[S4:%.+]] = "aten.view"([[S]]) {size = array<i64: 2, 4, 3, 5>}
// CHECK-NEXT: [[SC:%.+]] = "aten.mul.Scalar"([[S4]]) {other = 0.35355339059327373 : f64}
// CHECK-NEXT: [[R:%.+]] = "aten.arange.start_step"() {dtype = i64, end = 3 : i64
// CHECK-NEXT: [[C:%.+]] = "aten.arange.start_step"() {dtype = i64, end = 5 : i64
// CHECK-NEXT: [[RU:%.+]] = "aten.unsqueeze"([[R]]) {dim = 1 : i64}
// CHECK-NEXT: [[TRIL:%.+]] = "aten.ge.Tensor"([[RU]], [[C]]) : (tensor<3x1xi64>, tensor<5xi64>) -> tensor<3x5xi1>
// CHECK-NEXT: [[ZERO:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 0.000000e+00 : f64}
// CHECK-NEXT: [[NINF:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 0xFFF0000000000000 : f64}
// CHECK-NEXT: [[MASK:%.+]] = "aten.where.self"([[TRIL]], [[ZERO]], [[NINF]]) : {{.*}} -> tensor<3x5xf32>
// CHECK-NEXT: [[MS:%.+]] = "aten.add.Tensor"([[SC]], [[MASK]])
// CHECK-NEXT: [[P:%.+]] = "aten._softmax"([[MS]]) {dim = -1 : i64, half_to_float = false}
// CHECK: [[O:%.+]] = "aten.bmm"
// CHECK-SAME: -> tensor<8x3x8xf32>
// CHECK-NEXT: [[O4:%.+]] = "aten.view"([[O]]) {size = array<i64: 2, 4, 3, 8>}
// CHECK: return
  func.func @sdpa(%arg0: tensor<2x4x3x8xf32>, %arg1: tensor<2x4x5x8xf32>, %arg2: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
    %0 = "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32>
    return %0 : tensor<2x4x3x8xf32>
  }

// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @full_dynamic
// CHECK-SAME: (%[[N:[^ :]+]]: index)
// CHECK: %[[C:.+]] = arith.constant 1.500000e+00 : f16
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x3xf16>
// CHECK: linalg.fill ins(%[[C]] : f16) outs(%[[E]] : tensor<?x3xf16>)
func.func @full_dynamic(%n: index) -> tensor<?x3xf16> {
  %c3 = arith.constant 3 : index
  %0 = "aten.full"(%n, %c3) {dtype = f16, fill_value = 1.500000e+00 : f64, operandSegmentSizes = array<i32: 2, 0, 0, 0, 0, 0>} : (index, index) -> tensor<?x3xf16>
  return %0 : tensor<?x3xf16>
}

// -----

// float -> int8 goes through int32, as on x86 (300.0 -> 44).
// CHECK-LABEL: func.func @to_int8
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: i8):
// CHECK-NEXT: %[[I:.+]] = arith.fptosi %[[IN]] : f32 to i32
// CHECK-NEXT: %[[T:.+]] = arith.trunci %[[I]] : i32 to i8
// CHECK-NEXT: linalg.yield %[[T]] : i8
func.func @to_int8(%x: tensor<4xf32>) -> tensor<4xi8> {
  %0 = "aten._to_copy"(%x) {dtype = i8} : (tensor<4xf32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// arange computes start + step * i in double for float32 and rounds once.
// CHECK-LABEL: func.func @arange
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<10xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: arith.sitofp %{{.+}} : i64 to f64
// CHECK: arith.mulf {{.*}} : f64
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.truncf %{{.+}} : f64 to f32
func.func @arange() -> tensor<10xf32> {
  %0 = "aten.arange.start_step"() {dtype = f32, end = 1.000000e+00 : f64, start = 0 : i64, step = 1.000000e-01 : f64} : () -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// The dtype left open by the factory is stated from the result type.
// CHECK-LABEL: func.func @ones
// CHECK-NEXT: [[F:%.+]] = "aten.full"() {dtype = f32, fill_value = 1 : i64, size = array<i64: 2, 3>} : () -> tensor<2x3xf32>
// CHECK-NEXT: return [[F]]
func.func @ones() -> tensor<2x3xf32> {
  %0 = "aten.ones"() {size = array<i64: 2, 3>} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @new_zeros
// CHECK-NEXT: "aten.full"() {dtype = i32, fill_value = 0 : i64, size = array<i64: 4>} : () -> tensor<4xi32>
func.func @new_zeros(%x: tensor<2xi32>) -> tensor<4xi32> {
  %0 = "aten.new_zeros"(%x) {size = array<i64: 4>} : (tensor<2xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @clamp_min
// CHECK-NEXT: "aten.clamp"(%{{.+}}) {min = 5.000000e-01 : f64} : (tensor<3xf32>) -> tensor<3xf32>
func.func @clamp_min(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.clamp_min"(%x) {min = 0.5 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

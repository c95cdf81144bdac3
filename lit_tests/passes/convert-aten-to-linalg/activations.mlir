// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// relu keeps NaN and -0.0: select(x < 0, 0, x), not max(x, 0).
// CHECK-LABEL: func.func @relu
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[LT:.+]] = arith.cmpf olt, %[[IN]], %[[Z:.+]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.select %[[LT]], %[[Z]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @relu(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "aten.relu"(%x) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @clamp_int
// CHECK: arith.maxsi
// CHECK-NEXT: arith.minsi
func.func @clamp_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "aten.clamp"(%x) {min = -1 : i64, max = 3 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @gelu
// CHECK: math.erf
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Omitted scalar arguments take their schema defaults (alpha = scale = input_scale = 1).
// CHECK-LABEL: func.func @elu_defaults
// CHECK: math.exp
// CHECK: arith.cmpf ole
func.func @elu_defaults(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.elu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @leaky_relu_default
// CHECK: arith.constant 0.00999999977 : f32
func.func @leaky_relu_default(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.leaky_relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

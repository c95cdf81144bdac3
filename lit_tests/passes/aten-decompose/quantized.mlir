// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// quantize: clamp(round(x * (1 / scale)) + zero_point), then the truncating cast; 1 / scale is
// folded in f64 as Python computes it.
// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4x?xf32>)
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"(%[[X]]) {{{.*}}other = 4.000000e+00 : f64}
// CHECK-NEXT: [[R:%.+]] = "aten.round"([[M]])
// CHECK-NEXT: [[A:%.+]] = "aten.add.Tensor"([[R]]) {{{.*}}other = 3 : i64}
// CHECK-NEXT: [[C:%.+]] = "aten.clamp"([[A]]) {max = 127 : i64, min = -128 : i64}
// CHECK-NEXT: [[Q:%.+]] = "aten._to_copy"([[C]]) {dtype = i8, {{.*}}} : (tensor<4x?xf32>) -> tensor<4x?xi8>
// CHECK-NEXT: return [[Q]]
func.func @quantize_per_tensor(%x: tensor<4x?xf32>) -> tensor<4x?xi8> {
  %0 = "quantized_decomposed.quantize_per_tensor"(%x) {scale = 2.500000e-01 : f64, zero_point = 3 : i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = i8} : (tensor<4x?xf32>) -> tensor<4x?xi8>
  return %0 : tensor<4x?xi8>
}

// -----

// A one-element scale of shape [1] becomes 0-d, so an f64 scale promotes like the Python float
// eager takes from `.item()`: the result stays f32.
// CHECK-LABEL: func.func @dequantize_per_tensor_tensor
// CHECK-SAME: (%[[Q:[^ :]+]]: tensor<4xui8>, %[[S:[^ :]+]]: tensor<1xf64>, %[[Z:[^ :]+]]: tensor<i64>)
// CHECK-NEXT: [[S0:%.+]] = "aten.view"(%[[S]]) {size = array<i64>} : (tensor<1xf64>) -> tensor<f64>
// CHECK-NEXT: [[F:%.+]] = "aten._to_copy"(%[[Q]]) {dtype = f32, {{.*}}} : (tensor<4xui8>) -> tensor<4xf32>
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"([[F]], %[[Z]])
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"([[D]], [[S0]]) : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
// CHECK-NEXT: return [[M]]
func.func @dequantize_per_tensor_tensor(%q: tensor<4xui8>, %s: tensor<1xf64>, %z: tensor<i64>) -> tensor<4xf32> {
  %0 = "quantized_decomposed.dequantize_per_tensor.tensor"(%q, %s, %z) {quant_min = 0 : i64, quant_max = 255 : i64, dtype = ui8} : (tensor<4xui8>, tensor<1xf64>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A bf16 input is quantized from f32; the per-channel parameters broadcast along `axis`.
// CHECK-LABEL: func.func @quantize_per_channel
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x3xbf16>, %[[S:[^ :]+]]: tensor<3xf32>, %[[Z:[^ :]+]]: tensor<3xi64>)
// CHECK-NEXT: [[F:%.+]] = "aten._to_copy"(%[[X]]) {dtype = f32, {{.*}}} : (tensor<2x3xbf16>) -> tensor<2x3xf32>
// CHECK-NEXT: [[SV:%.+]] = "aten.view"(%[[S]]) {size = array<i64: 1, 3>}
// CHECK-NEXT: [[ZV:%.+]] = "aten.view"(%[[Z]]) {size = array<i64: 1, 3>}
// CHECK-NEXT: [[I:%.+]] = "aten.reciprocal"([[SV]])
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"([[F]], [[I]])
// CHECK-NEXT: [[R:%.+]] = "aten.round"([[M]])
// CHECK-NEXT: [[A:%.+]] = "aten.add.Tensor"([[R]], [[ZV]])
// CHECK-NEXT: [[C:%.+]] = "aten.clamp"([[A]]) {max = 127 : i64, min = -128 : i64}
// CHECK-NEXT: [[Q:%.+]] = "aten._to_copy"([[C]]) {dtype = i8, {{.*}}}
// CHECK-NEXT: return [[Q]]
func.func @quantize_per_channel(%x: tensor<2x3xbf16>, %s: tensor<3xf32>, %z: tensor<3xi64>) -> tensor<2x3xi8> {
  %0 = "quantized_decomposed.quantize_per_channel"(%x, %s, %z) {axis = 1 : i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = i8} : (tensor<2x3xbf16>, tensor<3xf32>, tensor<3xi64>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// The zero point is subtracted in the integer type (i8 - i64 -> i64), then scaled to f32.
// CHECK-LABEL: func.func @dequantize_per_channel
// CHECK-SAME: (%[[Q:[^ :]+]]: tensor<2x3xi8>, %[[S:[^ :]+]]: tensor<2xf32>, %[[Z:[^ :]+]]: tensor<2xi64>)
// CHECK-NEXT: [[ZV:%.+]] = "aten.view"(%[[Z]]) {size = array<i64: 2, 1>}
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%[[Q]], [[ZV]]) {{.*}} -> tensor<2x3xi64>
// CHECK-NEXT: [[SV:%.+]] = "aten.view"(%[[S]]) {size = array<i64: 2, 1>}
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"([[D]], [[SV]]) : (tensor<2x3xi64>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return [[M]]
func.func @dequantize_per_channel(%q: tensor<2x3xi8>, %s: tensor<2xf32>, %z: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = "quantized_decomposed.dequantize_per_channel"(%q, %s, %z) {axis = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = i8, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x3xi8>, tensor<2xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

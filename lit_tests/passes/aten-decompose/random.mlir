// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// rand_like -> rand of the input's sizes (a `?` dim from tensor.dim).
// CHECK-LABEL: func.func @rand_like
// CHECK: "aten.rand"
// CHECK-NOT: "aten.rand_like"
// CHECK: return
func.func @rand_like(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "aten.rand_like"(%arg0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// randn_like -> randn in the requested dtype.
// CHECK-LABEL: func.func @randn_like
// CHECK: "aten.randn"
// CHECK-NOT: "aten.randn_like"
// CHECK: return
func.func @randn_like(%arg0: tensor<3x5xf32>) -> tensor<3x5xf64> {
  %0 = "aten.randn_like"(%arg0) {dtype = f64} : (tensor<3x5xf32>) -> tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}

// -----

// randint_like: floor of a scaled float64 uniform sample, clamped below high.
// CHECK-LABEL: func.func @randint_like
// CHECK: "aten.rand"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.floor"
// CHECK: "aten.clamp"
// CHECK: "aten.add.Scalar"
// CHECK: "aten._to_copy"
// CHECK-NOT: "aten.randint_like.low_dtype"
// CHECK: return
func.func @randint_like(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.randint_like.low_dtype"(%arg0) {high = 9 : i64, low = 2 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// normal_functional: randn * std + mean.
// CHECK-LABEL: func.func @normal_functional
// CHECK: "aten.randn"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Scalar"
// CHECK-NOT: "aten.normal_functional"
// CHECK: return
func.func @normal_functional(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.normal_functional"(%arg0) {mean = 1.000000e+00 : f64, std = 2.000000e+00 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// normal.Tensor_Tensor: randn of the broadcast shape * std + mean.
// CHECK-LABEL: func.func @normal_tensor_tensor
// CHECK: "aten.randn"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.normal.Tensor_Tensor"
// CHECK: return
func.func @normal_tensor_tensor(%arg0: tensor<3x5xf32>, %arg1: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.normal.Tensor_Tensor"(%arg0, %arg1) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// uniform: from + u * (to - from).
// CHECK-LABEL: func.func @uniform
// CHECK: "aten.rand"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Scalar"
// CHECK-NOT: "aten.uniform"
// CHECK: return
func.func @uniform(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.uniform"(%arg0) {from = -1.000000e+00 : f64, to = 3.000000e+00 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// cauchy: median + sigma * tan(pi * (u - 1/2)).
// CHECK-LABEL: func.func @cauchy
// CHECK: "aten.rand"
// CHECK: "aten.sub.Scalar"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.tan"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Scalar"
// CHECK-NOT: "aten.cauchy"
// CHECK: return
func.func @cauchy(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.cauchy"(%arg0) {median = 5.000000e-01 : f64, sigma = 2.000000e+00 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// exponential: -log1p(-u) / lambd.
// CHECK-LABEL: func.func @exponential
// CHECK: "aten.rand"
// CHECK: "aten.neg"
// CHECK: "aten.log1p"
// CHECK: "aten.neg"
// CHECK: "aten.div.Scalar"
// CHECK-NOT: "aten.exponential"
// CHECK: return
func.func @exponential(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.exponential"(%arg0) {lambd = 3.000000e+00 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// geometric: ceil(log1p(-u) / log1p(-p)), at least 1.
// CHECK-LABEL: func.func @geometric
// CHECK: "aten.rand"
// CHECK: "aten.neg"
// CHECK: "aten.log1p"
// CHECK: "aten.div.Scalar"
// CHECK: "aten.ceil"
// CHECK: "aten.clamp"
// CHECK-NOT: "aten.geometric"
// CHECK: return
func.func @geometric(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.geometric"(%arg0) {p = 2.500000e-01 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// log_normal: exp(randn * std + mean).
// CHECK-LABEL: func.func @log_normal
// CHECK: "aten.randn"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.exp"
// CHECK-NOT: "aten.log_normal"
// CHECK: return
func.func @log_normal(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.log_normal"(%arg0) {mean = 0.000000e+00 : f64, std = 5.000000e-01 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// bernoulli.p: u < p, in the input's dtype.
// CHECK-LABEL: func.func @bernoulli_p
// CHECK: "aten.rand"
// CHECK: "aten.lt.Scalar"
// CHECK: "aten._to_copy"
// CHECK-NOT: "aten.bernoulli.p"
// CHECK: return
func.func @bernoulli_p(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.bernoulli.p"(%arg0) {p = 3.000000e-01 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// dropout stops at the core native_dropout when training.
// CHECK-LABEL: func.func @dropout
// CHECK: "aten.native_dropout"
// CHECK-NOT: "aten.dropout"
// CHECK: return
func.func @dropout(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.dropout"(%arg0) {p = 3.000000e-01 : f64, train = true} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// feature_alpha_dropout: one Bernoulli(1 - p) per (N, C), ATen's affine correction.
// CHECK-LABEL: func.func @feature_alpha_dropout
// CHECK: "aten.rand"
// CHECK: "aten.lt.Scalar"
// CHECK: "aten._to_copy"
// CHECK: "aten.sub.Scalar"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK-NOT: "aten.feature_alpha_dropout"
// CHECK: return
func.func @feature_alpha_dropout(%arg0: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %0 = "aten.feature_alpha_dropout"(%arg0) {p = 2.000000e-01 : f64, train = true} : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// native_dropout_backward: grad * (mask * scale).
// CHECK-LABEL: func.func @native_dropout_backward
// CHECK: "aten._to_copy"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.mul.Tensor"
// CHECK-NOT: "aten.native_dropout_backward"
// CHECK: return
func.func @native_dropout_backward(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xi1>) -> tensor<3x5xf32> {
  %0 = "aten.native_dropout_backward"(%arg0, %arg1) {scale = 2.000000e+00 : f64} : (tensor<3x5xf32>, tensor<3x5xi1>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// rrelu in eval mode is leaky_relu with the mean slope.
// CHECK-LABEL: func.func @rrelu
// CHECK: "aten.leaky_relu"
// CHECK-NOT: "aten.rrelu"
// CHECK: return
func.func @rrelu(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.rrelu"(%arg0) {lower = 1.250000e-01 : f64, training = false, upper = 0.33333333333333331 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// rrelu_with_noise_functional in training: uniform slopes where x <= 0, returned as the noise.
// CHECK-LABEL: func.func @rrelu_with_noise_functional
// CHECK: "aten.rand"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.le.Scalar"
// CHECK: "aten.full_like"
// CHECK: "aten.where.self"
// CHECK: "aten.mul.Tensor"
// CHECK-NOT: "aten.rrelu_with_noise_functional"
// CHECK: return
func.func @rrelu_with_noise_functional(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %0:2 = "aten.rrelu_with_noise_functional"(%arg0, %arg1) {lower = 1.250000e-01 : f64, training = true, upper = 0.33333333333333331 : f64} : (tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>)
  return %0#0, %0#1 : tensor<3x5xf32>, tensor<3x5xf32>
}

// -----

// multinomial without replacement: topk of p / E, E ~ Exp(1).
// CHECK-LABEL: func.func @multinomial
// CHECK: "aten.rand"
// CHECK: "aten.neg"
// CHECK: "aten.log1p"
// CHECK: "aten.neg"
// CHECK: "aten.div.Tensor"
// CHECK: "aten.topk"
// CHECK-NOT: "aten.multinomial"
// CHECK: return
func.func @multinomial(%arg0: tensor<3x5xf32>) -> tensor<3x2xi64> {
  %0 = "aten.multinomial"(%arg0) {num_samples = 2 : i64, replacement = false} : (tensor<3x5xf32>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

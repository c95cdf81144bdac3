// RUN: aten-opt %s --split-input-file --verify-diagnostics -p aten-check-target
// RUN: aten-opt %s --split-input-file -p 'aten-check-target{keep=aten.silu,aten.var_mean.correction}'

func.func @outside(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'aten.silu' op is outside the target set 'core'}}
  %0 = "aten.silu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "aten.relu"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// var_mean is kept whole by default (one pass over the data).
func.func @kept(%x: tensor<3xf32>) -> tensor<f32> {
  %0:2 = "aten.var_mean.correction"(%x) {keepdim = false} : (tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  return %0#0 : tensor<f32>
}

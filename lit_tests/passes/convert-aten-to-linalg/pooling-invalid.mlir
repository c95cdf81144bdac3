// RUN: aten-opt %s -p 'convert-aten-to-linalg{allow-fallback}' --verify-diagnostics --split-input-file

// Parameters eager rejects (ATen's pool2d_shape_check): an error at the op, no -inf windows.
func.func @dilation0(%x: tensor<1x1x5x5xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>) {
  // expected-error @+1 {{dilation should be greater than zero}}
  %0:2 = "aten.max_pool2d_with_indices"(%x) {ceil_mode = false, dilation = array<i64: 0, 0>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return %0#0, %0#1 : tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>
}

// -----

func.func @padding_over_half(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{pad should be at most half of kernel size}}
  %0 = "aten.avg_pool2d"(%x) {ceil_mode = false, count_include_pad = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 2, 2>, stride = array<i64: 1, 1>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @kernel_over_input(%x: tensor<1x1x5x5xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>) {
  // expected-error @+1 {{output size -1 is too small}}
  %0:2 = "aten.max_pool2d_with_indices"(%x) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 7, 7>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>)
  return %0#0, %0#1 : tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>
}

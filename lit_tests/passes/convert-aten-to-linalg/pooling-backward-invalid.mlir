// RUN: aten-opt %s -p 'convert-aten-to-linalg{allow-fallback}' --verify-diagnostics --split-input-file

// Parameters eager's avg_pool3d_backward rejects (ATen's pool3d_shape_check, divisor check):
// an error at the op, not a gradient eager would not give.
func.func @input_under_kernel(%g: tensor<1x2x1x3x3xf32>, %x: tensor<1x2x2x5x5xf32>) -> tensor<1x2x2x5x5xf32> {
  // expected-error @+1 {{smaller than kernel size}}
  %0 = "aten.avg_pool3d_backward"(%g, %x) {ceil_mode = false, count_include_pad = true, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x1x3x3xf32>, tensor<1x2x2x5x5xf32>) -> tensor<1x2x2x5x5xf32>
  return %0 : tensor<1x2x2x5x5xf32>
}

// -----

func.func @divisor_zero(%g: tensor<1x2x3x3x3xf32>, %x: tensor<1x2x5x5x5xf32>) -> tensor<1x2x5x5x5xf32> {
  // expected-error @+1 {{divisor must be not zero}}
  %0 = "aten.avg_pool3d_backward"(%g, %x) {ceil_mode = false, count_include_pad = true, divisor_override = 0 : i64, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, stride = array<i64: 2, 2, 2>} : (tensor<1x2x3x3x3xf32>, tensor<1x2x5x5x5xf32>) -> tensor<1x2x5x5x5xf32>
  return %0 : tensor<1x2x5x5x5xf32>
}

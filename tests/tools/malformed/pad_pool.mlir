func.func @main(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32> {
  %0 = "aten.constant_pad_nd"(%x) {pad = array<i64: 1, 1, 1, 1>, value = 0.0 : f64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x8x8xf32>
  %1 = "aten.avg_pool2d"(%0) {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

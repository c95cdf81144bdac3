func.func @main(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %v: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %0 = "aten._unsafe_index_put"(%x, %i, %v) {accumulate = true, indices = array<i1: true>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
  %1 = "aten.clamp"(%0) {min = -1.0 : f64, max = 3.0 : f64} : (tensor<5x3xf32>) -> tensor<5x3xf32>
  return %1 : tensor<5x3xf32>
}

func.func @main(%x: tensor<?x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %wt = "aten.t"(%w) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = "aten.addmm"(%b, %x, %wt) {alpha = 1 : i64, beta = 1 : i64} : (tensor<4xf32>, tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %r = "aten.relu"(%y) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = "aten._softmax"(%r) {dim = 1 : i64, half_to_float = false} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

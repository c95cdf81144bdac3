func.func private @helper(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi1>) {
  %0 = call @helper(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "aten.add.Tensor"(%0, %y) {alpha = 1 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "aten.gt.Tensor"(%1, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %1, %2 : tensor<3xf32>, tensor<3xi1>
}

// RUN: aten-opt %s -p aten-as-strided-storage --verify-diagnostics

// The diagonal of a 4x5 lives in 20 elements; a window reaching element 21 is out of storage.
func.func @outside_storage(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = "aten.diagonal"(%x) {offset = 0 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<4x5xf32>) -> tensor<4xf32>
  // expected-error @+1 {{'aten.as_strided' op on a view: setStorage}}
  %1 = "aten.as_strided"(%0) {size = array<i64: 4>, storage_offset = 3 : i64, stride = array<i64: 6>} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

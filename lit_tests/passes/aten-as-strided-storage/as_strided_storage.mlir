// RUN: aten-opt %s --split-input-file -p aten-as-strided-storage | FileCheck %s

// A slice starts 8 elements into its base's storage: the as_strided reads the base, and its
// missing offset becomes the slice's (8). The argument is marked: its storage is read.
// CHECK-LABEL: func.func @after_slice
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<3x2x4xf32> {aten.reads_storage})
// CHECK: "aten.as_strided"(%[[X]]) {size = array<i64: 2, 2>, storage_offset = 8 : i64, stride = array<i64: 8, 1>}
func.func @after_slice(%x: tensor<3x2x4xf32>) -> tensor<2x2xf32> {
  %0 = "aten.slice.Tensor"(%x) {dim = 0 : i64, start = 1 : i64, end = 3 : i64, step = 1 : i64} : (tensor<3x2x4xf32>) -> tensor<2x2x4xf32>
  %1 = "aten.as_strided"(%0) {size = array<i64: 2, 2>, stride = array<i64: 8, 1>} : (tensor<2x2x4xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// A channels_last copy is stored NHWC: read as its permute into that order, copied.
// CHECK-LABEL: func.func @channels_last
// CHECK: [[C:%.+]] = "aten.clone"(%{{.+}}) {memory_format = "channels_last"}
// CHECK: [[P:%.+]] = "aten.permute"([[C]]) {dims = array<i64: 0, 2, 3, 1>}
// CHECK: [[K:%.+]] = "aten.clone"([[P]])
// CHECK: "aten.as_strided"([[K]]) {size = array<i64: 1, 4, 5, 3>, storage_offset = 0 : i64, stride = array<i64: 60, 15, 3, 1>}
func.func @channels_last(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32> {
  %0 = "aten.clone"(%x) {memory_format = "channels_last"} : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %1 = "aten.as_strided"(%0) {size = array<i64: 1, 4, 5, 3>, storage_offset = 0 : i64, stride = array<i64: 60, 15, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  return %1 : tensor<1x4x5x3xf32>
}

// -----

// A plain as_strided of a contiguous input with its offset is left alone; the argument is still
// marked, since the caller's tensor must be contiguous from the start of its storage.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<10xf32> {aten.reads_storage})
// CHECK-NEXT: "aten.as_strided"(%[[X]]) {size = array<i64: 2>, storage_offset = 2 : i64, stride = array<i64: 3>}
func.func @plain(%x: tensor<10xf32>) -> tensor<2xf32> {
  %0 = "aten.as_strided"(%x) {size = array<i64: 2>, storage_offset = 2 : i64, stride = array<i64: 3>} : (tensor<10xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: [[P:%.+]] = "aten.constant_pad_nd"(%[[X]]) {pad = array<i64: 1, 2>, value = 1.500000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
// CHECK-NEXT: return [[P]]
func.func @pad_constant(%x: tensor<2x3x4xf32>) -> tensor<2x3x7xf32> {
  %0 = "aten.pad"(%x) {mode = "constant", pad = array<i64: 1, 2>, value = 1.500000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// Two padded dims: the 2-d reflection kernel (core).
// CHECK-LABEL: func.func @pad_reflect
// CHECK-NEXT: [[P:%.+]] = "aten.reflection_pad2d"(%{{.+}}) {padding = array<i64: 1, 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<2x5x6xf32>
// CHECK-NEXT: return [[P]]
func.func @pad_reflect(%x: tensor<2x3x4xf32>) -> tensor<2x5x6xf32> {
  %0 = "aten.pad"(%x) {mode = "reflect", pad = array<i64: 1, 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

// One padded dim: replication_pad1d, not core, is replication_pad2d on a unit height.
// CHECK-LABEL: func.func @pad_replicate
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%{{.+}}) {dim = -2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1x4xf32>
// CHECK-NEXT: [[P:%.+]] = "aten.replication_pad2d"([[U]]) {padding = array<i64: 2, 1, 0, 0>} : (tensor<2x3x1x4xf32>) -> tensor<2x3x1x7xf32>
// CHECK-NEXT: [[S:%.+]] = "aten.squeeze.dims"([[P]]) {dim = array<i64: 2>} : (tensor<2x3x1x7xf32>) -> tensor<2x3x7xf32>
// CHECK-NEXT: return [[S]]
// CHECK-NOT: replication_pad1d
func.func @pad_replicate(%x: tensor<2x3x4xf32>) -> tensor<2x3x7xf32> {
  %0 = "aten.pad"(%x) {mode = "replicate", pad = array<i64: 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// Circular: the tail, the input, the head, concatenated (a dynamic batch dim is no obstacle).
// CHECK-LABEL: func.func @pad_circular
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3x4xf32>)
// CHECK-NEXT: [[T:%.+]] = "aten.slice.Tensor"(%[[X]]) {dim = 2 : i64, end = 4 : i64, start = 3 : i64, step = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x3x1xf32>
// CHECK-NEXT: [[H:%.+]] = "aten.slice.Tensor"(%[[X]]) {dim = 2 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x3x2xf32>
// CHECK-NEXT: [[C:%.+]] = "aten.cat"([[T]], %[[X]], [[H]]) {dim = 2 : i64
// CHECK-SAME: -> tensor<?x3x7xf32>
// CHECK-NEXT: return [[C]]
func.func @pad_circular(%x: tensor<?x3x4xf32>) -> tensor<?x3x7xf32> {
  %0 = "aten.pad"(%x) {mode = "circular", pad = array<i64: 1, 2>} : (tensor<?x3x4xf32>) -> tensor<?x3x7xf32>
  return %0 : tensor<?x3x7xf32>
}

// -----

// A negative pad crops first; the wrap then reads the cropped tensor.
// CHECK-LABEL: func.func @pad_circular_negative
// CHECK-NEXT: [[K:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 2 : i64, end = 4 : i64, start = 1 : i64, step = 1 : i64}
// CHECK-NEXT: [[H:%.+]] = "aten.slice.Tensor"([[K]]) {dim = 2 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: "aten.cat"([[K]], [[H]]) {dim = 2 : i64
func.func @pad_circular_negative(%x: tensor<2x3x4xf32>) -> tensor<2x3x5xf32> {
  %0 = "aten._pad_circular"(%x) {pad = array<i64: -1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// at::padding_mode: 0 reflect, 1 replicate, 2 circular, 3 constant.
// CHECK-LABEL: func.func @pad_enum
// CHECK-NEXT: "aten.reflection_pad1d"(%{{.+}}) {padding = array<i64: 1, 2>}
func.func @pad_enum(%x: tensor<2x3x4xf32>) -> tensor<2x3x7xf32> {
  %0 = "aten._pad_enum"(%x) {mode = 0 : i64, pad = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// CHECK-LABEL: func.func @replication_pad1d
// CHECK: "aten.replication_pad2d"(%{{.+}}) {padding = array<i64: 2, 3, 0, 0>}
// CHECK-NOT: replication_pad1d
func.func @replication_pad1d(%x: tensor<3x4xi64>) -> tensor<3x9xi64> {
  %0 = "aten.replication_pad1d"(%x) {padding = array<i64: 2, 3>} : (tensor<3x4xi64>) -> tensor<3x9xi64>
  return %0 : tensor<3x9xi64>
}

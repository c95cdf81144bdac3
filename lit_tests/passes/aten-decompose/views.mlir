// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3x4xf32>)
// CHECK-NEXT: [[P:%.+]] = "aten.permute"(%[[X]]) {dims = array<i64: 2, 1, 0>} : (tensor<?x3x4xf32>) -> tensor<4x3x?xf32>
// CHECK-NEXT: return [[P]]
func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<4x3x?xf32> {
  %0 = "aten.transpose.int"(%x) {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<?x3x4xf32>) -> tensor<4x3x?xf32>
  return %0 : tensor<4x3x?xf32>
}

// -----

// CHECK-LABEL: func.func @t
// CHECK-NEXT: [[P:%.+]] = "aten.permute"(%{{.+}}) {dims = array<i64: 1, 0>} : (tensor<3x4xi32>) -> tensor<4x3xi32>
// CHECK-NEXT: return [[P]]
func.func @t(%x: tensor<3x4xi32>) -> tensor<4x3xi32> {
  %0 = "aten.t"(%x) : (tensor<3x4xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

// CHECK-LABEL: func.func @unsafe_view
// CHECK-NEXT: [[V:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: return [[V]]
func.func @unsafe_view(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = "aten._unsafe_view"(%x) {size = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// The dynamic batch dim is read at run time; the flattened static dims fold to 12. flatten is a
// reshape in ATen: an input not provably contiguous is cloned first.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3x4xf32>)
// CHECK-DAG: [[C12:%.+]] = arith.constant 12 : index
// CHECK-DAG: [[C0:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[D:%.+]] = tensor.dim %[[X]], [[C0]]
// CHECK-NEXT: [[C:%.+]] = "aten.clone"(%[[X]]) {memory_format = "contiguous_format"}
// CHECK-NEXT: [[V:%.+]] = "aten.view"([[C]], [[D]], [[C12]]) {operandSegmentSizes = array<i32: 1, 2>} : (tensor<?x3x4xf32>, index, index) -> tensor<?x12xf32>
// CHECK-NEXT: return [[V]]
func.func @flatten(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = "aten.flatten.using_ints"(%x) {start_dim = 1 : i64, end_dim = -1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// CHECK-LABEL: func.func @split
// CHECK-NEXT: [[S:%.+]]:3 = "aten.split_with_sizes"(%{{.+}}) {dim = 2 : i64, split_sizes = array<i64: 64, 64, 64>}
// CHECK-NEXT: return [[S]]#0, [[S]]#1, [[S]]#2
func.func @split(%x: tensor<?x16x192xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<?x16x64xf32>) {
  %0:3 = "aten.split.Tensor"(%x) {split_size = 64 : i64, dim = 2 : i64} : (tensor<?x16x192xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<?x16x64xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<?x16x64xf32>
}

// -----

// The last piece of a dynamic dim takes the remainder, computed at run time.
// CHECK-LABEL: func.func @split_dynamic
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x4xf32>)
// CHECK-DAG: [[C2:%.+]] = arith.constant 2 : index
// CHECK-DAG: [[C0:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[D:%.+]] = tensor.dim %[[X]], [[C0]]
// CHECK-NEXT: [[R:%.+]] = arith.subi [[D]], [[C2]] : index
// CHECK-NEXT: [[S:%.+]]:2 = "aten.split_with_sizes"(%[[X]], [[C2]], [[R]]) {dim = 0 : i64, operandSegmentSizes = array<i32: 1, 2, 0>} : (tensor<?x4xf32>, index, index) -> (tensor<2x4xf32>, tensor<?x4xf32>)
func.func @split_dynamic(%x: tensor<?x4xf32>) -> (tensor<2x4xf32>, tensor<?x4xf32>) {
  %0:2 = "aten.split.Tensor"(%x) {split_size = 2 : i64, dim = 0 : i64} : (tensor<?x4xf32>) -> (tensor<2x4xf32>, tensor<?x4xf32>)
  return %0#0, %0#1 : tensor<2x4xf32>, tensor<?x4xf32>
}

// -----

// Only the static size-1 dims are squeezed (the op's type says the `?` dim stays).
// CHECK-LABEL: func.func @squeeze
// CHECK-NEXT: [[S:%.+]] = "aten.squeeze.dims"(%{{.+}}) {dim = array<i64: 0, 2>} : (tensor<1x3x1x?xf32>) -> tensor<3x?xf32>
// CHECK-NEXT: return [[S]]
func.func @squeeze(%x: tensor<1x3x1x?xf32>) -> tensor<3x?xf32> {
  %0 = "aten.squeeze"(%x) : (tensor<1x3x1x?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// CHECK-LABEL: func.func @unbind
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x?xf32>)
// CHECK-NEXT: [[A:%.+]] = "aten.select.int"(%[[X]]) {dim = 0 : i64, index = 0 : i64} : (tensor<2x?xf32>) -> tensor<?xf32>
// CHECK-NEXT: [[B:%.+]] = "aten.select.int"(%[[X]]) {dim = 0 : i64, index = 1 : i64} : (tensor<2x?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return [[A]], [[B]]
func.func @unbind(%x: tensor<2x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0:2 = "aten.unbind.int"(%x) {dim = 0 : i64} : (tensor<2x?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
  return %0#0, %0#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @expand_as
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<1x4xf32>, %[[Y:[^ :]+]]: tensor<?x4xf32>)
// CHECK-DAG: [[C4:%.+]] = arith.constant 4 : index
// CHECK-DAG: [[C0:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[D:%.+]] = tensor.dim %[[Y]], [[C0]]
// CHECK-NEXT: [[E:%.+]] = "aten.expand"(%[[X]], [[D]], [[C4]]) {implicit = false, operandSegmentSizes = array<i32: 1, 2, 0>} : (tensor<1x4xf32>, index, index) -> tensor<?x4xf32>
// CHECK-NEXT: return [[E]]
func.func @expand_as(%x: tensor<1x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "aten.expand_as"(%x, %y) : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @view_copy
// CHECK-NEXT: [[V:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT: return [[V]]
func.func @view_copy(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = "aten.view_copy"(%x) {size = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK-LABEL: func.func @stack
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<3xf32>, %[[Y:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[A:%.+]] = "aten.unsqueeze"(%[[X]]) {dim = 1 : i64} : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: [[B:%.+]] = "aten.unsqueeze"(%[[Y]]) {dim = 1 : i64} : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: [[C:%.+]] = "aten.cat"([[A]], [[B]]) {dim = 1 : i64, operandSegmentSizes = array<i32: 2, 0>} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return [[C]]
func.func @stack(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3x2xf32> {
  %0 = "aten.stack"(%x, %y) {dim = 1 : i64, operandSegmentSizes = array<i32: 2, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @rot90
// CHECK-NEXT: [[F:%.+]] = "aten.flip"(%{{.+}}) {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: [[P:%.+]] = "aten.permute"([[F]]) {dims = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return [[P]]
func.func @rot90(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "aten.rot90"(%x) {k = 1 : i64, dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

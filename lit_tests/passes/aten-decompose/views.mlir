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

// -----

// roll by a runtime size: Python's modulo on index values, then two slices and a cat (never
// as_strided).
// CHECK-LABEL: func.func @roll
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x?xf32>)
// CHECK: [[N:%.+]] = tensor.dim %[[X]]
// CHECK-NEXT: [[R:%.+]] = arith.remsi %{{.+}}, [[N]] : index
// CHECK-NEXT: [[A:%.+]] = arith.addi [[R]], [[N]] : index
// CHECK-NEXT: [[S:%.+]] = arith.remsi [[A]], [[N]] : index
// CHECK-NEXT: [[CUT:%.+]] = arith.subi [[N]], [[S]] : index
// CHECK-NEXT: [[T:%.+]] = "aten.slice.Tensor"(%[[X]], [[CUT]], [[N]])
// CHECK-NEXT: [[H:%.+]] = "aten.slice.Tensor"(%[[X]], [[CUT]])
// CHECK-NEXT: [[C:%.+]] = "aten.cat"([[T]], [[H]]) {dim = 1 : i64
// CHECK-NEXT: return [[C]]
// CHECK-NOT: as_strided
func.func @roll(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "aten.roll"(%x) {dims = array<i64: 1>, shifts = array<i64: 2>} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @fftshift
// CHECK-NEXT: [[T:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 0 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64}
// CHECK-NEXT: [[H:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: "aten.cat"([[T]], [[H]])
func.func @fftshift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.fft_fftshift"(%x) {dim = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @tile
// CHECK-NEXT: "aten.repeat"(%{{.+}}) {repeats = array<i64: 1, 3>} : (tensor<2x5xf32>) -> tensor<2x15xf32>
func.func @tile(%x: tensor<2x5xf32>) -> tensor<2x15xf32> {
  %0 = "aten.tile"(%x) {dims = array<i64: 3>} : (tensor<2x5xf32>) -> tensor<2x15xf32>
  return %0 : tensor<2x15xf32>
}

// -----

// CHECK-LABEL: func.func @repeat_interleave
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%{{.+}}) {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x1x5xf32>
// CHECK-NEXT: [[E:%.+]] = "aten.expand"([[U]]) {implicit = false, size = array<i64: 2, 2, 5>}
// CHECK-NEXT: [[C:%.+]] = "aten.clone"([[E]]) {memory_format = "contiguous_format"}
// CHECK-NEXT: [[V:%.+]] = "aten.view"([[C]]) {size = array<i64: 4, 5>} : (tensor<2x2x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: return [[V]]
func.func @repeat_interleave(%x: tensor<2x5xf32>) -> tensor<4x5xf32> {
  %0 = "aten.repeat_interleave.self_int"(%x) {dim = 0 : i64, repeats = 2 : i64} : (tensor<2x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func.func @diff
// CHECK-NEXT: [[HI:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 1 : i64, end = 5 : i64, start = 1 : i64, step = 1 : i64}
// CHECK-NEXT: [[LO:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 1 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"([[HI]], [[LO]])
// CHECK-NEXT: return [[D]]
func.func @diff(%x: tensor<2x5xf32>) -> tensor<2x4xf32> {
  %0 = "aten.diff"(%x) {dim = 1 : i64, n = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x5xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @sum_to_size
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"(%{{.+}}) {dim = array<i64: 0>, dtype = f32, keepdim = true} : (tensor<2x6xf32>) -> tensor<1x6xf32>
// CHECK-NEXT: return [[S]]
func.func @sum_to_size(%x: tensor<2x6xf32>) -> tensor<1x6xf32> {
  %0 = "aten.sum_to_size"(%x) {size = array<i64: 1, 6>} : (tensor<2x6xf32>) -> tensor<1x6xf32>
  return %0 : tensor<1x6xf32>
}

// -----

// CHECK-LABEL: func.func @unsafe_split
// CHECK-NEXT: [[S:%.+]]:2 = "aten.split_with_sizes"(%{{.+}}) {dim = 1 : i64, split_sizes = array<i64: 3, 3>}
// CHECK-NEXT: return [[S]]#0, [[S]]#1
func.func @unsafe_split(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0:2 = "aten.unsafe_split.Tensor"(%x) {dim = 1 : i64, split_size = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Constant spacing: (y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx, ATen's formula.
// CHECK-LABEL: func.func @trapezoid_dx
// CHECK-NEXT: [[F:%.+]] = "aten.select.int"(%{{.+}}) {dim = 1 : i64, index = 0 : i64}
// CHECK-NEXT: [[L:%.+]] = "aten.select.int"(%{{.+}}) {dim = 1 : i64, index = -1 : i64}
// CHECK-NEXT: [[E:%.+]] = "aten.add.Tensor"([[F]], [[L]])
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"(%{{.+}}) {dim = array<i64: 1>, keepdim = false}
// CHECK-NEXT: [[H:%.+]] = "aten.mul.Scalar"([[E]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"([[S]], [[H]])
// CHECK-NEXT: [[R:%.+]] = "aten.mul.Scalar"([[D]]) {other = 2.500000e-01 : f64}
// CHECK-NEXT: return [[R]]
func.func @trapezoid_dx(%y: tensor<2x6xf32>) -> tensor<2xf32> {
  %0 = "aten.trapezoid.dx"(%y) {dim = 1 : i64, dx = 2.500000e-01 : f64} : (tensor<2x6xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @atleast_2d
// CHECK-NEXT: "aten.unsqueeze"(%{{.+}}) {dim = 0 : i64} : (tensor<3xf32>) -> tensor<1x3xf32>
func.func @atleast_2d(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  %0 = "aten.atleast_2d"(%x) : (tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

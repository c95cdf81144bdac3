// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// tril keeps `j - i <= diagonal` with a where (NaN above the band becomes 0, never NaN * 0); the
// dynamic row count is read at run time.
// CHECK-LABEL: func.func @tril
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x4xf32>)
// CHECK: [[D:%.+]] = tensor.dim %[[X]]
// CHECK-NEXT: [[I:%.+]] = "aten.arange.start_step"([[D]]) {{.*}} : (index) -> tensor<?xi64>
// CHECK-NEXT: [[J:%.+]] = "aten.arange.start_step"() {dtype = i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: [[O:%.+]] = "aten.sub.Tensor"
// CHECK-NEXT: [[M:%.+]] = "aten.le.Scalar"([[O]]) {other = 1 : i64} : (tensor<?x4xi64>) -> tensor<?x4xi1>
// CHECK-NEXT: [[Z:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: [[W:%.+]] = "aten.where.self"([[M]], %[[X]], [[Z]])
// CHECK-NEXT: return [[W]]
func.func @tril(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "aten.tril"(%x) {diagonal = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @triu
// CHECK: "aten.ge.Scalar"(%{{.+}}) {other = -1 : i64}
// CHECK: "aten.where.self"
// CHECK-NOT: aten.triu
func.func @triu(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %0 = "aten.triu"(%x) {diagonal = -1 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// The last dim padded by |offset|, laid along the columns (offset < 0), masked to the diagonal,
// and its two dims moved to dim1 = 0, dim2 = 2.
// CHECK-LABEL: func.func @diag_embed
// CHECK-NEXT: [[P:%.+]] = "aten.constant_pad_nd"(%{{.+}}) {pad = array<i64: 0, 1>, value = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"([[P]]) {dim = -2 : i64} : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
// CHECK: [[E:%.+]] = "aten.eq.Scalar"(%{{.+}}) {other = -1 : i64} : (tensor<4x4xi64>) -> tensor<4x4xi1>
// CHECK: [[W:%.+]] = "aten.where.self"([[E]], [[U]], %{{.+}}) : (tensor<4x4xi1>, tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
// CHECK-NEXT: [[R:%.+]] = "aten.permute"([[W]]) {dims = array<i64: 1, 0, 2>} : (tensor<2x4x4xf32>) -> tensor<4x2x4xf32>
// CHECK-NEXT: return [[R]]
func.func @diag_embed(%x: tensor<2x3xf32>) -> tensor<4x2x4xf32> {
  %0 = "aten.diag_embed"(%x) {dim1 = 0 : i64, dim2 = 2 : i64, offset = -1 : i64} : (tensor<2x3xf32>) -> tensor<4x2x4xf32>
  return %0 : tensor<4x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @diag_of_matrix
// CHECK-NEXT: [[D:%.+]] = "aten.diagonal"(%{{.+}}) {dim1 = 0 : i64, dim2 = 1 : i64, offset = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xf32>
// CHECK-NEXT: [[C:%.+]] = "aten.clone"([[D]])
// CHECK-NEXT: return [[C]]
func.func @diag_of_matrix(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = "aten.diag"(%x) {diagonal = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @diagflat
// CHECK: "aten.view"(%{{.+}}) {size = array<i64: 4>}
// CHECK: "aten.where.self"
// CHECK-NOT: aten.diag
func.func @diagflat(%x: tensor<2x2xf32>) -> tensor<5x5xf32> {
  %0 = "aten.diagflat"(%x) {offset = 1 : i64} : (tensor<2x2xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

// Integers are summed as int64, as ATen's trace does.
// CHECK-LABEL: func.func @trace
// CHECK-NEXT: [[D:%.+]] = "aten.diagonal"(%{{.+}}) {dim1 = 0 : i64, dim2 = 1 : i64, offset = 0 : i64} : (tensor<3x3xi32>) -> tensor<3xi32>
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[D]]) {dim = array<i64: 0>, dtype = i64, keepdim = false} : (tensor<3xi32>) -> tensor<i64>
// CHECK-NEXT: return [[S]]
func.func @trace(%x: tensor<3x3xi32>) -> tensor<i64> {
  %0 = "aten.trace"(%x) : (tensor<3x3xi32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @eye
// CHECK: [[E:%.+]] = "aten.eq.Scalar"(%{{.+}}) {other = 0 : i64} : (tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NEXT: [[C:%.+]] = "aten._to_copy"([[E]]) {dtype = f32, non_blocking = false} : (tensor<2x3xi1>) -> tensor<2x3xf32>
// CHECK-NEXT: return [[C]]
func.func @eye() -> tensor<2x3xf32> {
  %0 = "aten.eye.m"() {dtype = f32, m = 3 : i64, n = 2 : i64} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @block_diag
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<2x2xf32>, %[[B:[^ :]+]]: tensor<1x3xf32>)
// CHECK-NEXT: [[P:%.+]] = "aten.constant_pad_nd"(%[[A]]) {pad = array<i64: 0, 3>, value = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: [[Q:%.+]] = "aten.constant_pad_nd"(%[[B]]) {pad = array<i64: 2, 0>, value = 0 : i64} : (tensor<1x3xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: [[C:%.+]] = "aten.cat"([[P]], [[Q]]) {dim = 0 : i64
// CHECK-NEXT: return [[C]]
func.func @block_diag(%a: tensor<2x2xf32>, %b: tensor<1x3xf32>) -> tensor<3x5xf32> {
  %0 = "aten.block_diag"(%a, %b) {operandSegmentSizes = array<i32: 2>} : (tensor<2x2xf32>, tensor<1x3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @linalg_cross
// CHECK-COUNT-6: "aten.slice.Tensor"
// CHECK-COUNT-2: "aten.mul.Tensor"
// CHECK-NEXT: "aten.sub.Tensor"
// CHECK: [[C:%.+]] = "aten.cat"({{.+}}) {dim = 1 : i64
// CHECK-NEXT: return [[C]]
func.func @linalg_cross(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "aten.linalg_cross"(%a, %b) {dim = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Each column is the previous one times x: the products ATen's cumprod forms, in order.
// CHECK-LABEL: func.func @linalg_vander
// CHECK-NEXT: [[X:%.+]] = "aten.unsqueeze"(%{{.+}}) {dim = -1 : i64} : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: [[C0:%.+]] = "aten.full_like"([[X]]) {fill_value = 1 : i64}
// CHECK-NEXT: [[C1:%.+]] = "aten.mul.Tensor"([[C0]], [[X]])
// CHECK-NEXT: [[C2:%.+]] = "aten.mul.Tensor"([[C1]], [[X]])
// CHECK-NEXT: "aten.cat"([[C0]], [[C1]], [[C2]]) {dim = -1 : i64
func.func @linalg_vander(%x: tensor<3xf32>) -> tensor<3x3xf32> {
  %0 = "aten.linalg_vander"(%x) {N = 3 : i64} : (tensor<3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// The pairs of 4 elements are known at compile time: column 0 = [0,0,0,1,1,2] (runs of
// constants), column 1 = [1,2,3,2,3,3] (runs counting up).
// CHECK-LABEL: func.func @combinations
// CHECK: "aten.full"() {dtype = i64, fill_value = 0 : i64, size = array<i64: 3>}
// CHECK: "aten.index_select"
// CHECK: "aten.arange.start_step"() {dtype = i64, end = 4 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: "aten.index_select"
// CHECK: "aten.cat"({{.+}}) {dim = 1 : i64
// CHECK-NOT: aten.combinations
func.func @combinations(%x: tensor<4xf32>) -> tensor<6x2xf32> {
  %0 = "aten.combinations"(%x) {r = 2 : i64, with_replacement = false} : (tensor<4xf32>) -> tensor<6x2xf32>
  return %0 : tensor<6x2xf32>
}

// -----

// A batched matmul in einsum notation is one bmm.
// CHECK-LABEL: func.func @einsum_bmm
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<2x3x4xf32>, %[[B:[^ :]+]]: tensor<2x4x5xf32>)
// CHECK: [[M:%.+]] = "aten.bmm"({{.+}}) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NOT: aten.einsum
func.func @einsum_bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "aten.einsum"(%a, %b) {equation = "bij,bjk->bik", operandSegmentSizes = array<i32: 0, 2, 0>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A repeated subscript is a diagonal.
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK-NEXT: [[D:%.+]] = "aten.diagonal"(%{{.+}}) {dim1 = 0 : i64, dim2 = 1 : i64, offset = 0 : i64} : (tensor<3x3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return [[D]]
func.func @einsum_diagonal(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0 = "aten.einsum"(%a) {equation = "ii->i", operandSegmentSizes = array<i32: 0, 1, 0>} : (tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

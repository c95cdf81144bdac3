// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// std.dim stops at std.correction, kept whole by default (the root is taken in the f64
// accumulator, as ATen does); decomposing it explicitly gives var.correction + sqrt.
// CHECK-LABEL: func.func @std
// CHECK-NEXT: [[S:%.+]] = "aten.std.correction"(%{{.+}}) {correction = 1 : i64, dim = array<i64: 1>, keepdim = false} : (tensor<3x4xf32>) -> tensor<3xf32>
// CHECK-NEXT: return [[S]]
  func.func @std(%arg0: tensor<3x4xf32>) -> tensor<3xf32> {
    %0 = "aten.std.dim"(%arg0) {dim = array<i64: 1>, keepdim = false, unbiased = true} : (tensor<3x4xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }

// -----

// CHECK-LABEL: func.func @all_dim
// CHECK-NEXT: [[N:%.+]] = "aten.logical_not"(%{{.+}}) : (tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK-NEXT: [[A:%.+]] = "aten.any.dims"([[N]]) {dim = array<i64: 1>, keepdim = false}
// CHECK-NEXT: [[R:%.+]] = "aten.logical_not"([[A]]) : (tensor<3xi1>) -> tensor<3xi1>
// CHECK-NEXT: return [[R]]
  func.func @all_dim(%arg0: tensor<3x4xf32>) -> tensor<3xi1> {
    %0 = "aten.all.dim"(%arg0) {dim = 1 : i64, keepdim = false} : (tensor<3x4xf32>) -> tensor<3xi1>
    return %0 : tensor<3xi1>
  }

// -----

// The max, with infinities replaced by 0, is subtracted before exp and added back after log.
// CHECK-LABEL: func.func @logsumexp
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x?xf32>)
// CHECK-NEXT: [[M:%.+]] = "aten.amax"(%[[X]]) {dim = array<i64: 1>, keepdim = true} : (tensor<?x?xf32>) -> tensor<?x1xf32>
// CHECK-NEXT: [[I:%.+]] = "aten.isinf"([[M]])
// CHECK-NEXT: [[Z:%.+]] = "aten.full_like"([[M]]) {fill_value = 0 : i64}
// CHECK-NEXT: [[F:%.+]] = "aten.where.self"([[I]], [[Z]], [[M]])
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%[[X]], [[F]])
// CHECK-NEXT: [[E:%.+]] = "aten.exp"([[D]])
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[E]]) {dim = array<i64: 1>, keepdim = false} : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK-NEXT: [[L:%.+]] = "aten.log"([[S]])
// CHECK-NEXT: [[Q:%.+]] = "aten.squeeze.dims"([[F]]) {dim = array<i64: 1>} : (tensor<?x1xf32>) -> tensor<?xf32>
// CHECK-NEXT: [[R:%.+]] = "aten.add.Tensor"([[L]], [[Q]])
// CHECK-NEXT: return [[R]]
  func.func @logsumexp(%arg0: tensor<?x?xf32>) -> tensor<?xf32> {
    %0 = "aten.logsumexp"(%arg0) {dim = array<i64: 1>, keepdim = false} : (tensor<?x?xf32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }

// -----

// CHECK-LABEL: func.func @vector_norm
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<3x4xf32>)
// CHECK-NEXT: [[Q:%.+]] = "aten.mul.Tensor"(%[[X]], %[[X]])
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[Q]]) {dim = array<i64: 0>, keepdim = false} : (tensor<3x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: [[R:%.+]] = "aten.sqrt"([[S]])
// CHECK-NEXT: return [[R]]
  func.func @vector_norm(%arg0: tensor<3x4xf32>) -> tensor<4xf32> {
    %0 = "aten.linalg_vector_norm"(%arg0) {dim = array<i64: 0>, keepdim = false, ord = 2 : i64} : (tensor<3x4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }

// -----

// cumprod: a Hillis-Steele scan, shifts by 1, 2, 4 padded with 1 (static scanned dim, `?` elsewhere).
// CHECK-LABEL: func.func @cumprod
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.mul.Tensor"
// CHECK-NOT: "aten.cumprod"
// CHECK: return
func.func @cumprod(%arg0: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %0 = "aten.cumprod"(%arg0) {dim = 1 : i64} : (tensor<?x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// logcumsumexp: pairwise logaddexp in log2(n) steps, -inf padding.
// CHECK-LABEL: func.func @logcumsumexp
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.minimum"
// CHECK: "aten.maximum"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.exp"
// CHECK: "aten.log1p"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.ne.Tensor"
// CHECK: "aten.isinf"
// CHECK: "aten.logical_not"
// CHECK: "aten.logical_or"
// CHECK: "aten.where.self"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.minimum"
// CHECK: "aten.maximum"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.exp"
// CHECK: "aten.log1p"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.ne.Tensor"
// CHECK: "aten.isinf"
// CHECK: "aten.logical_not"
// CHECK: "aten.logical_or"
// CHECK: "aten.where.self"
// CHECK-NOT: "aten.logcumsumexp"
// CHECK: return
func.func @logcumsumexp(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.logcumsumexp"(%arg0) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// cummax: (value, index) pairs; the later element wins ties, a NaN wins and stays.
// CHECK-LABEL: func.func @cummax
// CHECK: "aten.arange.start_step"
// CHECK: "aten.view"
// CHECK: "aten.expand"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.ge.Tensor"
// CHECK: "aten.isnan"
// CHECK: "aten.isnan"
// CHECK: "aten.logical_not"
// CHECK: "aten.logical_and"
// CHECK: "aten.logical_or"
// CHECK: "aten.where.self"
// CHECK: "aten.where.self"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.ge.Tensor"
// CHECK: "aten.isnan"
// CHECK: "aten.isnan"
// CHECK: "aten.logical_not"
// CHECK: "aten.logical_and"
// CHECK: "aten.logical_or"
// CHECK: "aten.where.self"
// CHECK: "aten.where.self"
// CHECK-NOT: "aten.cummax"
// CHECK: return
func.func @cummax(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %0:2 = "aten.cummax"(%arg0) {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// cummin on integers: no NaN tests.
// CHECK-LABEL: func.func @cummin_int
// CHECK: "aten.arange.start_step"
// CHECK: "aten.view"
// CHECK: "aten.expand"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.le.Tensor"
// CHECK: "aten.where.self"
// CHECK: "aten.where.self"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.le.Tensor"
// CHECK: "aten.where.self"
// CHECK: "aten.where.self"
// CHECK-NOT: "aten.cummin"
// CHECK: return
func.func @cummin_int(%arg0: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %0:2 = "aten.cummin"(%arg0) {dim = 0 : i64} : (tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
  return %0#0, %0#1 : tensor<4xi64>, tensor<4xi64>
}

// -----

// The inf norm: row sums (vector 1-norm over the last dim), then their max.
// CHECK-LABEL: func.func @matrix_norm_inf
// CHECK: "aten.abs"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.amax"
// CHECK-NOT: "aten.linalg_matrix_norm"
// CHECK: return
func.func @matrix_norm_inf(%arg0: tensor<2x3x4xf32>) -> tensor<2xf32> {
  %0 = "aten.linalg_matrix_norm"(%arg0) {dim = array<i64: -2, -1>, keepdim = false, ord = 0x7FF0000000000000 : f64} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// The spectral norm: the largest singular value.
// CHECK-LABEL: func.func @matrix_norm_2
// CHECK: "aten.{{(linalg_svdvals|_linalg_svd)}}"
// CHECK: "aten.amax"
// CHECK: "aten.squeeze.dims"
// CHECK-NOT: "aten.linalg_matrix_norm"
// CHECK: return
func.func @matrix_norm_2(%arg0: tensor<2x3x4xf32>) -> tensor<2xf32> {
  %0 = "aten.linalg_matrix_norm"(%arg0) {dim = array<i64: -2, -1>, keepdim = false, ord = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// The nuclear norm: the sum of the singular values, dims moved last and back (keepdim).
// CHECK-LABEL: func.func @matrix_norm_nuc
// CHECK: "aten.permute"
// CHECK: "aten.{{(linalg_svdvals|_linalg_svd)}}"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.unsqueeze"
// CHECK: "aten.permute"
// CHECK-NOT: "aten.linalg_matrix_norm.str_ord"
// CHECK: return
func.func @matrix_norm_nuc(%arg0: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = "aten.linalg_matrix_norm.str_ord"(%arg0) {dim = array<i64: 0, 2>, keepdim = true, ord = "nuc"} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// linalg_norm.ord_str stops at linalg_matrix_norm.str_ord (fro: a vector 2-norm).
// CHECK-LABEL: func.func @linalg_norm_ord_str
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.sqrt"
// CHECK-NOT: "aten.linalg_norm.ord_str"
// CHECK: return
func.func @linalg_norm_ord_str(%arg0: tensor<3x5xf32>) -> tensor<f32> {
  %0 = "aten.linalg_norm.ord_str"(%arg0) {keepdim = false, ord = "fro"} : (tensor<3x5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// renorm: scale slices whose norm exceeds maxnorm by maxnorm / (norm + 1e-7).
// CHECK-LABEL: func.func @renorm
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.sqrt"
// CHECK: "aten.gt.Scalar"
// CHECK: "aten.full_like"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.div.Tensor"
// CHECK: "aten.full_like"
// CHECK: "aten.where.self"
// CHECK: "aten.mul.Tensor"
// CHECK-NOT: "aten.renorm"
// CHECK: return
func.func @renorm(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "aten.renorm"(%arg0) {dim = 1 : i64, maxnorm = 1.000000e+00 : f64, p = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

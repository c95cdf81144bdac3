// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// det = sign(P) * prod(diag(U)) from the LU of A^T (ATen's _linalg_det); the pivot positions are
// a cumsum of ones, so the `?` batch needs no index arithmetic.
// CHECK-LABEL: func.func @linalg_det
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<?x4x4xf32>)
// CHECK-NEXT: [[T:%.+]] = "aten.permute"(%[[A]]) {dims = array<i64: 0, 2, 1>}
// CHECK-NEXT: [[LU:%.+]]:3 = "aten.linalg_lu_factor_ex"([[T]]) {check_errors = false, pivot = true} : (tensor<?x4x4xf32>) -> (tensor<?x4x4xf32>, tensor<?x4xi32>, tensor<?xi32>)
// CHECK-NEXT: [[ONES:%.+]] = "aten.full_like"([[LU]]#1) {fill_value = 1 : i64}
// CHECK-NEXT: [[POS:%.+]] = "aten.cumsum"([[ONES]]) {dim = -1 : i64, dtype = i32}
// CHECK-NEXT: [[SWAP:%.+]] = "aten.ne.Tensor"([[POS]], [[LU]]#1)
// CHECK-NEXT: [[N:%.+]] = "aten.sum.dim_IntList"([[SWAP]]) {dim = array<i64: -1>, dtype = i64, keepdim = false}
// CHECK-NEXT: [[PAR:%.+]] = "aten.fmod.Scalar"([[N]]) {other = 2 : i64}
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Scalar"([[PAR]]) {other = -2 : i64}
// CHECK-NEXT: [[SIGN:%.+]] = "aten.add.Scalar"([[M]]) {alpha = 1 : i64, other = 1 : i64}
// CHECK-NEXT: [[D:%.+]] = "aten.diagonal"([[LU]]#0) {dim1 = -2 : i64, dim2 = -1 : i64, offset = 0 : i64}
// CHECK-NEXT: [[P:%.+]] = "aten.prod.dim_int"([[D]]) {dim = -1 : i64, keepdim = false}
// CHECK-NEXT: [[DET:%.+]] = "aten.mul.Tensor"([[SIGN]], [[P]]) : (tensor<?xi64>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return [[DET]]
func.func @linalg_det(%a: tensor<?x4x4xf32>) -> tensor<?xf32> {
  %0:3 = "aten._linalg_det"(%a) : (tensor<?x4x4xf32>) -> (tensor<?xf32>, tensor<?x4x4xf32>, tensor<?x4xi32>)
  return %0#0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @linalg_svd
// CHECK-NEXT: [[SVD:%.+]]:3 = "aten._linalg_svd"(%{{.+}}) {compute_uv = true, full_matrices = false}
// CHECK-NEXT: return [[SVD]]#0, [[SVD]]#1, [[SVD]]#2
func.func @linalg_svd(%a: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3x3xf32>) {
  %0:3 = "aten.linalg_svd"(%a) {full_matrices = false} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3x3xf32>)
  return %0#0, %0#1, %0#2 : tensor<5x3xf32>, tensor<3xf32>, tensor<3x3xf32>
}

// -----

// The error on a singular matrix is kept: check_errors = true.
// CHECK-LABEL: func.func @linalg_inv
// CHECK-NEXT: [[INV:%.+]]:2 = "aten.linalg_inv_ex"(%{{.+}}) {check_errors = true} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
// CHECK-NEXT: return [[INV]]#0
func.func @linalg_inv(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = "aten.linalg_inv"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// n = 5 = 0b101: a^2, a^4, then a * a^4: three products.
// CHECK-LABEL: func.func @linalg_matrix_power
// CHECK-COUNT-3: "aten.bmm"
// CHECK-NOT: "aten.bmm"
// CHECK-NOT: "aten.linalg_matrix_power"
// CHECK: return
func.func @linalg_matrix_power(%a: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %0 = "aten.linalg_matrix_power"(%a) {n = 5 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// V diag(1/S) U^T over the singular values above max(atol, rtol * max(S)), compared in float64.
// CHECK-LABEL: func.func @linalg_pinv
// CHECK-DAG: [[ATOL:%.+]] = "aten.scalar_tensor"() {dtype = f64, s = 5.000000e-01 : f64}
// CHECK-DAG: [[RTOL:%.+]] = "aten.scalar_tensor"() {dtype = f64, s = 0.000000e+00 : f64}
// CHECK: [[SVD:%.+]]:3 = "aten._linalg_svd"(%{{.+}}) {compute_uv = true, full_matrices = false}
// CHECK: [[V:%.+]] = "aten.permute"([[SVD]]#2) {dims = array<i64: 1, 0>}
// CHECK: [[PAD:%.+]] = "aten.constant_pad_nd"([[SVD]]#1) {pad = array<i64: 0, 1>
// CHECK: [[MAX:%.+]] = "aten.amax"([[PAD]])
// CHECK: [[TOL:%.+]] = "aten.maximum"({{.+}}) : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
// CHECK: [[KEPT:%.+]] = "aten.gt.Tensor"([[SVD]]#1, [[TOL]])
// CHECK: [[REC:%.+]] = "aten.reciprocal"([[SVD]]#1)
// CHECK: [[INV:%.+]] = "aten.where.self"([[KEPT]], [[REC]], {{.+}})
// CHECK: [[Y:%.+]] = "aten.mm"({{.+}}) : (tensor<3x3xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return [[Y]]
func.func @linalg_pinv(%a: tensor<5x3xf32>) -> tensor<3x5xf32> {
  %0 = "aten.linalg_pinv.atol_rtol_float"(%a) {atol = 0.5 : f64, hermitian = false} : (tensor<5x3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// LAPACK QR is kept whole.
// CHECK-LABEL: func.func @qr
// CHECK-NEXT: [[QR:%.+]]:2 = "aten.linalg_qr"(%{{.+}}) {mode = "complete"}
// CHECK-NEXT: return [[QR]]#0, [[QR]]#1
func.func @qr(%a: tensor<5x3xf32>) -> (tensor<5x5xf32>, tensor<5x3xf32>) {
  %0:2 = "aten.qr"(%a) {some = false} : (tensor<5x3xf32>) -> (tensor<5x5xf32>, tensor<5x3xf32>)
  return %0#0, %0#1 : tensor<5x5xf32>, tensor<5x3xf32>
}

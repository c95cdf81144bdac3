// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// nan follows y; x == 0 gives 0 even where log(y) is -inf or nan.
// CHECK-LABEL: func.func @xlogy
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4xf32>, %[[Y:[^ :]+]]: tensor<4xf32>)
// CHECK-NEXT: [[L:%.+]] = "aten.log"(%[[Y]])
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Tensor"(%[[X]], [[L]])
// CHECK-NEXT: [[Z:%.+]] = "aten.eq.Scalar"(%[[X]]) {other = 0 : i64}
// CHECK-NEXT: [[ZERO:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 0 : i64}
// CHECK-NEXT: [[W:%.+]] = "aten.where.self"([[Z]], [[ZERO]], [[P]])
// CHECK-NEXT: [[N:%.+]] = "aten.isnan"(%[[Y]])
// CHECK-NEXT: "aten.where.self"([[N]], %[[Y]], [[W]])
func.func @xlogy(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.xlogy.Tensor"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The number becomes a 0-d tensor of the result dtype, then xlog1py decomposes.
// CHECK-LABEL: func.func @xlog1py_self_scalar
// CHECK-NEXT: [[S:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 3 : i64} : () -> tensor<f32>
// CHECK: "aten.log1p"
// CHECK-NOT: aten.special_xlog1py
func.func @xlog1py_self_scalar(%y: tensor<4xi64>) -> tensor<4xf32> {
  %0 = "aten.special_xlog1py.self_scalar"(%y) {self = 3 : i64} : (tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @entr
// CHECK-NEXT: [[N:%.+]] = "aten.neg"
// CHECK-NEXT: [[L:%.+]] = "aten.log"
// CHECK-NEXT: "aten.mul.Tensor"([[N]], [[L]])
// CHECK: "aten.lt.Scalar"(%{{.+}}) {other = 0 : i64}
// CHECK-NEXT: "aten.scalar_tensor"() {dtype = f32, s = 0xFFF0000000000000 : f64}
// CHECK-NEXT: "aten.where.self"
func.func @entr(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.special_entr"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ATen's composite, op for op.
// CHECK-LABEL: func.func @ndtr
// CHECK-NEXT: [[S:%.+]] = "aten.mul.Scalar"(%{{.+}}) {other = 0.70710678118654757 : f64}
// CHECK-NEXT: [[E:%.+]] = "aten.erf"([[S]])
// CHECK-NEXT: [[A:%.+]] = "aten.add.Scalar"([[E]]) {alpha = 1 : i64, other = 1 : i64}
// CHECK-NEXT: "aten.mul.Scalar"([[A]]) {other = 5.000000e-01 : f64}
func.func @ndtr(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.special_ndtr"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Two branches split at x = -1; erfc and erfcx stay whole.
// CHECK-LABEL: func.func @log_ndtr
// CHECK: "aten.special_erfcx"
// CHECK: "aten.erfc"
// CHECK: [[B:%.+]] = "aten.lt.Scalar"(%{{.+}}) {other = -1 : i64}
// CHECK-NEXT: "aten.where.self"([[B]],
func.func @log_ndtr(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.special_log_ndtr"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mvlgamma
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x3xf32>)
// CHECK-NEXT: [[R:%.+]] = "aten.arange.start_step"() {dtype = f32, end = 5.000000e-01 : f64, start = -1.000000e+00 : f64, step = 5.000000e-01 : f64} : () -> tensor<3xf32>
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%[[X]]) {dim = -1 : i64} : (tensor<?x3xf32>) -> tensor<?x3x1xf32>
// CHECK-NEXT: [[A:%.+]] = "aten.add.Tensor"([[R]], [[U]]) {alpha = 1 : i64} : (tensor<3xf32>, tensor<?x3x1xf32>) -> tensor<?x3x3xf32>
// CHECK-NEXT: [[L:%.+]] = "aten.lgamma"([[A]])
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[L]]) {dim = array<i64: -1>, keepdim = false} : (tensor<?x3x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: "aten.add.Scalar"([[S]])
func.func @mvlgamma(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "aten.mvlgamma"(%x) {p = 3 : i64} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @zeta_other_scalar
// CHECK-NEXT: [[S:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 2.500000e+00 : f64}
// CHECK-NEXT: "aten.special_zeta"(%{{.+}}, [[S]]) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @zeta_other_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.special_zeta.other_scalar"(%x) {other = 2.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// special_* forwarders: special_psi is digamma (kept whole).
// CHECK-LABEL: func.func @psi
// CHECK-NEXT: "aten.digamma"(%{{.+}}) : (tensor<4xf32>) -> tensor<4xf32>
func.func @psi(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.special_psi"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

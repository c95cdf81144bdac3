// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// The scalar takes the result dtype (f32 here, from an i64 tensor and a float scalar).
// CHECK-LABEL: func.func @where_scalar_self
// CHECK-SAME: (%[[C:[^ :]+]]: tensor<4xi1>, %[[X:[^ :]+]]: tensor<4xi64>)
// CHECK-NEXT: [[F:%.+]] = "aten.full_like"(%[[X]]) {dtype = f32, fill_value = 2.500000e+00 : f64} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT: [[W:%.+]] = "aten.where.self"(%[[C]], [[F]], %[[X]]) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT: return [[W]]
func.func @where_scalar_self(%c: tensor<4xi1>, %x: tensor<4xi64>) -> tensor<4xf32> {
  %0 = "aten.where.ScalarSelf"(%c, %x) {self = 2.5 : f64} : (tensor<4xi1>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @rsub_scalar
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Scalar"(%{{.+}}) {other = -2 : i64}
// CHECK-NEXT: [[A:%.+]] = "aten.add.Scalar"([[M]]) {alpha = 1 : i64, other = 2.500000e+00 : f64}
// CHECK-NEXT: return [[A]]
func.func @rsub_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.rsub.Scalar"(%x) {other = 2.5 : f64, alpha = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Python floor semantics (ints, signs, -0.0) are div's floor mode: what ATen's floor_divide calls.
// CHECK-LABEL: func.func @floor_divide
// CHECK-NEXT: [[D:%.+]] = "aten.div.Tensor_mode"(%{{.+}}, %{{.+}}) {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT: return [[D]]
func.func @floor_divide(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = "aten.floor_divide"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @clamp_max_tensor
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?xf32>, %[[M:[^ :]+]]: tensor<?xf32>)
// CHECK-NEXT: "aten.clamp.Tensor"(%[[X]], %[[M]]) {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
func.func @clamp_max_tensor(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "aten.clamp_max.Tensor"(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// square is pow(x, 2): a bool input squares to int64.
// CHECK-LABEL: func.func @square
// CHECK-NEXT: "aten.pow.Tensor_Scalar"(%{{.+}}) {exponent = 2 : i64} : (tensor<4xi1>) -> tensor<4xi64>
func.func @square(%a: tensor<4xi1>) -> tensor<4xi64> {
  %0 = "aten.square"(%a) : (tensor<4xi1>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @and
// CHECK-NEXT: "aten.bitwise_and.Tensor"(%{{.+}}, %{{.+}}) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NOT: aten.__and__
func.func @and(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = "aten.__and__.Tensor"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// The shift stops at bitwise_left_shift.Tensor, kept whole; the number becomes a 0-d tensor.
// CHECK-LABEL: func.func @lshift_scalar
// CHECK-NEXT: [[S:%.+]] = "aten.scalar_tensor"() {dtype = i8, s = 3 : i64} : () -> tensor<i8>
// CHECK-NEXT: "aten.bitwise_left_shift.Tensor"(%{{.+}}, [[S]]) : (tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
func.func @lshift_scalar(%a: tensor<4xi8>) -> tensor<4xi8> {
  %0 = "aten.__lshift__.Scalar"(%a) {other = 3 : i64} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @bitwise_or_scalar_tensor
// CHECK-NEXT: "aten.bitwise_or.Scalar"(%{{.+}}) {other = 12 : i64} : (tensor<4xi64>) -> tensor<4xi64>
func.func @bitwise_or_scalar_tensor(%a: tensor<4xi64>) -> tensor<4xi64> {
  %0 = "aten.bitwise_or.Scalar_Tensor"(%a) {self = 12 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @float_power
// CHECK-NEXT: [[A:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f64, non_blocking = false} : (tensor<4xf32>) -> tensor<4xf64>
// CHECK-NEXT: [[B:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f64, non_blocking = false} : (tensor<4xi64>) -> tensor<4xf64>
// CHECK-NEXT: "aten.pow.Tensor_Tensor"([[A]], [[B]]) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
func.func @float_power(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xf64> {
  %0 = "aten.float_power.Tensor_Tensor"(%a, %b) : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Half computes in float32 and rounds once, as ATen's kernel.
// CHECK-LABEL: func.func @addcmul
// CHECK: [[X:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f32
// CHECK-NEXT: [[T1:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f32
// CHECK-NEXT: [[T2:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f32
// CHECK-NEXT: [[S:%.+]] = "aten.mul.Scalar"([[T1]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Tensor"([[S]], [[T2]])
// CHECK-NEXT: [[R:%.+]] = "aten.add.Tensor"([[X]], [[P]])
// CHECK-NEXT: "aten._to_copy"([[R]]) {dtype = f16
func.func @addcmul(%a: tensor<4xf16>, %b: tensor<4xf16>, %c: tensor<4xf16>) -> tensor<4xf16> {
  %0 = "aten.addcmul"(%a, %b, %c) {value = 5.000000e-01 : f64} : (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// weight 0.75 takes ATen's upper branch: end + (w - 1) * (end - start).
// CHECK-LABEL: func.func @lerp_scalar
// CHECK-SAME: (%[[S:[^ :]+]]: tensor<4xf32>, %[[E:[^ :]+]]: tensor<4xf32>)
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%[[E]], %[[S]])
// CHECK-NEXT: "aten.add.Tensor"(%[[E]], [[D]]) {alpha = -2.500000e-01 : f64}
// CHECK-NOT: aten.where
func.func @lerp_scalar(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.lerp.Scalar"(%a, %b) {weight = 7.500000e-01 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @lerp_tensor
// CHECK: [[LOW:%.+]] = "aten.add.Tensor"
// CHECK: [[HIGH:%.+]] = "aten.add.Tensor"
// CHECK-NEXT: [[A:%.+]] = "aten.abs"
// CHECK-NEXT: [[SMALL:%.+]] = "aten.lt.Scalar"([[A]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: "aten.where.self"([[SMALL]], [[LOW]], [[HIGH]])
func.func @lerp_tensor(%a: tensor<4xf32>, %b: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.lerp.Tensor"(%a, %b, %w) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @logaddexp
// CHECK: "aten.maximum"
// CHECK: "aten.exp"
// CHECK-NEXT: "aten.log1p"
// CHECK: "aten.isinf"
// CHECK: "aten.where.self"
// CHECK-NOT: "aten.log"(
func.func @logaddexp(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.logaddexp"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @exp2
// CHECK-NEXT: [[F:%.+]] = "aten._to_copy"(%{{.+}}) {dtype = f32
// CHECK-NEXT: "aten.pow.Scalar"([[F]]) {self = 2.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
func.func @exp2(%a: tensor<4xi64>) -> tensor<4xf32> {
  %0 = "aten.exp2"(%a) : (tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Negative decimals divide first, as ATen's kernel.
// CHECK-LABEL: func.func @round_decimals
// CHECK-NEXT: [[D:%.+]] = "aten.div.Scalar"(%{{.+}}) {other = 1.000000e+02 : f64}
// CHECK-NEXT: [[R:%.+]] = "aten.round"([[D]])
// CHECK-NEXT: "aten.mul.Scalar"([[R]]) {other = 1.000000e+02 : f64}
func.func @round_decimals(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.round.decimals"(%a) {decimals = -2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sinc
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Scalar"(%{{.+}}) {other = 3.1415926535897931 : f64}
// CHECK-NEXT: [[S:%.+]] = "aten.sin"([[P]])
// CHECK-NEXT: [[Q:%.+]] = "aten.div.Tensor"([[S]], [[P]])
// CHECK-NEXT: [[Z:%.+]] = "aten.eq.Scalar"(%{{.+}}) {other = 0 : i64}
// CHECK-NEXT: [[ONE:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 1 : i64}
// CHECK-NEXT: "aten.where.self"([[Z]], [[ONE]], [[Q]])
func.func @sinc(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.sinc"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// signbit stays (kept whole): only it sees the sign of a nan.
// CHECK-LABEL: func.func @copysign
// CHECK-NEXT: [[M:%.+]] = "aten.abs"
// CHECK-NEXT: [[S:%.+]] = "aten.signbit"
// CHECK-NEXT: [[N:%.+]] = "aten.neg"([[M]])
// CHECK-NEXT: "aten.where.self"([[S]], [[N]], [[M]])
func.func @copysign(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.copysign.Tensor"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fmax
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<4xf32>, %[[B:[^ :]+]]: tensor<4xf32>)
// CHECK-NEXT: [[M:%.+]] = "aten.maximum"(%[[A]], %[[B]])
// CHECK-NEXT: [[NB:%.+]] = "aten.isnan"(%[[B]])
// CHECK-NEXT: [[W:%.+]] = "aten.where.self"([[NB]], %[[A]], [[M]])
// CHECK-NEXT: [[NA:%.+]] = "aten.isnan"(%[[A]])
// CHECK-NEXT: "aten.where.self"([[NA]], %[[B]], [[W]])
func.func @fmax(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.fmax"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// float32 squares in float64 (no overflow, one rounding); an infinity wins over a nan.
// CHECK-LABEL: func.func @hypot
// CHECK: "aten._to_copy"(%{{.+}}) {dtype = f64
// CHECK: [[R:%.+]] = "aten.sqrt"(%{{.+}}) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[F:%.+]] = "aten._to_copy"([[R]]) {dtype = f32
// CHECK: [[INF:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 0x7FF0000000000000 : f64}
// CHECK-NEXT: "aten.where.self"(%{{.+}}, [[INF]], [[F]])
func.func @hypot(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.hypot"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @isfinite
// CHECK-NEXT: [[A:%.+]] = "aten.abs"
// CHECK-NEXT: "aten.lt.Scalar"([[A]]) {other = 0x7FF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xi1>
func.func @isfinite(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = "aten.isfinite"(%a) : (tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Defaults: the dtype's lowest and largest finite values (float16 here), nan -> 0.
// CHECK-LABEL: func.func @nan_to_num
// CHECK: "aten.scalar_tensor"() {dtype = f16, s = -6.550400e+04 : f64}
// CHECK: "aten.scalar_tensor"() {dtype = f16, s = 6.550400e+04 : f64}
// CHECK: "aten.scalar_tensor"() {dtype = f16, s = 0.000000e+00 : f64}
// CHECK-NEXT: [[R:%.+]] = "aten.where.self"
// CHECK-NEXT: return [[R]]
func.func @nan_to_num(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = "aten.nan_to_num"(%a) : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Integers hold no nan or inf: the input itself.
// CHECK-LABEL: func.func @nan_to_num_int
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @nan_to_num_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "aten.nan_to_num"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @isclose
// CHECK: [[EQ:%.+]] = "aten.eq.Tensor"
// CHECK: "aten.logical_and"
// CHECK: [[C:%.+]] = "aten.logical_or"([[EQ]],
// CHECK: "aten.mul.Scalar"(%{{.+}}) {other = 1.000000e-05 : f64}
// CHECK: "aten.le.Tensor"
// CHECK: "aten.logical_or"([[C]],
// CHECK-NOT: aten.isclose
// CHECK-NOT: aten.isfinite
func.func @isclose(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = "aten.isclose"(%a, %b) {rtol = 1.000000e-05 : f64, atol = 1.000000e-08 : f64, equal_nan = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

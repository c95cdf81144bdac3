// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// p = 2, dynamic rows: the pair index matrix k(min(r, s), max(r, s)) from an arange (n as a
// 0-d sum of ones), the diagonal pointing one past the pairs at the zero padded onto the
// gradient and the distances; then grad * diff / dist, 0 where dist is 0, summed over s.
// CHECK-LABEL: func.func @pdist_backward_p2
// CHECK: [[N:%.+]] = tensor.dim %arg1, %c0 : tensor<?x3xf32>
// CHECK: [[R:%.+]] = "aten.arange.start_step"([[N]])
// CHECK: [[LO:%.+]] = "aten.minimum"
// CHECK: [[HI:%.+]] = "aten.maximum"
// CHECK: "aten.div.Scalar_mode"({{%.+}}) {other = 2 : i64, rounding_mode = "floor"} : (tensor<?x?xi64>) -> tensor<?x?xi64>
// CHECK: [[DIAG:%.+]] = "aten.eq.Tensor"
// CHECK: [[K:%.+]] = "aten.where.self"([[DIAG]], {{%.+}}, {{%.+}}) : (tensor<?x?xi1>, tensor<i64>, tensor<?x?xi64>) -> tensor<?x?xi64>
// The gathers index with k as (n, n, 1): no (n, n) buffer the output's type could reuse.
// CHECK: [[PG:%.+]] = "aten.constant_pad_nd"(%arg0) {pad = array<i64: 0, 1>, value = 0 : i64}
// CHECK: [[K3:%.+]] = "aten.unsqueeze"([[K]]) {dim = 2 : i64} : (tensor<?x?xi64>) -> tensor<?x?x1xi64>
// CHECK: "aten.index.Tensor"([[PG]], [[K3]]) {{.*}} -> tensor<?x?x1xf32>
// CHECK: [[PD:%.+]] = "aten.constant_pad_nd"(%arg2) {pad = array<i64: 0, 1>, value = 0 : i64}
// CHECK: [[K3D:%.+]] = "aten.unsqueeze"([[K]]) {dim = 2 : i64}
// CHECK: "aten.index.Tensor"([[PD]], [[K3D]]) {{.*}} -> tensor<?x?x1xf32>
// CHECK: [[DIFF:%.+]] = "aten.sub.Tensor"({{.*}} : (tensor<?x1x3xf32>, tensor<1x?x3xf32>) -> tensor<?x?x3xf32>
// CHECK: [[GD:%.+]] = "aten.mul.Tensor"({{%.+}}, [[DIFF]])
// CHECK: [[Q:%.+]] = "aten.div.Tensor"([[GD]], {{%.+}})
// CHECK: [[ZERO:%.+]] = "aten.eq.Scalar"({{%.+}}) {other = 0 : i64} : (tensor<?x?x1xf32>) -> tensor<?x?x1xi1>
// CHECK: [[T:%.+]] = "aten.where.self"([[ZERO]], {{%.+}}, [[Q]])
// CHECK: [[OUT:%.+]] = "aten.sum.dim_IntList"([[T]]) {dim = array<i64: 1>, keepdim = false} : (tensor<?x?x3xf32>) -> tensor<?x3xf32>
// CHECK: return [[OUT]]
func.func @pdist_backward_p2(%g: tensor<?xf32>, %x: tensor<?x3xf32>, %d: tensor<?xf32>) -> tensor<?x3xf32> {
  %0 = "aten._pdist_backward"(%g, %x, %d) {p = 2.000000e+00 : f64} : (tensor<?xf32>, tensor<?x3xf32>, tensor<?xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// p = 0: the count of differing coordinates has no gradient.
// CHECK-LABEL: func.func @pdist_backward_p0
// CHECK-NEXT: [[Z:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64: 4, 3>}
// CHECK-NEXT: return [[Z]]
func.func @pdist_backward_p0(%g: tensor<6xf32>, %x: tensor<4x3xf32>, %d: tensor<6xf32>) -> tensor<4x3xf32> {
  %0 = "aten._pdist_backward"(%g, %x, %d) {p = 0.000000e+00 : f64} : (tensor<6xf32>, tensor<4x3xf32>, tensor<6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// p < 1: sign(diff) |diff|^(p-1) grad / dist^(p-1), 0 at distance 0 and (ATen's blend of its
// 0 * inf) where the coordinate difference is 0.
// CHECK-LABEL: func.func @pdist_backward_p_half
// CHECK: [[DIFF:%.+]] = "aten.sub.Tensor"({{.*}} -> tensor<4x4x3xf64>
// CHECK: [[ROOT:%.+]] = "aten.pow.Tensor_Scalar"({{%.+}}) {exponent = -5.000000e-01 : f64} : (tensor<4x4x1xf64>)
// CHECK: [[UP:%.+]] = "aten.pow.Tensor_Scalar"({{%.+}}) {exponent = -5.000000e-01 : f64} : (tensor<4x4x3xf64>)
// CHECK: "aten.div.Tensor"({{%.+}}, [[ROOT]])
// CHECK: "aten.eq.Scalar"({{%.+}}) {other = 0 : i64} : (tensor<4x4x1xf64>)
// CHECK: [[SAME:%.+]] = "aten.eq.Scalar"([[DIFF]]) {other = 0 : i64} : (tensor<4x4x3xf64>)
// CHECK: [[T:%.+]] = "aten.where.self"([[SAME]], {{%.+}}, {{%.+}})
// CHECK: "aten.sum.dim_IntList"([[T]]) {dim = array<i64: 1>
func.func @pdist_backward_p_half(%g: tensor<6xf64>, %x: tensor<4x3xf64>, %d: tensor<6xf64>) -> tensor<4x3xf64> {
  %0 = "aten._pdist_backward"(%g, %x, %d) {p = 5.000000e-01 : f64} : (tensor<6xf64>, tensor<4x3xf64>, tensor<6xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

// p = inf: grad * sign(diff) where |diff| is the distance (1 - min(1, ceil(| |diff| - dist |))).
// CHECK-LABEL: func.func @pdist_backward_inf
// CHECK: "aten.ceil"
// CHECK: [[CAP:%.+]] = "aten.clamp"({{%.+}}) {max = 1 : i64
// CHECK: [[NEG:%.+]] = "aten.mul.Scalar"([[CAP]]) {other = -1 : i64}
// CHECK: "aten.add.Scalar"([[NEG]]) {alpha = 1 : i64, other = 1 : i64}
// CHECK: "aten.sum.dim_IntList"({{%.+}}) {dim = array<i64: 1>
// CHECK-NOT: "aten._pdist_backward"
func.func @pdist_backward_inf(%g: tensor<6xf64>, %x: tensor<4x3xf64>, %d: tensor<6xf64>) -> tensor<4x3xf64> {
  %0 = "aten._pdist_backward"(%g, %x, %d) {p = 0x7FF0000000000000 : f64} : (tensor<6xf64>, tensor<4x3xf64>, tensor<6xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s
// RUN: aten-opt %s --split-input-file -p 'aten-decompose{keep=aten.hardsigmoid,aten._prelu_kernel}' | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4x?xf32>)
// CHECK-NEXT: [[S:%.+]] = "aten.sigmoid"(%[[X]]) : (tensor<4x?xf32>) -> tensor<4x?xf32>
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"(%[[X]], [[S]]) : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
// CHECK-NEXT: return [[M]]
func.func @silu(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = "aten.silu"(%x) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// hardswish stops at hardsigmoid, which decomposes in turn unless kept.
// CHECK-LABEL: func.func @hardswish
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[A:%.+]] = "aten.add.Scalar"(%[[X]]) {alpha = 1 : i64, other = 3 : i64}
// CHECK-NEXT: [[C:%.+]] = "aten.clamp"([[A]]) {max = 6 : i64, min = 0 : i64}
// CHECK-NEXT: [[D:%.+]] = "aten.div.Scalar"([[C]]) {other = 6 : i64}
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"(%[[X]], [[D]])
// CHECK-NEXT: return [[M]]
// KEEP-LABEL: func.func @hardswish
// KEEP-NEXT: [[H:%.+]] = "aten.hardsigmoid"
// KEEP-NEXT: "aten.mul.Tensor"(%{{.+}}, [[H]])
func.func @hardswish(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.hardswish"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @softplus
// CHECK-NEXT: [[S:%.+]] = "aten.mul.Scalar"(%{{.+}}) {other = 2 : i64}
// CHECK-NEXT: [[E:%.+]] = "aten.exp"([[S]])
// CHECK-NEXT: [[L:%.+]] = "aten.log1p"([[E]])
// CHECK-NEXT: [[D:%.+]] = "aten.div.Scalar"([[L]]) {other = 2 : i64}
// CHECK-NEXT: [[G:%.+]] = "aten.gt.Scalar"([[S]]) {other = 20 : i64}
// CHECK-NEXT: "aten.where.self"([[G]], %{{.+}}, [[D]])
func.func @softplus(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.softplus"(%x) {beta = 2 : i64, threshold = 20 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @glu
// CHECK-NEXT: [[A:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 1 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: [[B:%.+]] = "aten.slice.Tensor"(%{{.+}}) {dim = 1 : i64, end = 4 : i64, start = 2 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: [[S:%.+]] = "aten.sigmoid"([[B]])
// CHECK-NEXT: "aten.mul.Tensor"([[A]], [[S]])
func.func @glu(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %0 = "aten.glu"(%x) {dim = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// min(x, 0) - log1p(exp(-|x|)): no overflow of exp for either sign.
// CHECK-LABEL: func.func @log_sigmoid
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[A:%.+]] = "aten.abs"(%[[X]])
// CHECK-NEXT: [[N:%.+]] = "aten.neg"([[A]])
// CHECK-NEXT: [[E:%.+]] = "aten.exp"([[N]])
// CHECK-NEXT: [[L:%.+]] = "aten.log1p"([[E]])
// CHECK-NEXT: [[M:%.+]] = "aten.clamp"(%[[X]]) {max = 0 : i64}
// CHECK-NEXT: [[S:%.+]] = "aten.sub.Tensor"([[M]], [[L]])
// CHECK-NEXT: return [[S]]
func.func @log_sigmoid(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.log_sigmoid"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The weight is laid along the channel dim (1), then _prelu_kernel, which decomposes in turn.
// CHECK-LABEL: func.func @prelu
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x3x4xf32>, %[[W:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[V:%.+]] = "aten.view"(%[[W]]) {size = array<i64: 1, 3, 1>} : (tensor<3xf32>) -> tensor<1x3x1xf32>
// CHECK-NEXT: [[G:%.+]] = "aten.gt.Scalar"(%[[X]]) {other = 0 : i64}
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"([[V]], %[[X]])
// CHECK-NEXT: [[R:%.+]] = "aten.where.self"([[G]], %[[X]], [[M]])
// CHECK-NEXT: return [[R]]
// KEEP-LABEL: func.func @prelu
// KEEP-NEXT: [[V:%.+]] = "aten.view"
// KEEP-NEXT: "aten._prelu_kernel"(%{{.+}}, [[V]])
func.func @prelu(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %0 = "aten.prelu"(%arg0, %arg1) : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @safe_softmax
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x?xf32>)
// CHECK-NEXT: [[S:%.+]] = "aten._softmax"(%[[X]]) {dim = 1 : i64, half_to_float = false} : (tensor<2x?xf32>) -> tensor<2x?xf32>
// CHECK-NEXT: [[NI:%.+]] = "aten.eq.Scalar"(%[[X]]) {other = 0xFFF0000000000000 : f64}
// CHECK: [[ALL:%.+]] = "aten.logical_not"(%{{.+}}) : (tensor<2x1xi1>) -> tensor<2x1xi1>
// CHECK-NEXT: [[Z:%.+]] = "aten.full_like"([[S]]) {fill_value = 0 : i64}
// CHECK-NEXT: [[R:%.+]] = "aten.where.self"([[ALL]], [[Z]], [[S]])
// CHECK-NEXT: return [[R]]
func.func @safe_softmax(%arg0: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "aten._safe_softmax"(%arg0) {dim = 1 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

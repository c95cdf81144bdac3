// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s
// RUN: aten-opt %s --split-input-file -p 'aten-decompose{keep=aten.hardsigmoid}' | FileCheck %s --check-prefix=KEEP

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

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// std.dim stops at std.correction, which becomes var.correction + sqrt.
// CHECK-LABEL: func.func @std
// CHECK-NEXT: [[V:%.+]] = "aten.var.correction"(%{{.+}}) {correction = 1 : i64, dim = array<i64: 1>, keepdim = false} : (tensor<3x4xf32>) -> tensor<3xf32>
// CHECK-NEXT: [[S:%.+]] = "aten.sqrt"([[V]])
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

// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A gather is one linalg.generic over the index tensor: the body reads self at the index.
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf32>, %[[I:.+]]: tensor<2x?xi64>)
// CHECK: %[[N:.+]] = tensor.dim %[[I]], %{{.+}} : tensor<2x?xi64>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<2x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<2x?xi64>) outs(%[[E]] : tensor<2x?xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: i64, %{{.+}}: f32):
// CHECK-NEXT: %[[D1:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[R:.+]] = arith.index_cast %[[IN]] : i64 to index
// CHECK-NEXT: %[[V:.+]] = tensor.extract %[[X]][%[[R]], %[[D1]]] : tensor<4x?xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<4x?xf32>, %i: tensor<2x?xi64>) -> tensor<2x?xf32> {
  %0 = "aten.gather"(%x, %i) {dim = 0 : i64, sparse_grad = false} : (tensor<4x?xf32>, tensor<2x?xi64>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// index_select wraps negative indices (torch errors on them; wrapping costs a select).
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @index_select
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #{{.+}}]
// CHECK: %[[D0:.+]] = linalg.index 0 : index
// CHECK: %[[R:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[R]], %{{.+}} : index
// CHECK: %[[UP:.+]] = arith.addi %[[R]], %{{.+}} : index
// CHECK: %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[R]] : index
// CHECK: tensor.extract %{{.+}}[%[[D0]], %[[W]]] : tensor<4x5xf32>
func.func @index_select(%x: tensor<4x5xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {
  %0 = "aten.index_select"(%x, %i) {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// x[i, :, j] with i and j not adjacent: the broadcast index dims come first.
// The 2x1 index reads column 0 of its broadcast dim; the kept dim 1 of x is result dim 2.
// CHECK-DAG: #[[IMAP:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[JMAP:.+]] = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK-LABEL: func.func @index_tensor
// CHECK: linalg.generic {indexing_maps = [#[[IMAP]], #[[JMAP]], #{{.+}}]
// CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<3xi64>, tensor<2x1xi64>) outs(%{{.+}} : tensor<2x3x5xf32>)
// CHECK: %[[D2:.+]] = linalg.index 2 : index
// CHECK: %[[A:.+]] = arith.select
// CHECK: %[[B:.+]] = arith.select
// CHECK: tensor.extract %{{.+}}[%[[A]], %[[D2]], %[[B]]] : tensor<4x5x6xf32>
func.func @index_tensor(%x: tensor<4x5x6xf32>, %i: tensor<3xi64>, %j: tensor<2x1xi64>) -> tensor<2x3x5xf32> {
  %0 = "aten.index.Tensor"(%x, %i, %j) {indices = array<i1: true, false, true>, operandSegmentSizes = array<i32: 1, 2>} : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @embedding
// CHECK: linalg.generic {indexing_maps = [#[[ROWS]], #{{.+}}]
// CHECK: %[[C:.+]] = linalg.index 2 : index
// CHECK: %[[R:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: tensor.extract %{{.+}}[%[[R]], %[[C]]] : tensor<10x3xf32>
func.func @embedding(%w: tensor<10x3xf32>, %i: tensor<2x4xi64>) -> tensor<2x4x3xf32> {
  %0 = "aten.embedding"(%w, %i) {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<10x3xf32>, tensor<2x4xi64>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

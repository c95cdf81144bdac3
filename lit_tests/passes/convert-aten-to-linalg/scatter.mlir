// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A scatter is an scf.for nest over the index carrying the output, initialised with self.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[X:.+]]: tensor<4x5xf32>, %[[I:.+]]: tensor<3x5xi64>, %[[S:.+]]: tensor<3x5xf32>)
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %[[X]]) -> (tensor<4x5xf32>)
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[B:.+]] = %[[A]]) -> (tensor<4x5xf32>)
// CHECK: %[[IDX:.+]] = tensor.extract %[[I]][%[[R]], %[[C]]]
// CHECK: %[[ROW:.+]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK: %[[SRC:.+]] = tensor.extract %[[S]][%[[R]], %[[C]]]
// CHECK: %[[OLD:.+]] = tensor.extract %[[B]][%[[ROW]], %[[C]]]
// CHECK: %[[NEW:.+]] = arith.addf %[[OLD]], %[[SRC]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[B]][%[[ROW]], %[[C]]]
func.func @scatter_add(%x: tensor<4x5xf32>, %i: tensor<3x5xi64>, %s: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %0 = "aten.scatter_add"(%x, %i, %s) {dim = 0 : i64} : (tensor<4x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// x[i] = v: the loops run over the indexed shape (a dynamic index count, v broadcast over it).
// CHECK-LABEL: func.func @index_put
// CHECK-SAME: (%[[X:.+]]: tensor<4x5xf32>, %[[I:.+]]: tensor<?xi64>, %[[V:.+]]: tensor<5xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[I]]
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %[[N]] step %{{.+}} iter_args(%{{.+}} = %[[X]])
// CHECK: scf.for %[[C:.+]] = {{.+}} iter_args(%[[B:.+]] = %{{.+}})
// CHECK: tensor.extract %[[I]][%[[K]]]
// CHECK: %[[ROW:.+]] = arith.select
// CHECK: %[[VAL:.+]] = tensor.extract %[[V]][%[[C]]]
// CHECK-NOT: arith.addf
// CHECK: tensor.insert %[[VAL]] into %[[B]][%[[ROW]], %[[C]]]
func.func @index_put(%x: tensor<4x5xf32>, %i: tensor<?xi64>, %v: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = "aten.index_put"(%x, %i, %v) {accumulate = false, indices = array<i1: true>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<4x5xf32>, tensor<?xi64>, tensor<5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

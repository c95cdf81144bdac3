// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A stable bottom-up merge sort in scf.for loops: a (values, positions) start, alloc_tensor
// scratch, one loop per other dim, pairs of merge passes; NaN goes first when descending.
// CHECK-LABEL: func.func @sort_dynamic
// CHECK: %[[DIM:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[START:.+]]:2 = linalg.generic
// CHECK: linalg.index 0
// CHECK: bufferization.alloc_tensor(%[[DIM]]) : tensor<?x5xf32>
// CHECK: bufferization.alloc_tensor(%[[DIM]]) : tensor<?x5xi64>
// CHECK: scf.for %{{.+}} = %c0 to %c5 step %c1 iter_args(%{{.+}} = %[[START]]#0, %{{.+}} = %[[START]]#1
// CHECK: math.ctlz
// CHECK: scf.for
// CHECK: scf.for %{{.+}} = %c0 to %[[DIM]] step
// CHECK: tensor.extract
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: tensor.insert
// CHECK-NOT: aten.
func.func @sort_dynamic(%x: tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>) {
  %0:2 = "aten.sort"(%x) {descending = true, dim = 0 : i64} : (tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
  return %0#0, %0#1 : tensor<?x5xf32>, tensor<?x5xi64>
}

// -----

// topk: a descending sort, then a gather of the first k along the dim.
// CHECK-LABEL: func.func @topk
// CHECK: arith.cmpi sgt
// CHECK: %[[V:.+]] = tensor.empty() : tensor<4x2xi32>
// CHECK: %[[I:.+]] = tensor.empty() : tensor<4x2xi64>
// CHECK: linalg.generic {{.+}} outs(%[[V]], %[[I]] : tensor<4x2xi32>, tensor<4x2xi64>)
// CHECK: tensor.extract
// CHECK: tensor.extract
// CHECK-NOT: aten.
func.func @topk(%x: tensor<4x6xi32>) -> (tensor<4x2xi32>, tensor<4x2xi64>) {
  %0:2 = "aten.topk"(%x) {dim = -1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x6xi32>) -> (tensor<4x2xi32>, tensor<4x2xi64>)
  return %0#0, %0#1 : tensor<4x2xi32>, tensor<4x2xi64>
}

// -----

// nonzero: count into an index tensor (its extract is the `?` size), then fill row by row.
// CHECK-LABEL: func.func @nonzero
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xi8>) -> tensor<?x2xi64>
// CHECK: %[[COUNT:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<3x4xi8>) outs(%{{.+}} : tensor<index>)
// CHECK: %[[N:.+]] = tensor.extract %[[COUNT]][] : tensor<index>
// CHECK: %[[OUT:.+]] = tensor.empty(%[[N]]) : tensor<?x2xi64>
// CHECK: scf.for {{.+}} iter_args(%{{.+}} = %[[OUT]], %{{.+}} = %c0)
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK-NOT: aten.
func.func @nonzero(%x: tensor<3x4xi1>) -> tensor<?x2xi64> {
  %0 = "aten.nonzero"(%x) : (tensor<3x4xi1>) -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}

// -----

// Random ops add one seed argument to the function and take one stream each.
// CHECK-LABEL: func.func @rand_twice
// CHECK-SAME: (%{{.+}}: tensor<?xf32>, %[[SEED:.+]]: tensor<2xi64> {aten.rng_seed})
// CHECK-SAME: attributes {aten.rng_streams = 2 : i64}
// CHECK: linalg.generic
// CHECK: tensor.extract %[[SEED]][%c0]
// CHECK: tensor.extract %[[SEED]][%c1]
// CHECK: linalg.index 0
// CHECK: arith.sitofp %{{.+}} : i64 to f32
// CHECK: linalg.generic
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.cos
// CHECK-NOT: aten.
func.func @rand_twice(%x: tensor<?xf32>) -> (tensor<?x3xf32>, tensor<2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %0 = "aten.rand"(%n, %c3) {device = "cpu", pin_memory = false, operandSegmentSizes = array<i32: 2, 0, 0, 0, 0>} : (index, index) -> tensor<?x3xf32>
  %1 = "aten.randn"() {device = "cpu", dtype = f64, pin_memory = false, size = array<i64: 2, 3>} : () -> tensor<2x3xf64>
  return %0, %1 : tensor<?x3xf32>, tensor<2x3xf64>
}

// -----

// randperm: an iota, then forward Fisher-Yates in an scf.for.
// CHECK-LABEL: func.func @randperm
// CHECK-SAME: (%[[SEED:.+]]: tensor<2xi64> {aten.rng_seed}) -> tensor<10xi64>
// CHECK: %[[IOTA:.+]] = linalg.generic
// CHECK: scf.for %[[I:.+]] = %c0 to %c10 step %c1 iter_args(%[[P:.+]] = %[[IOTA]])
// CHECK: arith.remui
// CHECK: %[[J:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK: tensor.extract %[[P]][%[[I]]]
// CHECK: tensor.extract %[[P]][%[[J]]]
// CHECK: tensor.insert
// CHECK: tensor.insert
func.func @randperm() -> tensor<10xi64> {
  %0 = "aten.randperm"() {n = 10 : i64, dtype = i64, device = "cpu", pin_memory = false} : () -> tensor<10xi64>
  return %0 : tensor<10xi64>
}

// -----

// native_dropout: the mask is stored as i8; output = input * mask * (1 / (1 - p)).
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: -> (tensor<4x?xf32>, tensor<4x?xi8>)
// CHECK: linalg.generic
// CHECK: arith.cmpf olt, %{{.+}}, %cst
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.extui %{{.+}} : i1 to i8
func.func @dropout(%x: tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xi1>) {
  %0:2 = "aten.native_dropout"(%x) {p = 2.500000e-01 : f64, train = true} : (tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xi1>)
  return %0#0, %0#1 : tensor<4x?xf32>, tensor<4x?xi1>
}

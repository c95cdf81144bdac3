// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// f32 sums accumulate in f64 (torch's pairwise sum is that accurate); keepdim is a view.
// CHECK-LABEL: func.func @sum_keepdim
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf32>)
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f64) outs(%{{.+}} : tensor<4xf64>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x?xf32>) outs(%[[ACC]] : tensor<4xf64>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[OUT:.+]]: f64):
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[OUT]], %[[E]] : f64
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<4xf64>)
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK-NOT: aten.
func.func @sum_keepdim(%x: tensor<4x?xf32>) -> tensor<4x1xf32> {
  %0 = "aten.sum.dim_IntList"(%x) {dim = array<i64: 1>, keepdim = true} : (tensor<4x?xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// One generic carries the best value and its index; a NaN beats a number, ties keep the first.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[R:.+]]:2 = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<3x5xf32>) outs(%{{.+}}, %{{.+}} : tensor<3xf32>, tensor<3xi64>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[BEST:.+]]: f32, %[[IDX:.+]]: i64):
// CHECK-NEXT: %[[I:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[NAN:.+]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[NUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[GT:.+]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK: arith.select %{{.+}}, %[[I64]], %[[IDX]] : i64
// CHECK: return %[[R]]#1
func.func @argmax(%x: tensor<3x5xf32>) -> tensor<3xi64> {
  %0 = "aten.argmax"(%x) {dim = 1 : i64, keepdim = false} : (tensor<3x5xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Bool operands are i8 (0/1) tensors; any() ors `x != 0` into an i8 accumulator.
// CHECK-LABEL: func.func @any_dim
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]}
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[OUT:.+]]: i8):
// CHECK-NEXT: arith.cmpf une, %[[IN]]
// CHECK-NEXT: arith.extui
// CHECK-NEXT: arith.ori %[[OUT]]
func.func @any_dim(%x: tensor<2x3xf32>) -> tensor<3xi1> {
  %0 = "aten.any.dim"(%x) {dim = 0 : i64, keepdim = false} : (tensor<2x3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// Softmax: max, exp(x - max) stored once, its sum (in f32: terms and outputs are in [0, 1]),
// then exp * (1 / sum) written over the exponentials (ATen's vectorized kernel).
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<2x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.+]] = linalg.generic {{.+}} ins(%{{.+}}, %[[MAX]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x8xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[EXP]], %[[SUM]] : tensor<2x8xf32>, tensor<2xf32>) outs(%[[EXP]] : tensor<2x8xf32>)
// CHECK-NEXT: ^bb0(%[[E:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[R:.+]] = arith.divf %{{.+}}, %[[S]] : f32
// CHECK-NEXT: arith.mulf %[[E]], %[[R]] : f32
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = "aten._softmax"(%x) {dim = 1 : i64, half_to_float = false} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// cumsum along a dim other than the last: a sequential scf.for over the scanned dim; each step
// updates the running sum and slice i in place (vector loops along the slice).
// CHECK-LABEL: func.func @cumsum
// CHECK: %[[N:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<?x3xi32>
// CHECK: arith.extsi %{{.+}} : i32 to i64
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[N]] step %{{.+}} iter_args(%[[OUT:.+]] = %{{.+}}, %[[RS:.+]] = %{{.+}}) -> (tensor<?x3xi64>, tensor<3xi64>)
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [1, 3] [1, 1] : tensor<?x3xi64> to tensor<3xi64>
// CHECK-NEXT: %[[G:.+]]:2 = linalg.generic {{.+}} outs(%[[RS]], %[[S]] : tensor<3xi64>, tensor<3xi64>)
// CHECK: arith.addi
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[G]]#1 into %[[OUT]][%[[I]], 0] [1, 3] [1, 1]
// CHECK-NEXT: scf.yield %[[INS]], %[[G]]#0
func.func @cumsum(%x: tensor<?x3xi32>) -> tensor<?x3xi64> {
  %0 = "aten.cumsum"(%x) {dim = 0 : i64} : (tensor<?x3xi32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// cumsum along the last dim: a row at a time, a running value from 0 (slices across the rows
// would be strided gathers).
// CHECK-LABEL: func.func @cumsum_rows
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[T:.+]] = %{{.+}}) -> (tensor<3x?xi64>)
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[U:.+]] = %[[T]], %[[ACC:.+]] = %[[ZERO]]) -> (tensor<3x?xi64>, i64)
// CHECK-NEXT: %[[V:.+]] = tensor.extract %[[U]][%[[R]], %[[J]]]
// CHECK-NEXT: %[[SUM:.+]] = arith.addi %[[ACC]], %[[V]] : i64
// CHECK-NEXT: %[[W:.+]] = tensor.insert %[[SUM]] into %[[U]][%[[R]], %[[J]]]
// CHECK-NEXT: scf.yield %[[W]], %[[SUM]]
func.func @cumsum_rows(%x: tensor<3x?xi32>) -> tensor<3x?xi64> {
  %0 = "aten.cumsum"(%x) {dim = 1 : i64} : (tensor<3x?xi32>) -> tensor<3x?xi64>
  return %0 : tensor<3x?xi64>
}


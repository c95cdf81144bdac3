// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<2x?xf32>, %[[B:.+]]: tensor<?xf32>)
// CHECK: %[[DIM:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<2x?xf32>
// CHECK: %[[INIT:.+]] = tensor.empty(%[[DIM]]) : tensor<2x?xf32>
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x?xf32>, tensor<?xf32>) outs(%[[INIT]] : tensor<2x?xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: aten.
func.func @add_broadcast(%a: tensor<2x?xf32>, %b: tensor<?xf32>) -> tensor<2x?xf32> {
  %0 = "aten.add.Tensor"(%a, %b) {alpha = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// Bool results are stored as i8 (0/1): the comparison runs in the promoted type (f32).
// CHECK-LABEL: func.func @compare_to_bool
// CHECK-SAME: -> tensor<3xi8>
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: f32, %{{.+}}: i8):
// CHECK-NEXT: %[[XF:.+]] = arith.sitofp %[[X]] : i32 to f32
// CHECK-NEXT: %[[LT:.+]] = arith.cmpf olt, %[[XF]], %[[Y]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.extui %[[LT]] : i1 to i8
// CHECK-NEXT: linalg.yield %[[B]] : i8
func.func @compare_to_bool(%a: tensor<3xi32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  %0 = "aten.lt.Tensor"(%a, %b) : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// A size-1 dim broadcast reads index 0; integer floor division is arith.floordivsi.
// CHECK-DAG: #[[BCAST:.+]] = affine_map<(d0) -> (0)>
// CHECK-LABEL: func.func @floor_divide_int
// CHECK: indexing_maps = [#{{.+}}, #[[BCAST]], #{{.+}}]
// CHECK: arith.floordivsi %{{.+}}, %{{.+}} : i64
func.func @floor_divide_int(%a: tensor<4xi64>, %b: tensor<1xi64>) -> tensor<4xi64> {
  %0 = "aten.div.Tensor_mode"(%a, %b) {rounding_mode = "floor"} : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @where_promotes
// CHECK-SAME: (%{{.+}}: tensor<3xi8>, %{{.+}}: tensor<3xf32>, %{{.+}}: tensor<3xf64>)
// CHECK: ^bb0(%[[C:.+]]: i8, %[[A:.+]]: f32, %[[B:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT: %[[COND:.+]] = arith.cmpi ne, %[[C]], %{{.+}} : i8
// CHECK-NEXT: %[[AF:.+]] = arith.extf %[[A]] : f32 to f64
// CHECK-NEXT: arith.select %[[COND]], %[[AF]], %[[B]] : f64
func.func @where_promotes(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "aten.where.self"(%c, %a, %b) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// uint8 travels as its i8 bytes (the function signature too); arithmetic reads it zero-extended
// into i32, where signed ops agree with unsigned ones, and wraps back to 8 bits on store.
// CHECK-LABEL: func.func @add_uint8
// CHECK-SAME: (%{{.+}}: tensor<4xi8>, %{{.+}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: ^bb0(%[[A:.+]]: i8, %[[B:.+]]: i8, %{{.+}}: i8):
// CHECK-NEXT: %[[WA:.+]] = arith.extui %[[A]] : i8 to i32
// CHECK-NEXT: %[[WB:.+]] = arith.extui %[[B]] : i8 to i32
// CHECK-NEXT: %[[S:.+]] = arith.addi %[[WA]], %[[WB]] : i32
// CHECK-NEXT: %[[T:.+]] = arith.trunci %[[S]] : i32 to i8
// CHECK-NEXT: linalg.yield %[[T]] : i8
func.func @add_uint8(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = "aten.add.Tensor"(%a, %b) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Complex operands stay complex<f32> (the bytes of complex64) and use the complex dialect.
// CHECK-LABEL: func.func @mul_complex
// CHECK: ^bb0(%[[A:.+]]: complex<f32>, %[[B:.+]]: complex<f32>, %{{.+}}: complex<f32>):
// CHECK-NEXT: %[[P:.+]] = complex.mul %[[A]], %[[B]] : complex<f32>
// CHECK-NEXT: linalg.yield %[[P]] : complex<f32>
func.func @mul_complex(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = "aten.mul.Tensor"(%a, %b) : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

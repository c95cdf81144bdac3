// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A `?` dim of the result takes its size from the operand.
// CHECK-LABEL: func.func @exp
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4x?xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %c1
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4x?xf32>) outs(%[[E]] : tensor<4x?xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[R:.+]] = math.exp %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @exp(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = "aten.exp"(%x) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Integer inputs of float-valued ops compute in float32.
// CHECK-LABEL: func.func @sqrt_int
// CHECK: ^bb0(%[[IN:.+]]: i64, %{{.+}}: f32):
// CHECK-NEXT: %[[F:.+]] = arith.sitofp %[[IN]] : i64 to f32
// CHECK-NEXT: math.sqrt %[[F]] : f32
func.func @sqrt_int(%x: tensor<3xi64>) -> tensor<3xf32> {
  %0 = "aten.sqrt"(%x) : (tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// log1p stays math.log1p: the LLVM stage calls libm's log1p for it (cpu-accurate-math).
// CHECK-LABEL: func.func @log1p
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[L:.+]] = math.log1p %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[L]] : f32
func.func @log1p(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.log1p"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Bool results are built as i8 (0/1) tensors.
// CHECK-LABEL: func.func @isnan
// CHECK-SAME: -> tensor<3xi8>
// CHECK: %[[F:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK-NEXT: %[[N:.+]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.extui %[[N]] : i1 to i8
// CHECK-NEXT: linalg.yield %[[B]] : i8
func.func @isnan(%x: tensor<3xf16>) -> tensor<3xi1> {
  %0 = "aten.isnan"(%x) : (tensor<3xf16>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// x ** 2 is x * x, as in ATen's kernel.
// CHECK-LABEL: func.func @pow_square
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
func.func @pow_square(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.pow.Tensor_Scalar"(%x) {exponent = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Half to even, computed in f32 and rounded back.
// CHECK-LABEL: func.func @round_half
// CHECK: %[[F:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK-NEXT: %[[R:.+]] = math.roundeven %[[F]] : f32
// CHECK-NEXT: arith.truncf %[[R]] : f32 to f16
func.func @round_half(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = "aten.round"(%x) : (tensor<3xf16>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

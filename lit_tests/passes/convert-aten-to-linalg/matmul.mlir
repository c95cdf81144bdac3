// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A dynamic row count comes from the operand; the accumulator starts at zero.
// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<?x4xf32>, %[[B:[^ :]+]]: tensor<4x5xf32>)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[N:.+]] = tensor.dim %[[A]]
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x5xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x5xf32>)
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<4x5xf32>) outs(%[[F]] : tensor<?x5xf32>)
// CHECK: return %[[M]]
func.func @mm(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x5xf32> {
  %0 = "aten.mm"(%a, %b) : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// f16 operands accumulate in f32 (the named op casts them); one rounding at the end.
// CHECK-LABEL: func.func @bmm_f16
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x3x5xf32>)
// CHECK: %[[M:.+]] = linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<2x3x4xf16>, tensor<2x4x5xf16>) outs(%[[F]] : tensor<2x3x5xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[M]] : tensor<2x3x5xf32>) outs(%{{.+}} : tensor<2x3x5xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @bmm_f16(%a: tensor<2x3x4xf16>, %b: tensor<2x4x5xf16>) -> tensor<2x3x5xf16> {
  %0 = "aten.bmm"(%a, %b) : (tensor<2x3x4xf16>, tensor<2x4x5xf16>) -> tensor<2x3x5xf16>
  return %0 : tensor<2x3x5xf16>
}

// -----

// beta * self + alpha * product, self broadcast along the rows; beta = 1 is not multiplied.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @addmm
// CHECK-SAME: (%[[S:[^ :]+]]: tensor<5xf32>
// CHECK-DAG: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], {{.+}} ins(%[[M]], %[[S]] : tensor<3x5xf32>, tensor<5xf32>)
// CHECK-NEXT: ^bb0(%[[P:[^:]+]]: f32, %[[SV:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[P]], %[[TWO]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[SV]], %[[SCALED]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]]
func.func @addmm(%s: tensor<5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.addmm"(%s, %a, %b) {alpha = 2 : i64, beta = 1 : i64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

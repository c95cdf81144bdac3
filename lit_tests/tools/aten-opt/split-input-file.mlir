// RUN: aten-opt %s --split-input-file -p aten-drop-dead | FileCheck %s
// RUN: not aten-opt %s --split-input-file -p aten-verify 2>&1 | FileCheck %s --check-prefix=DIAG

// Each chunk is its own module; the outputs are joined by the split marker.

// CHECK-LABEL: func.func @first
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @second
func.func @first(%a: tensor<2xf32>) {
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Diagnostics keep the line numbers of the whole file, and every chunk is processed even
// after one fails.
// DIAG: split-input-file.mlir:[[@LINE+3]]:8: error: 'aten.relu' op has unknown attributes ['inplace']
// DIAG: split-input-file.mlir:[[@LINE+10]]:8: error: 'aten.frobnicate' op is not an op of the aten dialect
func.func @second(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%a) {inplace = true} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @third
func.func @third(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.frobnicate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

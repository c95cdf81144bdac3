// RUN: aten-opt --target triton --list-stages | FileCheck %s --check-prefix=LIST
// RUN: aten-opt --target triton --stage fusion %s | FileCheck %s --check-prefix=FUSION
// RUN: not aten-opt --stage triton-loops..loops %s 2>&1 | FileCheck %s --check-prefix=RANGE

// LIST: triton lowering stages, in order
// LIST: triton-loops
// LIST-NEXT: fuses adjacent parallel nests

// Triton's fusion stage, not the CPU's: no products turned into generics.
// FUSION-LABEL: func.func @mm
// FUSION: linalg.matmul
func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// RANGE: aten-opt: error: stage range 'triton-loops..loops' is empty: 'triton-loops' comes after 'loops'

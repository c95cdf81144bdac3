// RUN: aten-opt %s -p aten-unshare-fills | FileCheck %s

// A fill on a memref has no result: the pass leaves it (it used to read `results[0]` and
// raise IndexError inside the pass callback).
// CHECK-LABEL: func.func @memref_fill
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<4xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
func.func @memref_fill(%m: memref<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%m : memref<4xf32>)
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

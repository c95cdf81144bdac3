// RUN: aten-opt %s -p triton-fold-padding --split-input-file | FileCheck %s

// A 3-tap filter over x padded by 1 on each side: the reader loads x itself, at the clamped
// index, and takes the pad value where the index falls outside (the padded tensor is left
// dead for canonicalize).
// CHECK-LABEL: func.func @window_sum
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<3xf32>) outs(
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: affine.apply
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sle
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[V:.+]] = tensor.extract %arg0[
// CHECK: arith.select %{{.+}}, %[[V]], %cst
#win = affine_map<(d0, d1) -> (d0 + d1)>
#tap = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @window_sum(%x: tensor<8xf32>, %w: tensor<3xf32>) -> tensor<8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
  %p = tensor.insert_slice %x into %f[1] [8] [1] : tensor<8xf32> into tensor<10xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#win, #tap, #out], iterator_types = ["parallel", "reduction"]}
      ins(%p, %w : tensor<10xf32>, tensor<3xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// The padded tensor is also written (an `outs` operand): it stays.
// CHECK-LABEL: func.func @padded_is_written
// CHECK: tensor.insert_slice
#id = affine_map<(d0) -> (d0)>
func.func @padded_is_written(%x: tensor<8xf32>) -> tensor<10xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
  %p = tensor.insert_slice %x into %f[1] [8] [1] : tensor<8xf32> into tensor<10xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%p : tensor<10xf32>) {
  ^bb0(%o: f32):
    %s = arith.addf %o, %o : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  return %r : tensor<10xf32>
}


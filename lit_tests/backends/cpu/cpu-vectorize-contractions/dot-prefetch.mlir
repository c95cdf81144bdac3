// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver5},canonicalize,cse' --split-input-file | FileCheck %s

// dot_kernel: a linear layer's weight W of 1 MiB or more (here 3.4 MB, k 768 < LONG_K: the dot
// kernel, 8 x 2 blocks) is read in blocks of 64 rows; each tile's k loop prefetches (prefetcht1,
// read) a line of row n + 64 + (tile mod 2), clamped to W's last row 1099, per k step.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[LAST:.+]] = arith.constant 1099 : index
// CHECK: %[[ROW:.+]] = arith.minui %{{.+}}, %[[LAST]] : index
// CHECK: scf.for %[[K:.+]] = {{.+}} iter_args(
// CHECK-COUNT-10: vector.load
// CHECK-COUNT-16: vector.fma
// CHECK: memref.prefetch %arg1[%[[ROW]], %[[K]]], read, locality<2>, data : memref<1100x768xf32>
// CHECK-NEXT: scf.yield
#x = affine_map<(i, j, d) -> (i, d)>
#w = affine_map<(i, j, d) -> (j, d)>
#y = affine_map<(i, j, d) -> (i, j)>
func.func @linear(%x: memref<64x768xf32>, %w: memref<1100x768xf32>, %y: memref<64x1100xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x768xf32>, memref<1100x768xf32>) outs(%y : memref<64x1100xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %0 = arith.mulf %p, %r : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A weight under 1 MiB stays in L2: no prefetch.
// CHECK-LABEL: func.func @small_weight
// CHECK-NOT: memref.prefetch
// CHECK: return
#x = affine_map<(i, j, d) -> (i, d)>
#w = affine_map<(i, j, d) -> (j, d)>
#y = affine_map<(i, j, d) -> (i, j)>
func.func @small_weight(%x: memref<64x256xf32>, %w: memref<300x256xf32>, %y: memref<64x300xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x256xf32>, memref<300x256xf32>) outs(%y : memref<64x300xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %0 = arith.mulf %p, %r : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

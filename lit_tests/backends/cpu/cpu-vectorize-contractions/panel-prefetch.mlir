// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver5},canonicalize,cse' --split-input-file | FileCheck %s

// panel_prefetch: a linear layer's weight W (lanes along k, 2048 >= LONG_K at 128 rows: the
// packed kernel) is copied as panels per block; the tiles' k loops prefetch a line of W for
// the next block's copy (prefetcht1, read) after their panel loads.
// CHECK-LABEL: func.func @linear
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<10x256x32xf32>
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.load %[[P]]
// CHECK: memref.prefetch %arg1[{{.+}}], read, locality<2>, data : memref<600x2048xf32>
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P]]
#x = affine_map<(i, j, d) -> (i, d)>
#w = affine_map<(i, j, d) -> (j, d)>
#y = affine_map<(i, j, d) -> (i, j)>
func.func @linear(%x: memref<128x2048xf32>, %w: memref<600x2048xf32>, %y: memref<128x600xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<128x2048xf32>, memref<600x2048xf32>) outs(%y : memref<128x600xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %0 = arith.mulf %p, %r : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The outer kernel on panels (B's rows 4 KiB apart): the tiles prefetch the next block of B's
// k rows the same way.
// CHECK-LABEL: func.func @rows_4k_apart
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x256x32xf32>
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.load %[[P]]
// CHECK: memref.prefetch %arg1[{{.+}}], read, locality<2>, data : memref<300x1024xf32>
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P]]
func.func @rows_4k_apart(%a: memref<128x300xf32>, %b: memref<300x1024xf32>, %c: memref<128x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<128x300xf32>, memref<300x1024xf32>) outs(%c : memref<128x1024xf32>)
  return
}

// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=x86-64-v3},canonicalize,cse' --split-input-file | FileCheck %s

// A 256-bit target (16 ymm registers): a 6 x 2 block of 8-lane vectors (12 accumulators, 2 of
// B, 1 broadcast of A), not 512-bit vectors split in halves by llc.
// CHECK-LABEL: func.func @plain_avx2
// CHECK: scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: vector.broadcast {{.*}} : f32 to vector<8xf32>
// CHECK-NOT: vector<16xf32>
func.func @plain_avx2(%a: memref<16x64xf32>, %b: memref<64x32xf32>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// The dot kernel: a 2 x 4 block (8 accumulators, 2 vectors of A, 4 of B).
// CHECK-LABEL: func.func @dot_avx2
// CHECK: scf.for {{.*}} step %c8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-8: vector.fma
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @dot_avx2(%x: memref<2x256xf32>, %w: memref<12x256xf32>, %y: memref<2x12xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x256xf32>, memref<12x256xf32>) outs(%y : memref<2x12xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

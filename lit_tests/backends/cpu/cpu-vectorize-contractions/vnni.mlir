// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver4},canonicalize,cse' --split-input-file | FileCheck %s

// znver4: AVX512-BF16 without AMX, so a bf16 product with many rows runs the vdpbf16ps kernel
// (vnni_kernel.py): B copied into VNNI panels (bf16 pairs of k adjacent per column), a 6 x 4
// block of f32 accumulators, each row's pair of A broadcast as one 32-bit word.

// x @ W.T (W [n, k]): the panel copy transposes 16 rows x 16 words of W (plain loads inside W,
// masked at its end); k = 65 is odd, so the last pair reads A's element masked (the panel's is
// zero).
// CHECK-LABEL: func.func @linear
// CHECK: %[[PANELS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x48x128xbf16>
// CHECK: scf.if {{.*}} -> (vector<16xi32>,
// CHECK: vector.load %arg1{{.*}} : memref<64x65xbf16>, vector<32xbf16>
// CHECK: } else {
// CHECK: vector.maskedload %arg1{{.*}} : memref<64x65xbf16>, vector<32xi1>, vector<32xbf16>
// CHECK: vector.bitcast {{.*}} : vector<32xbf16> to vector<16xi32>
// CHECK: vector.shuffle {{.*}} : vector<16xi32>, vector<16xi32>
// CHECK: vector.store {{.*}}, %[[PANELS]]{{.*}} : memref<1x48x128xbf16>, vector<32xbf16>
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: vector.load %[[PANELS]]{{.*}} : memref<1x48x128xbf16>, vector<32xbf16>
// CHECK-NEXT: %[[PAIR:.+]] = vector.load %arg0{{.*}} : memref<48x65xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[WORD:.+]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT: %[[SPLAT:.+]] = vector.broadcast %[[WORD]] : vector<1xi32> to vector<16xi32>
// CHECK-NEXT: %[[A:.+]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK-COUNT-4: x86vector.avx512.dot {{.*}}, %[[A]], {{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK: %[[FIRST:.+]] = vector.constant_mask [1] : vector<2xi1>
// CHECK: vector.maskedload %arg0[{{.*}}, %c64], %[[FIRST]]
// CHECK: memref.dealloc %[[PANELS]]
// CHECK-NOT: linalg.generic
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @linear(%x: memref<48x65xbf16>, %w: memref<64x65xbf16>, %y: memref<48x64xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<48x65xbf16>, memref<64x65xbf16>) outs(%y : memref<48x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %a = arith.extf %p : bf16 to f32
    %b = arith.extf %q : bf16 to f32
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// x @ W (W [k, n], `?` rows): two rows of k interleaved (a two-source shuffle, folded to
// vector.interleave) into the panel; C's
// zero fill is kept (`?` k), the tiles add into C; the panels hold min(k, block_k) pairs.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.fill
// CHECK: %[[PANELS:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<8x?x128xbf16>
// CHECK: %[[ROWS:.+]]:2 = scf.if {{.*}} -> (vector<16xbf16>, vector<16xbf16>)
// CHECK-COUNT-2: vector.load %arg1{{.*}} : memref<?x1000xbf16>, vector<16xbf16>
// CHECK: } else {
// CHECK-COUNT-2: vector.maskedload %arg1{{.*}} : memref<?x1000xbf16>, vector<16xi1>, vector<16xbf16>
// CHECK: %[[PAIRS:.+]] = vector.interleave %[[ROWS]]#0, %[[ROWS]]#1 : vector<16xbf16> -> vector<32xbf16>
// CHECK-NEXT: vector.store %[[PAIRS]], %[[PANELS]]
// CHECK: x86vector.avx512.dot
// CHECK: memref.dealloc %[[PANELS]]
func.func @matmul(%x: memref<?x?xbf16>, %w: memref<?x1000xbf16>, %y: memref<?x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x1000xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xbf16>, memref<?x1000xbf16>) outs(%y : memref<?x1000xf32>)
  return
}

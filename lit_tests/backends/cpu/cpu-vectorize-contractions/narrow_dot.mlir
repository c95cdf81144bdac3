// RUN: aten-opt %s -p "cpu-vectorize-contractions{cpu=sapphirerapids},canonicalize,cse" --split-input-file | FileCheck %s
// RUN: aten-opt %s -p "cpu-vectorize-contractions{cpu=x86-64-v3},canonicalize,cse" --split-input-file | FileCheck %s --check-prefix=AVX2

// A decode step's Linear (bf16 x of 2 rows, W [17, 100] contiguous along k) on an AVX512-BF16
// target: both rows in one block, so W goes by once; 32 bf16 of x and of W per step, each pair
// multiplied and added into one f32 lane (vdpbf16ps); the k tail (100 = 3 x 32 + 4) one masked
// step, zero padded; one reduction per element of C at the end. Columns: blocks of 4, the 17th
// alone.
// CHECK-LABEL: func.func @decode
// CHECK: scf.for %[[N:.+]] = %c0 to %c16 step %c4
// CHECK: scf.for {{.*}} to %c96 step %c32 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %arg0{{.*}} : memref<2x100xbf16>, vector<32xbf16>
// CHECK: vector.load %arg1[%[[N]], {{.*}}] : memref<17x100xbf16>, vector<32xbf16>
// CHECK-COUNT-8: x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK: scf.yield
// CHECK: vector.constant_mask [4] : vector<32xi1>
// CHECK: vector.maskedload %arg1{{.*}} : memref<17x100xbf16>, vector<32xi1>, vector<32xbf16>
// CHECK: x86vector.avx512.dot
// CHECK: vector.reduction <add>, {{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK-NOT: linalg.generic
// AVX2-LABEL: func.func @decode
// AVX2-NOT: x86vector
// AVX2: vector.fma
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @decode(%x: memref<2x100xbf16>, %w: memref<17x100xbf16>, %y: memref<2x17xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x100xbf16>, memref<17x100xbf16>) outs(%y : memref<2x17xf32>) {
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

// A `?` number of rows: up to 8 run the pair kernel (blocks of 1, 2, 4 or 8 rows, the smallest
// that holds M; a block's rows past M read row M - 1 and are not stored), more the kernel the
// pass would have chosen without it (here AMX). (k = 100: no tile columns, see @tiles)
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0 : memref<?x100xbf16>
// CHECK: %[[FEW:.+]] = arith.cmpi ule, %[[M]], %c8 : index
// CHECK: scf.if %[[FEW]] {
// CHECK: arith.cmpi ule, %[[M]], %c1 : index
// CHECK: x86vector.avx512.dot
// CHECK: arith.cmpi ule, %[[M]], %c2 : index
// CHECK: arith.cmpi ule, %[[M]], %c4 : index
// CHECK: arith.minui {{.*}}, %c3 : index
// CHECK: %[[PAST:.+]] = arith.cmpi ugt, %[[M]], %c3 : index
// CHECK-NEXT: scf.if %[[PAST]] {
// The 8-row block: pairs split into even (shifted) and odd (masked) f32 halves for fmas
// CHECK: vector.bitcast {{.*}} : vector<32xbf16> to vector<16xi32>
// CHECK: arith.shli
// CHECK: arith.andi
// CHECK: vector.fma
// CHECK: } else {
// CHECK: amx.tile_mulf
// AVX2-LABEL: func.func @dynamic_rows
// AVX2-NOT: x86vector
// AVX2-NOT: vector.bitcast
// AVX2: vector.fma
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @dynamic_rows(%x: memref<?x100xbf16>, %w: memref<48x100xbf16>, %y: memref<?x48xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x100xbf16>, memref<48x100xbf16>) outs(%y : memref<?x48xf32>) {
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

// k a multiple of 32 and two blocks of 16 weight rows or more, on an AMX target: x (3 rows)
// copied once to 8-column VNNI words (pairs of k scattered 8 words apart, rows past M zero);
// per 16 rows of W a 16 x 32 tile loaded in place times x's 16 x 16 tile into a 16 x 8 f32
// tile across k, stored and added into C 16 columns at a time (gathered down the stored
// columns); the last 4 columns (100 = 6 x 16 + 4) on the pair dots.
// CHECK-LABEL: func.func @tiles
// CHECK: %[[RAW:.+]] = memref.alloc() : memref<4096xi8>
// CHECK: %[[WORDS:.+]] = memref.view %[[RAW]][%c0][] : memref<4096xi8> to memref<128x8xi32>
// CHECK: %[[VNNI:.+]] = memref.view %[[RAW]][%c0][] : memref<4096xi8> to memref<128x16xbf16>
// CHECK: vector.bitcast {{.*}} : vector<32xbf16> to vector<16xi32>
// CHECK: arith.select
// CHECK: vector.scatter %[[WORDS]]
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<16x8xf32>
// CHECK: scf.for %[[N:.+]] = %c0 to %c96 step %c16
// CHECK: amx.tile_zero : !amx.tile<16x8xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!amx.tile<16x8xf32>)
// CHECK: amx.tile_load %[[VNNI]]{{.*}} into !amx.tile<16x16xbf16>
// CHECK: amx.tile_load %arg1[%[[N]], {{.*}}] : memref<100x256xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_mulf {{.*}} : !amx.tile<16x32xbf16>, !amx.tile<16x16xbf16>, !amx.tile<16x8xf32>
// CHECK: amx.tile_store %[[OUT]]
// CHECK: scf.for {{.*}} to %c3 step %c1
// CHECK: vector.gather %[[OUT]]
// CHECK: vector.load %arg2
// CHECK: arith.addf
// CHECK: vector.store {{.*}}, %arg2
// CHECK: memref.dealloc %[[OUT]]
// CHECK: memref.dealloc %[[RAW]]
// The last 4 columns: one block of 3 x 4 pair-dot accumulators (its one-trip column loop folds)
// CHECK: scf.for {{.*}} = %c0 to %c256 step %c32 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %arg1[%c96, {{.*}}] : memref<100x256xbf16>, vector<32xbf16>
// CHECK: x86vector.avx512.dot
// AVX2-LABEL: func.func @tiles
// AVX2-NOT: amx.
// AVX2: vector.fma
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @tiles(%x: memref<3x256xbf16>, %w: memref<100x256xbf16>, %y: memref<3x100xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<3x256xbf16>, memref<100x256xbf16>) outs(%y : memref<3x100xf32>) {
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %a = arith.extf %p : bf16 to f32
    %b = arith.extf %q : bf16 to f32
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

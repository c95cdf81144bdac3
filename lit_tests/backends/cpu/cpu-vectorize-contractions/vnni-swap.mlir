// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver4},canonicalize,cse' | FileCheck %s

// znver4 (AVX512-BF16, no AMX): x @ W.T with few static rows (20) and a wide W (100 rows)
// runs swapped (vnni_swap.py): x is the operand copied into VNNI panels (its 20 rows zero-padded
// to 32 lanes, 33 pairs of k rounded to 48), W's pairs are broadcast straight from W, a 12 x 2
// register block holds 12 columns x 32 rows of C, stored through register transposes as 20
// masked stores of 12 columns (one per row of C), then the rest of W (4 rows) as 4 columns.
// C's zero fill is folded (every element written from zeros in the one k block).
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.fill
// CHECK: %[[PANELS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x48x64xbf16>
// CHECK: vector.load %arg0{{.*}} : memref<20x65xbf16>, vector<32xbf16>
// CHECK: vector.store {{.*}}, %[[PANELS]]{{.*}} : memref<1x48x64xbf16>, vector<32xbf16>
// CHECK: %[[TILE:.+]]:24 = scf.for {{.*}} -> (vector<16xf32>,
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[X0:.+]] = vector.load %[[PANELS]]{{.*}} : memref<1x48x64xbf16>, vector<32xbf16>
// CHECK-NEXT: %[[X1:.+]] = vector.load %[[PANELS]]{{.*}} : memref<1x48x64xbf16>, vector<32xbf16>
// CHECK-NEXT: %[[PAIR:.+]] = vector.load %arg1{{.*}} : memref<100x65xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[WORD:.+]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT: %[[SPLAT:.+]] = vector.broadcast %[[WORD]] : vector<1xi32> to vector<16xi32>
// CHECK-NEXT: %[[W:.+]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK-NEXT: x86vector.avx512.dot {{.*}}, %[[W]], %[[X0]] : vector<32xbf16> -> vector<16xf32>
// CHECK-NEXT: x86vector.avx512.dot {{.*}}, %[[W]], %[[X1]] : vector<32xbf16> -> vector<16xf32>
// CHECK: %[[TWELVE:.+]] = vector.constant_mask [12] : vector<16xi1>
// CHECK: vector.shuffle
// CHECK-COUNT-20: vector.maskedstore %arg2[{{.*}}], %[[TWELVE]], {{.*}} : memref<20x100xf32>, vector<16xi1>, vector<16xf32>
// CHECK: %[[FOUR:.+]] = vector.constant_mask [4] : vector<16xi1>
// CHECK: vector.maskedstore %arg2[%c0, %c96], %[[FOUR]]
// CHECK: memref.dealloc %[[PANELS]]
// CHECK-NOT: linalg.generic
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @linear(%x: memref<20x65xbf16>, %w: memref<100x65xbf16>, %y: memref<20x100xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<20x100xf32>)
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<20x65xbf16>, memref<100x65xbf16>) outs(%y : memref<20x100xf32>) {
  ^bb0(%p: bf16, %q: bf16, %acc: f32):
    %a = arith.extf %p : bf16 to f32
    %b = arith.extf %q : bf16 to f32
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver4},canonicalize,cse' | FileCheck %s

// f32 x @ W.T with 32 static rows and a wide W (136 rows) runs swapped (outer_swap.py): x is
// the operand copied into panels (its 32 rows transposed, 33 k rounded to 48), W's elements are
// broadcast straight from W, a 12 x 2 register block holds 12 columns x 32 rows of C over all
// of k, stored through register transposes as 32 masked stores of 12 columns (one per row of
// C), then the rest of W (4 rows) as 32 stores of 4 columns. C's zero fill is folded (every
// element written from zeros in the one k block).
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.fill
// CHECK: %[[PANELS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x48x32xf32>
// CHECK: vector.load %arg0{{.*}} : memref<32x33xf32>, vector<16xf32>
// CHECK: vector.store {{.*}}, %[[PANELS]]{{.*}} : memref<1x48x32xf32>, vector<16xf32>
// CHECK: %[[TILE:.+]]:24 = scf.for %{{.+}} = %c0 to %c33 step %c1
// CHECK-NEXT: %[[X0:.+]] = vector.load %[[PANELS]]{{.*}} : memref<1x48x32xf32>, vector<16xf32>
// CHECK-NEXT: %[[X1:.+]] = vector.load %[[PANELS]]{{.*}} : memref<1x48x32xf32>, vector<16xf32>
// CHECK-NEXT: %[[E:.+]] = memref.load %arg1{{.*}} : memref<136x33xf32>
// CHECK-NEXT: %[[W:.+]] = vector.broadcast %[[E]] : f32 to vector<16xf32>
// CHECK-NEXT: vector.fma %[[W]], %[[X0]], {{.*}} : vector<16xf32>
// CHECK-NEXT: vector.fma %[[W]], %[[X1]], {{.*}} : vector<16xf32>
// CHECK: %[[TWELVE:.+]] = vector.constant_mask [12] : vector<16xi1>
// CHECK: vector.shuffle
// CHECK-COUNT-32: vector.maskedstore %arg2[{{.*}}], %[[TWELVE]], {{.*}} : memref<32x136xf32>, vector<16xi1>, vector<16xf32>
// CHECK: %[[FOUR:.+]] = vector.constant_mask [4] : vector<16xi1>
// CHECK-COUNT-32: vector.maskedstore %arg2[{{.*}}], %[[FOUR]], {{.*}} : memref<32x136xf32>
// CHECK: memref.dealloc %[[PANELS]]
// CHECK-NOT: linalg.generic
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @linear(%x: memref<32x33xf32>, %w: memref<136x33xf32>, %y: memref<32x136xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<32x136xf32>)
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x33xf32>, memref<136x33xf32>) outs(%y : memref<32x136xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

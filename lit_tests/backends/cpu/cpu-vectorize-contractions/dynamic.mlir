// RUN: aten-opt %s -p cpu-vectorize-contractions,canonicalize,cse --split-input-file | FileCheck %s

// `?` rows and columns: trip counts from memref.dim, whole 8 x 32 blocks up to the largest
// multiple, then the columns left as one vector a step masked by what is left of the row, and
// the rows left (< 8) as one tile of 8, 4, 2 or 1 rows, the next at or above what is left
// (tiles ordered by column panel): an 8-row tile's rows 5-7 (a 4-row tile's row 3) may be
// past M, so they read row min(m + i, M - 1) and store under `scf.if (m + i < M)` (m_tiles).
// `?` rows may be many: B is copied as 32-wide panels per block (lanes past n masked to zero)
// once, before the m blocks, whose tiles' k loops read them.
// CHECK-LABEL: func.func @dynamic_rows_and_columns
// CHECK-DAG: %[[M:.+]] = memref.dim %arg0, %c0 : memref<?x64xf32>
// CHECK-DAG: %[[N:.+]] = memref.dim %arg1, %c1 : memref<64x?xf32>
// CHECK-DAG: arith.divui %[[M]], %c8
// CHECK-DAG: arith.divui %[[N]], %c32
// CHECK: scf.for %{{.*}} = %c0 to %[[N]] step %c512
// CHECK: %[[PANELS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x64x32xf32>
// CHECK: vector.create_mask
// CHECK: vector.maskedload %arg1
// CHECK: vector.store {{.*}}, %[[PANELS]]
// CHECK: scf.for %{{.*}} = %c0 to %[[M]] step %c256
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NEXT: vector.load %[[PANELS]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK-COUNT-3: arith.minui
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK-NEXT: scf.if
// CHECK: arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK-NEXT: scf.if
// CHECK: arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK-NEXT: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK: arith.minui
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: %[[LEFT:.+]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[MASK:.+]] = vector.create_mask %[[LEFT]] : vector<16xi1>
// CHECK: vector.maskedload %arg2[%{{.*}}], %[[MASK]]
// CHECK: vector.maskedstore %arg2[%{{.*}}], %[[MASK]]
// CHECK: memref.dealloc %[[PANELS]]
// CHECK-NOT: linalg.matmul
func.func @dynamic_rows_and_columns(%a: memref<?x64xf32>, %b: memref<64x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// `?` k in the dot kernel: whole vectors of k, then the tail masked by what is left (0 lanes
// when 16 divides k: nothing is read).
// CHECK-LABEL: func.func @dynamic_k_dot
// CHECK: %[[K:.+]] = memref.dim %arg0, %c1 : memref<8x?xf32>
// CHECK: %[[MAIN:.+]] = arith.muli {{.*}}, %c16
// CHECK: %[[TAIL:.+]] = arith.subi %[[K]], %[[MAIN]]
// CHECK: scf.for %{{.*}} = %c0 to %[[MAIN]] step %c16
// CHECK: vector.create_mask %[[TAIL]] : vector<16xi1>
// CHECK: vector.shuffle
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @dynamic_k_dot(%x: memref<8x?xf32>, %w: memref<12x?xf32>, %y: memref<8x12xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x?xf32>, memref<12x?xf32>) outs(%y : memref<8x12xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Attention scores with the sequence `?` in both dims of C: panels of a static size copied
// straight from k's rows (16 x 16 blocks transposed in registers); the rows past the runtime
// sequence read nothing (masks of what is left). q is copied as k-major strips only from 512
// columns (the `?` sequence), as a static compile copies it: the nest twice under an scf.if.
// CHECK-LABEL: func.func @dynamic_scores
// CHECK: %[[N:.+]] = memref.dim %arg1, %c1 : memref<2x?x16xf32>
// CHECK: %[[WIDE:.+]] = arith.cmpi sge, %[[N]], %c512 : index
// CHECK-NEXT: scf.if %[[WIDE]] {
// CHECK: %[[STRIPS:.+]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<1x?x256x8xf32>
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x16x32xf32>
// CHECK: vector.create_mask
// CHECK-NEXT: vector.maskedload %arg1
// CHECK: vector.shuffle
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P]]
// CHECK: memref.dealloc %[[STRIPS]]
// CHECK-NEXT: } else {
// CHECK-NOT: memref<1x?x256x8xf32>
// CHECK: %[[P2:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x16x32xf32>
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P2]]
#q = affine_map<(b, i, j, d) -> (b, i, d)>
#k = affine_map<(b, i, j, d) -> (b, j, d)>
#s = affine_map<(b, i, j, d) -> (b, i, j)>
func.func @dynamic_scores(%q: memref<2x?x16xf32>, %k: memref<2x?x16xf32>, %s: memref<2x?x?xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x?x16xf32>, memref<2x?x16xf32>) outs(%s : memref<2x?x?xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %0 = arith.mulf %p, %r : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// `?` k with C's zero fill: the kernels' first k block starts from zeros; the fill stays only
// for k = 0 (no k block runs), not as a pass over C before every product.
// CHECK-LABEL: func.func @dynamic_k_fill
// CHECK: %[[K:.+]] = memref.dim %arg0, %c1 : memref<?x?xf32>
// CHECK: %[[EMPTY:.+]] = arith.cmpi eq, %[[K]], %c0 : index
// CHECK-NEXT: scf.if %[[EMPTY]] {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%arg2 : memref<?x64xf32>)
// CHECK-NEXT: }
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.matmul
func.func @dynamic_k_fill(%a: memref<?x?xf32>, %b: memref<?x64xf32>, %c: memref<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x64xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x64xf32>) outs(%c : memref<?x64xf32>)
  return
}

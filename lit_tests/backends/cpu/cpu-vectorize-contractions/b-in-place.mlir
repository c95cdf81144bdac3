// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver5},canonicalize,cse' --split-input-file | FileCheck %s

// b_panels.reads_b_in_place: an f32 B whose rows are not a multiple of 4 KiB apart (1100
// columns: 4400 B) is read in place by the tiles at 128 rows (past PANEL_MIN_ROWS): no panel
// copy, the kernel's B loads straight from %b.
// CHECK-LABEL: func.func @unaliased_b
// CHECK-NOT: memref.alloc
// CHECK: vector.load %arg1[{{.+}}] : memref<531x1100xf32>, vector<16xf32>
// CHECK: vector.fma
func.func @unaliased_b(%a: memref<128x531xf32>, %b: memref<531x1100xf32>, %c: memref<128x1100xf32>) {
  linalg.matmul ins(%a, %b : memref<128x531xf32>, memref<531x1100xf32>) outs(%c : memref<128x1100xf32>)
  return
}

// -----

// B rows 4 KiB apart (1024 columns) keep the panel copy; a panel inside B's columns is loaded
// by whole vectors under an scf.if, the masked loads only in its else branch.
// CHECK-LABEL: func.func @rows_4k_apart
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x256x32xf32>
// CHECK: scf.if
// CHECK: %[[V:.+]] = vector.load %arg1[{{.+}}] : memref<300x1024xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %[[P]]
// CHECK: } else {
// CHECK: vector.maskedload %arg1
// CHECK: vector.fma
func.func @rows_4k_apart(%a: memref<128x300xf32>, %b: memref<300x1024xf32>, %c: memref<128x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<128x300xf32>, memref<300x1024xf32>) outs(%c : memref<128x1024xf32>)
  return
}

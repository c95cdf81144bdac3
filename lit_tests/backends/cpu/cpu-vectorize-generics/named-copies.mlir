// RUN: aten-opt %s -p 'cpu-vectorize-generics{lanes=16},canonicalize' --split-input-file | FileCheck %s

// A linalg.copy from a view at a run-time offset (a KV-cache slice past[i] in an outlined
// layer) runs as vector loads and stores, as an identity generic would; left to
// convert-linalg-to-parallel-loops it was a scalar nest LLVM did not vectorize.
// CHECK-LABEL: func.func @slice_at_run_time_offset
// CHECK-NOT: linalg.copy
// CHECK: scf.for
// CHECK: vector.load %{{.+}} : memref<{{.+}}offset: ?>>, vector<16xf32>
// CHECK: vector.store %{{.+}} : memref<{{.+}}>, vector<16xf32>
func.func @slice_at_run_time_offset(%cache: memref<4x33x64xf32>, %i: index, %out: memref<33x64xf32>) {
  %slice = memref.subview %cache[%i, 0, 0] [1, 33, 64] [1, 1, 1] : memref<4x33x64xf32> to memref<33x64xf32, strided<[64, 1], offset: ?>>
  linalg.copy ins(%slice : memref<33x64xf32, strided<[64, 1], offset: ?>>) outs(%out : memref<33x64xf32>)
  return
}

// -----

// A copy that converts between element types is not an identity: it stays.
// CHECK-LABEL: func.func @converting_copy
// CHECK: linalg.copy
func.func @converting_copy(%a: memref<8xf32>, %b: memref<8xf64>) {
  linalg.copy ins(%a : memref<8xf32>) outs(%b : memref<8xf64>)
  return
}

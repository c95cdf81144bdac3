// RUN: not aten-opt %s -p expand-strided-metadata 2>&1 | FileCheck %s --implicit-check-not=PLEASE \
// RUN:   --implicit-check-not=Traceback --implicit-check-not='Stack dump'

// Two dynamic sizes in one reassociation group make upstream expand-strided-metadata assert.
// The pass runs in a forked child: the assertion is exit 1 with one located error line, not
// exit 134 with LLVM's stack dump.
// CHECK: crash.mlir:[[@LINE+1]]:1: error: MLIR crashed (SIGABRT) in pass 'expand-strided-metadata' of the pass pipeline: {{.*}}at most one dynamic size per group
func.func @f(%m: memref<?xf32>, %d: index) -> memref<2x?x?xf32> {
  %0 = memref.expand_shape %m [[0, 1, 2]] output_shape [2, %d, %d] : memref<?xf32> into memref<2x?x?xf32>
  return %0 : memref<2x?x?xf32>
}

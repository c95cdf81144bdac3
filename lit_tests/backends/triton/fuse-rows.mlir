// RUN: aten-opt %s -p triton-fuse-rows --split-input-file | FileCheck %s

// A row sum, then a nest over rows x cols reading it: one nest over the rows, the second body
// an inner loop over the cols (the allocation between them moves above).
// CHECK-LABEL: func.func @row_sum_then_scale
// CHECK: memref.alloc
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK:   scf.for
// CHECK:   scf.parallel (%[[J:.+]]) =
// CHECK:     memref.load %{{.+}}[%[[I]]]
// CHECK:     memref.store %{{.+}}, %{{.+}}[%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
func.func @row_sum_then_scale(%x: memref<4x8xf32>, %sum: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %a = memref.load %sum[%i] : memref<4xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %s = memref.load %sum[%i] : memref<4xf32>
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    %d = arith.divf %v, %s : f32
    memref.store %d, %out[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// The second nest reads the sums at another row: a lane would read what another lane writes.
// CHECK-LABEL: func.func @reads_another_row
// CHECK: scf.parallel (%{{.+}}) =
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) =
func.func @reads_another_row(%x: memref<4x8xf32>, %sum: memref<4xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %r = arith.subi %c3, %i : index
    %s = memref.load %sum[%r] : memref<4xf32>
    memref.store %s, %out[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// An elementwise nest over rows x cols, then a row reduction of its result: the first nest is
// split into rows around an inner loop, and the reduction joins it.
// CHECK-LABEL: func.func @scale_then_row_max
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK:   scf.parallel (%[[J:.+]]) =
// CHECK:     memref.store %{{.+}}, %{{.+}}[%[[I]], %[[J]]]
// CHECK:   scf.for
// CHECK-NOT: scf.parallel (%{{.+}}, %{{.+}})
func.func @scale_then_row_max(%x: memref<4x8xf32>, %t: memref<4x8xf32>, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    %d = arith.mulf %v, %two : f32
    memref.store %d, %t[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %t[%i, %k] : memref<4x8xf32>
      %a = memref.load %m[%i] : memref<4xf32>
      %s = arith.maximumf %a, %v : f32
      memref.store %s, %m[%i] : memref<4xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A nest sharing no buffer with the one before (rotary tables between an embedding and its
// norm) moves above it; the embedding and the row sum then fuse.
// CHECK-LABEL: func.func @independent_nest_in_between
// CHECK: scf.parallel (%{{.+}}) = (%c0) to (%c16)
// CHECK: memref.store %{{.+}}, %arg2[
// CHECK: scf.parallel (%[[I:.+]]) = (%c0) to (%c4)
// CHECK:   scf.parallel
// CHECK:     memref.store %{{.+}}, %alloc[%[[I]],
// CHECK:   scf.for
// CHECK-NOT: scf.parallel
func.func @independent_nest_in_between(%x: memref<4x8xf32>, %sum: memref<4xf32>,
                                       %t: memref<16xf32>, %table: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %h[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  scf.parallel (%k) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %table[%k] : memref<16xf32>
    %c = math.cos %v : f32
    memref.store %c, %t[%k] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %h[%i, %k] : memref<4x8xf32>
      %a = memref.load %sum[%i] : memref<4xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
    scf.reduce
  }
  memref.dealloc %h : memref<4x8xf32>
  return
}

// RUN: aten-opt %s -p triton-rematerialize --split-input-file | FileCheck %s

// A fused softmax's scaled scores: stored once, read by two passes over the row. Each read
// becomes `x * 0.25` at the reader's index, and the temporary is never written.
// CHECK-LABEL: func.func @scaled_row
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK-NOT: memref.store %{{.+}}, %alloc[
// CHECK:   scf.for %[[K:.+]] =
// CHECK:     %[[X:.+]] = memref.load %arg0[%[[I]], %[[K]]]
// CHECK:     arith.mulf %[[X]], %cst
// CHECK:   scf.for %[[J:.+]] =
// CHECK:     %[[Y:.+]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK:     arith.mulf %[[Y]], %cst
// CHECK-NOT: memref.load %alloc
func.func @scaled_row(%x: memref<4x8xf32>, %out: memref<4x8xf32>, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.25 : f32
  %t = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %x[%i, %j] : memref<4x8xf32>
      %s = arith.mulf %v, %cst : f32
      memref.store %s, %t[%i, %j] : memref<4x8xf32>
      scf.reduce
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %t[%i, %k] : memref<4x8xf32>
      %a = memref.load %m[%i] : memref<4xf32>
      %b = arith.maximumf %a, %v : f32
      memref.store %b, %m[%i] : memref<4xf32>
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %t[%i, %k] : memref<4x8xf32>
      %a = memref.load %m[%i] : memref<4xf32>
      %d = arith.subf %v, %a : f32
      memref.store %d, %out[%i, %k] : memref<4x8xf32>
    }
    scf.reduce
  }
  memref.dealloc %t : memref<4x8xf32>
  return
}

// -----

// The temporary is read after the nest: the loads inside are recomputed, the store stays.
// CHECK-LABEL: func.func @read_after
// CHECK: scf.parallel
// CHECK:   memref.store %{{.+}}, %[[T:.+]][
// CHECK:   scf.for
// CHECK-NOT: memref.load %[[T]]
// CHECK: return %[[T]]
func.func @read_after(%x: memref<4x8xf32>, %out: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.25 : f32
  %t = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %x[%i, %j] : memref<4x8xf32>
      %s = arith.mulf %v, %cst : f32
      memref.store %s, %t[%i, %j] : memref<4x8xf32>
      scf.reduce
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %t[%i, %k] : memref<4x8xf32>
      memref.store %v, %out[%i, %k] : memref<4x8xf32>
    }
    scf.reduce
  }
  return %t : memref<4x8xf32>
}

// -----

// The stored value reads a buffer the nest writes (a running sum): recomputing it later would
// see another value, so the temporary stays.
// CHECK-LABEL: func.func @reads_written_buffer
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: memref.load %alloc[
func.func @reads_written_buffer(%x: memref<4x8xf32>, %acc: memref<4xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x8xf32>
      %a = memref.load %acc[%i] : memref<4xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%i] : memref<4xf32>
      memref.store %s, %t[%i, %j] : memref<4x8xf32>
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %t[%i, %k] : memref<4x8xf32>
      memref.store %v, %out[%i, %k] : memref<4x8xf32>
    }
    scf.reduce
  }
  memref.dealloc %t : memref<4x8xf32>
  return
}

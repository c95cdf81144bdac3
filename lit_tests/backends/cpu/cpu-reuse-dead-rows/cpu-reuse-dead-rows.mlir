// RUN: aten-opt %s --split-input-file -p cpu-reuse-dead-rows | FileCheck %s

// A nest that reads a dead buffer at its own rows before writing a fresh one of the same type
// there writes over the dead one: one buffer, freed once.
// CHECK-LABEL: func.func @reused
// CHECK: %[[A:.+]] = memref.alloc() {{.*}} : memref<4x8xf32>
// CHECK-NOT: memref.alloc()
// CHECK: memref.load %[[A]][%[[I:.+]], %[[J:.+]]]
// CHECK: memref.store %{{.+}}, %[[A]][%[[I]], %[[J]]]
// CHECK-NOT: memref.dealloc
// CHECK: return %[[A]]
func.func @reused(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  memref.copy %x, %a : memref<4x8xf32> to memref<4x8xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  memref.dealloc %a : memref<4x8xf32>
  return %b : memref<4x8xf32>
}

// -----

// The "dead" buffer is read after the nest through a view made before it (a pdist backward's
// pair gradients, read by the reduction through an expand_shape): not dead, both stay.
// CHECK-LABEL: func.func @read_through_a_view
// CHECK-COUNT-2: memref.alloc() {{.*}} : memref<4x8xf32>
func.func @read_through_a_view(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %g = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  %view = memref.expand_shape %g [[0], [1, 2]] output_shape [4, 8, 1] : memref<4x8xf32> into memref<4x8x1xf32>
  %out = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    memref.store %v, %g[%i, %j] : memref<4x8xf32>
    memref.store %zero, %out[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %view[%i, %j, %c0] : memref<4x8x1xf32>
      %s = memref.load %out[%i, %c0] : memref<4x8xf32>
      %t = arith.addf %s, %v : f32
      memref.store %t, %out[%i, %c0] : memref<4x8xf32>
    }
    scf.reduce
  }
  memref.dealloc %g : memref<4x8xf32>
  return %out : memref<4x8xf32>
}

// RUN: aten-opt %s -p triton-unalias-epilogues --split-input-file | FileCheck %s

// The nest after the product overwrites the product's A: it gets a buffer of its own, which
// the later reader takes and which is freed after it; A keeps its deallocation.
// CHECK-LABEL: func.func @in_place_over_an_operand
// CHECK: call @aten_triton_matmul_0(%[[A:[a-z_0-9]+]], %arg0, %{{[a-z_0-9]+}}) {
// CHECK: %[[NEW:[a-z_0-9]+]] = memref.alloc() : memref<4x4xf32>
// CHECK: scf.parallel
// CHECK: memref.store %{{.+}}, %[[NEW]][
// CHECK: scf.parallel
// CHECK: memref.load %[[NEW]][
// CHECK: memref.dealloc %[[NEW]]
// CHECK: memref.dealloc %[[A]]
func.func private @aten_triton_matmul_0(memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>)
func.func @in_place_over_an_operand(%w: memref<4x4xf32>, %x: memref<4x4xf32>, %o: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4x4xf32>
  %c = memref.alloc() : memref<4x4xf32>
  memref.copy %x, %a : memref<4x4xf32> to memref<4x4xf32>
  call @aten_triton_matmul_0(%a, %w, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,x,0,1,x;B:x,x,0,1,x;C:x,x,0,1"} : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %c[%i, %j] : memref<4x4xf32>
    %r = arith.addf %v, %v : f32
    memref.store %r, %a[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x4xf32>
    memref.store %v, %o[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  memref.dealloc %c : memref<4x4xf32>
  memref.dealloc %a : memref<4x4xf32>
  return
}

// -----

// A view of the operand made before the nest is read after it: left as it is.
// CHECK-LABEL: func.func @view_made_before
// CHECK: call @aten_triton_matmul_0
// CHECK-NOT: memref.alloc
// CHECK: memref.store %{{.+}}, %alloc[
func.func private @aten_triton_matmul_0(memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>)
func.func @view_made_before(%w: memref<4x4xf32>, %x: memref<4x4xf32>, %o: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<4x4xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %c = memref.alloc() : memref<4x4xf32>
  memref.copy %x, %a : memref<4x4xf32> to memref<4x4xf32>
  call @aten_triton_matmul_0(%a, %w, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,x,0,1,x;B:x,x,0,1,x;C:x,x,0,1"} : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %c[%i, %j] : memref<4x4xf32>
    memref.store %v, %a[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %flat[%i] : memref<16xf32>
    memref.store %v, %o[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %c : memref<4x4xf32>
  memref.dealloc %a : memref<4x4xf32>
  return
}

// -----

// The operand's buffer is the caller's result: the new buffer is returned instead, and the
// old one freed.
// CHECK-LABEL: func.func @returned
// CHECK: %[[A:[a-z_0-9]+]] = memref.alloc() : memref<4x4xf32>
// CHECK: %[[NEW:[a-z_0-9]+]] = memref.alloc() : memref<4x4xf32>
// CHECK-NEXT: scf.parallel
// CHECK: memref.store %{{.+}}, %[[NEW]][
// CHECK: memref.dealloc %[[A]]
// CHECK-NEXT: return %[[NEW]]
func.func private @aten_triton_matmul_0(memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>)
func.func @returned(%w: memref<4x4xf32>, %x: memref<4x4xf32>, %c: memref<4x4xf32>) -> memref<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4x4xf32>
  memref.copy %x, %a : memref<4x4xf32> to memref<4x4xf32>
  call @aten_triton_matmul_0(%a, %w, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,x,0,1,x;B:x,x,0,1,x;C:x,x,0,1"} : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %c[%i, %j] : memref<4x4xf32>
    memref.store %v, %a[%i, %j] : memref<4x4xf32>
    scf.reduce
  }
  return %a : memref<4x4xf32>
}

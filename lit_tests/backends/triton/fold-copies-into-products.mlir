// RUN: aten-opt %s -p triton-fold-copies-into-products --split-input-file | FileCheck %s

// A key transpose (heads x seq -> seq x heads) copied only for a product: the product reads the
// source and the permutation moves into B's layout (the batch and K roles name source dims 1, 0).
// CHECK-LABEL: func.func @transposed_operand
// CHECK-NOT: memref.store
// CHECK: call @aten_triton_matmul_0_f0(%arg0, %arg1, %arg2) {aten.dot_init = 0.000000e+00 : f32, aten.dot_layout = "A:x,0,1,2,x;B:x,1,0,2,x;C:x,0,1,2"}
func.func private @aten_triton_matmul_0(memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>)
func.func @transposed_operand(%a: memref<2x4x8xf32>, %k: memref<8x2x4xf32>, %c: memref<2x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<2x8x4xf32>
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %k[%i, %b, %j] : memref<8x2x4xf32>
    memref.store %v, %t[%b, %i, %j] : memref<2x8x4xf32>
    scf.reduce
  }
  call @aten_triton_matmul_0(%a, %t, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,0,1,2,x;B:x,0,1,2,x;C:x,0,1,2"} : (memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>) -> ()
  memref.dealloc %t : memref<2x8x4xf32>
  return
}

// -----

// The copy is also read by a nest: it stays.
// CHECK-LABEL: func.func @copy_read_elsewhere
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: call @aten_triton_matmul_0(%arg0, %alloc, %arg2)
func.func private @aten_triton_matmul_0(memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>)
func.func @copy_read_elsewhere(%a: memref<2x4x8xf32>, %k: memref<8x2x4xf32>, %c: memref<2x4x4xf32>,
                               %o: memref<2x8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<2x8x4xf32>
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %k[%i, %b, %j] : memref<8x2x4xf32>
    memref.store %v, %t[%b, %i, %j] : memref<2x8x4xf32>
    scf.reduce
  }
  call @aten_triton_matmul_0(%a, %t, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,0,1,2,x;B:x,0,1,2,x;C:x,0,1,2"} : (memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>) -> ()
  memref.copy %t, %o : memref<2x8x4xf32> to memref<2x8x4xf32>
  memref.dealloc %t : memref<2x8x4xf32>
  return
}

// -----

// The source is overwritten between the copy and the product: the product needs the copy.
// CHECK-LABEL: func.func @source_overwritten
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: call @aten_triton_matmul_0(%arg0, %alloc, %arg2)
func.func private @aten_triton_matmul_0(memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>)
func.func @source_overwritten(%a: memref<2x4x8xf32>, %k: memref<8x2x4xf32>, %c: memref<2x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<2x8x4xf32>
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %k[%i, %b, %j] : memref<8x2x4xf32>
    memref.store %v, %t[%b, %i, %j] : memref<2x8x4xf32>
    scf.reduce
  }
  linalg.fill ins(%zero : f32) outs(%k : memref<8x2x4xf32>)
  call @aten_triton_matmul_0(%a, %t, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,0,1,2,x;B:x,0,1,2,x;C:x,0,1,2"} : (memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>) -> ()
  memref.dealloc %t : memref<2x8x4xf32>
  return
}

// -----

// The bufferizer reused the copy's buffer for a later tensor: the uses after its next full
// overwrite read that tensor, so the product's copy still folds and the later nest stays.
// CHECK-LABEL: func.func @buffer_reused_later
// CHECK: call @aten_triton_matmul_0_f0(%arg0, %arg1, %arg2)
// CHECK: scf.parallel
// CHECK: memref.store %{{.+}}, %alloc[
// CHECK: memref.load %alloc[
func.func private @aten_triton_matmul_0(memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>)
func.func @buffer_reused_later(%a: memref<2x4x8xf32>, %k: memref<8x2x4xf32>, %c: memref<2x4x4xf32>,
                               %o: memref<2x8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<2x8x4xf32>
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %k[%i, %b, %j] : memref<8x2x4xf32>
    memref.store %v, %t[%b, %i, %j] : memref<2x8x4xf32>
    scf.reduce
  }
  call @aten_triton_matmul_0(%a, %t, %c) {aten.dot_init = 0.0 : f32, aten.dot_layout = "A:x,0,1,2,x;B:x,0,1,2,x;C:x,0,1,2"} : (memref<2x4x8xf32>, memref<2x8x4xf32>, memref<2x4x4xf32>) -> ()
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %k[%i, %b, %j] : memref<8x2x4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %t[%b, %i, %j] : memref<2x8x4xf32>
    scf.reduce
  }
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c8, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %t[%b, %i, %j] : memref<2x8x4xf32>
    memref.store %v, %o[%b, %i, %j] : memref<2x8x4xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<2x8x4xf32>
  return
}

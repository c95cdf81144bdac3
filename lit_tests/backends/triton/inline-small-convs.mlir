// RUN: aten-opt %s -p triton-inline-small-convs --split-input-file | FileCheck %s

// A 3-channel 3x3 conv read by a 2x2 pool (one read per element): each read becomes the
// 27-term sum, padding masked to zero; the conv call is gone.
// CHECK-LABEL: func.func @pooled_stem
// CHECK-NOT: call @aten_triton_conv_0
// CHECK: scf.parallel
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (f32)
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: memref.load %arg0[
// CHECK: memref.load %arg1[
// CHECK: arith.select
// CHECK-NOT: memref.load %alloc
// CHECK: memref.store %{{.+}}, %arg2[
func.func private @aten_triton_conv_0(memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>)
func.func @pooled_stem(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %alloc = memref.alloc() : memref<1x4x8x8xf32>
  call @aten_triton_conv_0(%x, %w, %alloc) {aten.conv = "1,1,1,1,1,1", aten.dot_init = 0.0 : f32} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>) -> ()
  scf.parallel (%n, %f, %i, %j) = (%c0, %c0, %c0, %c0) to (%c1, %c4, %c4, %c4) step (%c1, %c1, %c1, %c1) {
    %i2 = arith.muli %i, %c2 : index
    %j2 = arith.muli %j, %c2 : index
    %init = arith.constant 0xFF800000 : f32
    %m = scf.for %a = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (f32) {
      %ia = arith.addi %i2, %a : index
      %v = memref.load %alloc[%n, %f, %ia, %j2] : memref<1x4x8x8xf32>
      %r = arith.maximumf %acc, %v : f32
      scf.yield %r : f32
    }
    memref.store %m, %o[%n, %f, %i, %j] : memref<1x4x4x4xf32>
    scf.reduce
  }
  memref.dealloc %alloc : memref<1x4x8x8xf32>
  return
}

// -----

// The output is also returned: the conv stays.
// CHECK-LABEL: func.func @also_returned
// CHECK: call @aten_triton_conv_0
// CHECK: memref.load %alloc[
func.func private @aten_triton_conv_0(memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>)
func.func @also_returned(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x8x8xf32>) -> memref<1x4x8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %alloc = memref.alloc() : memref<1x4x8x8xf32>
  call @aten_triton_conv_0(%x, %w, %alloc) {aten.conv = "1,1,1,1,1,1", aten.dot_init = 0.0 : f32} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>) -> ()
  scf.parallel (%n, %f, %i, %j) = (%c0, %c0, %c0, %c0) to (%c1, %c4, %c8, %c8) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %alloc[%n, %f, %i, %j] : memref<1x4x8x8xf32>
    %r = arith.addf %v, %v : f32
    memref.store %r, %o[%n, %f, %i, %j] : memref<1x4x8x8xf32>
    scf.reduce
  }
  return %alloc : memref<1x4x8x8xf32>
}

// -----

// Read 4 times per element (a 3x3 window at stride 1 would be 9): too much recomputation.
// CHECK-LABEL: func.func @read_too_often
// CHECK: call @aten_triton_conv_0
func.func private @aten_triton_conv_0(memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>)
func.func @read_too_often(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %alloc = memref.alloc() : memref<1x4x8x8xf32>
  call @aten_triton_conv_0(%x, %w, %alloc) {aten.conv = "1,1,1,1,1,1", aten.dot_init = 0.0 : f32} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>) -> ()
  scf.parallel (%n, %f, %i, %j) = (%c0, %c0, %c0, %c0) to (%c1, %c4, %c8, %c8) step (%c1, %c1, %c1, %c1) {
    %init = arith.constant 0.0 : f32
    %m = scf.for %a = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %alloc[%n, %f, %i, %j] : memref<1x4x8x8xf32>
      %r = arith.addf %acc, %v : f32
      scf.yield %r : f32
    }
    memref.store %m, %o[%n, %f, %i, %j] : memref<1x4x8x8xf32>
    scf.reduce
  }
  memref.dealloc %alloc : memref<1x4x8x8xf32>
  return
}

// -----

// The nest right after the conv reads each element at its own lane: it runs as the conv's
// epilogue on the accumulator tile, so the conv stays.
// CHECK-LABEL: func.func @epilogue_reader
// CHECK: call @aten_triton_conv_0
func.func private @aten_triton_conv_0(memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>)
func.func @epilogue_reader(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %alloc = memref.alloc() : memref<1x4x8x8xf32>
  call @aten_triton_conv_0(%x, %w, %alloc) {aten.conv = "1,1,1,1,1,1", aten.dot_init = 0.0 : f32} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>) -> ()
  scf.parallel (%n, %f, %i, %j) = (%c0, %c0, %c0, %c0) to (%c1, %c4, %c8, %c8) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %alloc[%n, %f, %i, %j] : memref<1x4x8x8xf32>
    %r = math.tanh %v : f32
    memref.store %r, %o[%n, %f, %i, %j] : memref<1x4x8x8xf32>
    scf.reduce
  }
  memref.dealloc %alloc : memref<1x4x8x8xf32>
  return
}

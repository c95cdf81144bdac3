// RUN: aten-opt %s -p 'cpu-vectorize-contractions{cpu=znver5},canonicalize,cse' --split-input-file | FileCheck %s

// a_pack's copy of an A contiguous along m (dY^T @ X, dY's rows 4 KiB apart): whole 16-lane
// loads along m (no mask: 1024 rows are whole groups), each split into two 8-row strips, and
// the kernel broadcasts A from the strips.
// CHECK-LABEL: func.func @grad_w_4k_rows
// CHECK: %[[STRIPS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x128x256x8xf32>
// CHECK: scf.for %[[S:.+]] = %c0 to %c128 step %c8 {
// CHECK: scf.for %[[K:.+]] = %c0 to %c64 step %c1 {
// CHECK: %[[V:.+]] = vector.load %arg0[%[[K]], %{{.+}}] : memref<64x1024xf32>, vector<16xf32>
// CHECK-NEXT: %[[LO:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK-NEXT: vector.store %[[LO]], %[[STRIPS]][%{{.+}}, %[[S]], %{{.+}}, %c0] : memref<1x128x256x8xf32>, vector<8xf32>
// CHECK-NEXT: %[[HI:.+]] = vector.extract_strided_slice %[[V]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK-NOT: memref.store {{.*}}%[[STRIPS]]
// CHECK: memref.load %[[STRIPS]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[STRIPS]]
#a = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @grad_w_4k_rows(%dy: memref<64x1024xf32>, %x: memref<64x256xf32>, %out: memref<1024x256xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%dy, %x : memref<64x1024xf32>, memref<64x256xf32>) outs(%out : memref<1024x256xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// f32 rows 3 KiB apart: no aliasing, the copy would not pay; A read in place.
// CHECK-LABEL: func.func @grad_w_other_rows
// CHECK-NOT: x256x8xf32>
// CHECK: vector.fma
#a = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @grad_w_other_rows(%dy: memref<64x768xf32>, %x: memref<64x256xf32>, %out: memref<768x256xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%dy, %x : memref<64x768xf32>, memref<64x256xf32>) outs(%out : memref<768x256xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %p = arith.mulf %l, %r : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// bf16 dY with 77 rows (not whole groups): loads masked to the rows left, widened to f32 once
// in the copy; the strips are f32.
// CHECK-LABEL: func.func @grad_w_bf16
// CHECK: %[[STRIPS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x16x256x8xf32>
// CHECK: %[[MASK:.+]] = vector.create_mask %{{.+}} : vector<16xi1>
// CHECK-NEXT: %[[V:.+]] = vector.maskedload %arg0[%{{.+}}], %[[MASK]], %{{.+}} : memref<64x77xbf16>, vector<16xi1>, vector<16xbf16> into vector<16xbf16>
// CHECK: arith.extf %[[V]] : vector<16xbf16> to vector<16xf32>
// CHECK: vector.store %{{.+}}, %[[STRIPS]][{{.+}}] : memref<1x16x256x8xf32>, vector<8xf32>
#a = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @grad_w_bf16(%dy: memref<64x77xbf16>, %x: memref<64x256xbf16>, %out: memref<77x256xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%dy, %x : memref<64x77xbf16>, memref<64x256xbf16>) outs(%out : memref<77x256xf32>) {
  ^bb0(%l: bf16, %r: bf16, %o: f32):
    %le = arith.extf %l : bf16 to f32
    %re = arith.extf %r : bf16 to f32
    %p = arith.mulf %le, %re : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

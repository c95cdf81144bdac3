// RUN: aten-opt %s -p triton-outline-matmul --split-input-file | FileCheck %s

// A float product on memrefs (generic `out + a * b`) becomes a call of a private declaration,
// its operands' layout recorded; the zero fill of C right before it folds into the call.
// CHECK-LABEL: func.func private @aten_triton_matmul_0(memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>)
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: call @aten_triton_matmul_0(%arg0, %arg1, %arg2) {aten.dot_init = 0.000000e+00 : f32, aten.dot_layout = "A:x,x,0,1,x;B:x,x,0,1,x;C:x,x,0,1"}
// CHECK-NEXT: return
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batched product with B transposed (a @ b.T per batch): no fill, so C's contents are the
// init (no dot_init); the layout names B's dims in (k, n) order.
// CHECK-LABEL: func.func private @aten_triton_matmul_0(memref<2x4x8xf16>, memref<2x16x8xf16>, memref<2x4x16xf16>)
// CHECK-LABEL: func.func @batched_bt
// CHECK: call @aten_triton_matmul_0(%arg0, %arg1, %arg2) {aten.dot_layout = "A:x,0,1,2,x;B:x,0,2,1,x;C:x,0,1,2"}
// CHECK-NOT: linalg.generic
#a3 = affine_map<(b, m, n, k) -> (b, m, k)>
#bt3 = affine_map<(b, m, n, k) -> (b, n, k)>
#c3 = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched_bt(%a: memref<2x4x8xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x16xf16>) {
  linalg.generic {indexing_maps = [#a3, #bt3, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x4x8xf16>, memref<2x16x8xf16>) outs(%c : memref<2x4x16xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %m = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %m : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// A 2-D NCHW x FCHW convolution (stride 2, no padding) becomes a call of the conv kernel,
// "sh,sw,dh,dw,ph,pw" recorded.
// CHECK-LABEL: func.func private @aten_triton_conv_0(memref<1x3x9x9xf32>, memref<4x3x3x3xf32>, memref<1x4x4x4xf32>)
// CHECK-LABEL: func.func @conv
// CHECK: call @aten_triton_conv_0(%arg0, %arg1, %arg2) {aten.conv = "2,2,1,1,0,0"}
// CHECK-NOT: linalg.generic
#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
func.func @conv(%x: memref<1x3x9x9xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x4x4xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x3x9x9xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Integer products have no tl.dot kernel: left alone, and nothing is declared.
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @integer
// CHECK-NOT: call
// CHECK: linalg.generic
#ai = affine_map<(m, n, k) -> (m, k)>
#bi = affine_map<(m, n, k) -> (k, n)>
#ci = affine_map<(m, n, k) -> (m, n)>
func.func @integer(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %c: memref<4x16xi32>) {
  linalg.generic {indexing_maps = [#ai, #bi, #ci], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xi32>, memref<8x16xi32>) outs(%c : memref<4x16xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %m = arith.muli %x, %y : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  return
}

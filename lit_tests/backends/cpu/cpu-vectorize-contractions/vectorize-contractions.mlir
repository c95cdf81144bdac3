// RUN: aten-opt %s -p cpu-vectorize-contractions --split-input-file | FileCheck %s

// B contiguous along n: the outer-product kernel. An 8 x 32 block of C stays in 16 vector
// registers across k; each step broadcasts 8 scalars of A against 2 vectors of B.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: linalg.matmul
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %{{.*}} : memref<64x32xf32>, vector<16xf32>
// CHECK: memref.load %{{.*}} : memref<16x64xf32>
// CHECK-NEXT: vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK-NEXT: vector.fma
// CHECK: vector.store
func.func @plain(%a: memref<16x64xf32>, %b: memref<64x32xf32>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Columns the register block does not divide: the last lanes are masked.
// CHECK-LABEL: func.func @ragged_columns
// CHECK: vector.constant_mask [4] : vector<16xi1>
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
func.func @ragged_columns(%a: memref<3x5xf32>, %b: memref<5x20xf32>, %c: memref<3x20xf32>) {
  linalg.matmul ins(%a, %b : memref<3x5xf32>, memref<5x20xf32>) outs(%c : memref<3x20xf32>)
  return
}

// -----

// A and B contiguous along k (a linear layer's weight): the dot kernel keeps a vector of
// partial sums per element of its register block (8 rows: one 8 x 2 block) and sums 16 of them
// at once with shuffles and adds into one vector of sums, added into C's rows 2 at a time.
// CHECK-LABEL: func.func @transposed_weight
// CHECK: scf.for {{.*}} step %c16{{.*}} iter_args
// CHECK-COUNT-16: vector.fma
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: vector.extract_strided_slice {{.*}} {offsets = [0], sizes = [2], strides = [1]} : vector<16xf32> to vector<2xf32>
// CHECK-NEXT: vector.load %arg2{{.*}} : memref<8x12xf32>, vector<2xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: vector.store {{.*}}, %arg2
// CHECK-NOT: linalg.generic
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_weight(%x: memref<8x64xf32>, %w: memref<12x64xf32>, %y: memref<8x12xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x64xf32>, memref<12x64xf32>) outs(%y : memref<8x12xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Integer products, and bodies that compute more than out + a * b, stay for the loops stage.
// CHECK-LABEL: func.func @not_a_kernel
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: vector.fma
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (k, n)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @not_a_kernel(%a: memref<4x4xi32>, %b: memref<4x4xi32>, %c: memref<4x4xi32>,
                        %x: memref<4x4xf32>, %y: memref<4x4xf32>, %z: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xi32>, memref<4x4xi32>) outs(%c : memref<4x4xi32>)
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<4x4xf32>, memref<4x4xf32>) outs(%z : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %e = math.exp %p : f32
    %0 = arith.mulf %e, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Heads merged back (two reduction dims, h and d): d is the kernel's k, h a loop around the
// kernel, which adds into C on each trip.
// CHECK-LABEL: func.func @two_reduction_dims
// CHECK: scf.for %[[H:.+]] = %c0 to %c3 step %c1
// CHECK: vector.fma
// CHECK: vector.reduction <add>
// CHECK-NOT: linalg.generic
#a = affine_map<(s, n, h, d) -> (h, s, d)>
#b = affine_map<(s, n, h, d) -> (n, h, d)>
#c = affine_map<(s, n, h, d) -> (s, n)>
func.func @two_reduction_dims(%a: memref<3x5x16xf32>, %b: memref<24x3x16xf32>, %c: memref<5x24xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<3x5x16xf32>, memref<24x3x16xf32>) outs(%c : memref<5x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A convolution is the outer-product kernel with the filter as A (a scalar per output channel)
// and the image as B (lanes along the output columns). The channels and the window loop
// inside each tile, around its k loop, carrying the accumulators (loaded and stored once per
// tile). A stride of 2 along the columns takes the image's lanes as two loads (the second
// masked to the 31 elements the lanes span) and an even-lane shuffle, not a gather.
// CHECK-LABEL: func.func @strided_conv
// CHECK: %[[ACC:.+]] = vector.load %arg2
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[ACC]],
// CHECK-NEXT: scf.for {{.*}} iter_args(
// CHECK-NEXT: scf.for {{.*}} iter_args(
// CHECK: %[[LO:.+]] = vector.load %arg0
// CHECK: %[[HI:.+]] = vector.maskedload %arg0
// CHECK: vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: memref.load %arg1
// CHECK: vector.fma
// CHECK: vector.store {{.*}}, %arg2
// CHECK-NOT: vector.gather
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @strided_conv(%x: memref<1x3x9x69xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x4x34xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x9x69xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x4x34xf32>)
  return
}

// -----

// Output rows narrower than the register block's 2 x 16 lanes (4 here): each batch element's
// image is copied as im2col, [channels * 3 * 3, 4 * 4], one masked row copy per (channel, kh,
// kw, output row); the filter viewed as [8, 27] times that copy is the outer kernel with lanes
// along all 16 output pixels of the output viewed as [1, 8, 16].
// CHECK-LABEL: func.func @narrow_conv
// CHECK-DAG: memref.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : memref<8x3x3x3xf32> into memref<8x27xf32>
// CHECK-DAG: memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<1x8x4x4xf32> into memref<1x8x16xf32>
// CHECK: %[[COPY:.+]] = memref.alloc() : memref<27x16xf32>
// CHECK: vector.maskedload %arg0
// CHECK: vector.maskedstore %[[COPY]]
// CHECK: memref.load %collapse_shape
// CHECK: vector.broadcast
// CHECK: vector.fma
// CHECK: memref.dealloc %[[COPY]]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @narrow_conv(%x: memref<1x3x6x6xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x6x6xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  return
}

// -----

// Attention scores (k, the head dim, short next to the rows): the outer-product kernel, with
// no reductions across lanes, on panels copied straight from k's rows: 16 rows x 16 lanes of
// k loaded (masked at the ends), transposed in registers by shuffles, stored as panel rows.
// CHECK-LABEL: func.func @scores
// CHECK: scf.for %[[B:.+]] = %c0 to %c2 step %c1
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x16x32xf32>
// CHECK: vector.load %arg1[%[[B]], {{.*}}] : memref<2x64x16xf32>, vector<16xf32>
// CHECK: vector.maskedload %arg1[%[[B]], {{.*}} : memref<2x64x16xf32>
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.fma
// CHECK-NOT: vector.reduction
// CHECK: memref.dealloc %[[P]]
#q = affine_map<(b, i, j, d) -> (b, i, d)>
#k = affine_map<(b, i, j, d) -> (b, j, d)>
#s = affine_map<(b, i, j, d) -> (b, i, j)>
func.func @scores(%q: memref<2x64x16xf32>, %k: memref<2x64x16xf32>, %s: memref<2x64x64xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x64x16xf32>, memref<2x64x16xf32>) outs(%s : memref<2x64x64xf32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %0 = arith.mulf %p, %r : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

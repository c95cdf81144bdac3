// RUN: aten-opt %s -p aten-im2col-windows --split-input-file | FileCheck %s

// A conv2d weight gradient (stride 2, dilation 1) as convolution_backward lowers it: the
// windows of the padded input are copied to cols[g, c, kh, kw, n, oh, ow] by one generic
// (strided rows: the copy gathers along ow; the transposed [oh, ow, c, kh, kw] layout,
// TRANSPOSED_COLS, was slower on znver5), the batch next to the output pixels, and grad_output
// to [g, i, n, oh, ow] (a transposing copy); both collapsed, the product reduces over one run of
// n*oh*ow (BATCH_IN_SUM: not n sums of oh*ow) with columns c*kh*kw.
// CHECK-LABEL: func.func @weight_grad
// CHECK: %[[COPY:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]{{.*}} ins(%arg1 : tensor<2x1x3x9x9xf32>) outs(%{{.+}} : tensor<1x3x3x3x2x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[COLS:.+]] = tensor.collapse_shape %[[COPY]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<1x3x3x3x2x4x4xf32> into tensor<1x27x32xf32>
// CHECK: %[[T:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x1x5x4x4xf32>) outs(%{{.+}} : tensor<1x5x2x4x4xf32>)
// CHECK: %[[GO:.+]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3, 4]] : tensor<1x5x2x4x4xf32> into tensor<1x5x32xf32>
// CHECK: %[[ACC:.+]] = tensor.collapse_shape %arg2 {{\[}}[0], [1], [2, 3, 4]] : tensor<1x5x3x3x3xf32> into tensor<1x5x27xf32>
// CHECK: %[[P:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[GO]], %[[COLS]] : tensor<1x5x32xf32>, tensor<1x27x32xf32>) outs(%[[ACC]] : tensor<1x5x27xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3, 4]] output_shape [1, 5, 3, 3, 3]
#go = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, i, oh, ow)>
#x = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, j, oh * 2 + kh, ow * 2 + kw)>
#gw = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (g, i, j, kh, kw)>
func.func @weight_grad(%go: tensor<2x1x5x4x4xf32>, %x: tensor<2x1x3x9x9xf32>, %init: tensor<1x5x3x3x3xf32>) -> tensor<1x5x3x3x3xf32> {
  %r = linalg.generic {indexing_maps = [#go, #x, #gw], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%go, %x : tensor<2x1x5x4x4xf32>, tensor<2x1x3x9x9xf32>) outs(%init : tensor<1x5x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x3x3x3xf32>
  return %r : tensor<1x5x3x3x3xf32>
}

// -----

// A dynamic batch and image: the sums' extent is unknown, the taps static: copied out, the
// `?` sizes of the copy read from the operands.
// CHECK-LABEL: func.func @dynamic_weight_grad
// CHECK: tensor.empty(%{{.+}}, %{{.+}}, %{{.+}}) : tensor<?x1x3x3x3x?x?xf32>
// CHECK: tensor.collapse_shape {{.*}} into tensor<?x1x27x?xf32>
#go2 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, i, oh, ow)>
#x2 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, j, oh + kh, ow + kw)>
#gw2 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (g, i, j, kh, kw)>
func.func @dynamic_weight_grad(%go: tensor<?x1x5x?x?xf32>, %x: tensor<?x1x3x?x?xf32>, %init: tensor<1x5x3x3x3xf32>) -> tensor<1x5x3x3x3xf32> {
  %r = linalg.generic {indexing_maps = [#go2, #x2, #gw2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%go, %x : tensor<?x1x5x?x?xf32>, tensor<?x1x3x?x?xf32>) outs(%init : tensor<1x5x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x3x3x3xf32>
  return %r : tensor<1x5x3x3x3xf32>
}

// -----

// A strided weight gradient with a `?` batch: the batch joins the sums' run all the same, the
// run's extent (n*oh*ow) unknown.
// CHECK-LABEL: func.func @dynamic_strided_weight_grad
// CHECK: tensor.empty(%{{.+}}) : tensor<1x3x3x3x?x4x4xf32>
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x27x?xf32>
// CHECK: tensor.empty(%{{.+}}) : tensor<1x5x?x4x4xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins({{.*}} : tensor<1x5x?xf32>, tensor<1x27x?xf32>)
#go4 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, i, oh, ow)>
#x4 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, j, oh * 2 + kh, ow * 2 + kw)>
#gw4 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (g, i, j, kh, kw)>
func.func @dynamic_strided_weight_grad(%go: tensor<?x1x5x4x4xf32>, %x: tensor<?x1x3x9x9xf32>, %init: tensor<1x5x3x3x3xf32>) -> tensor<1x5x3x3x3xf32> {
  %r = linalg.generic {indexing_maps = [#go4, #x4, #gw4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%go, %x : tensor<?x1x5x4x4xf32>, tensor<?x1x3x9x9xf32>) outs(%init : tensor<1x5x3x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x3x3x3xf32>
  return %r : tensor<1x5x3x3x3xf32>
}

// -----

// A grouped forward convolution has the same form with the roles swapped (the output pixels
// are the window's parallel side, the taps its sums): left alone.
// CHECK-LABEL: func.func @forward_grouped_conv
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
#xf = affine_map<(n, g, f, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>
#wf = affine_map<(n, g, f, oh, ow, c, kh, kw) -> (g, f, c, kh, kw)>
#of = affine_map<(n, g, f, oh, ow, c, kh, kw) -> (n, g, f, oh, ow)>
func.func @forward_grouped_conv(%x: tensor<1x2x4x10x10xf32>, %w: tensor<2x8x4x3x3xf32>, %init: tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32> {
  %r = linalg.generic {indexing_maps = [#xf, #wf, #of], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x2x4x10x10xf32>, tensor<2x8x4x3x3xf32>) outs(%init : tensor<1x2x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x8x8x8xf32>
  return %r : tensor<1x2x8x8x8xf32>
}

// -----

// A copy of the windows past MAX_COLS_BYTES (here 64 x 256*9 x 56*56 f32, 1.8 GiB) is not made:
// the product keeps reading the input in place.
// CHECK-LABEL: func.func @too_large_to_copy
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
#go3 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, i, oh, ow)>
#x3 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, j, oh + kh, ow + kw)>
#gw3 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (g, i, j, kh, kw)>
func.func @too_large_to_copy(%go: tensor<64x1x256x56x56xf32>, %x: tensor<64x1x256x58x58xf32>, %init: tensor<1x256x256x3x3xf32>) -> tensor<1x256x256x3x3xf32> {
  %r = linalg.generic {indexing_maps = [#go3, #x3, #gw3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%go, %x : tensor<64x1x256x56x56xf32>, tensor<64x1x256x58x58xf32>) outs(%init : tensor<1x256x256x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x256x256x3x3xf32>
  return %r : tensor<1x256x256x3x3xf32>
}

// -----

// Stride 1: the windows copy is one slice copy per tap (each row a unit-stride run of the
// input, which the loops stage copies as vectors), into cols[n, g, c, kh, kw, oh, ow]; each
// piece is expanded to cols' rank first (the taps' unit dims explicit: a rank-reducing insert
// left the dropped dims to inference, wrong with `?` strides).
// CHECK-LABEL: func.func @weight_grad_stride1
// CHECK-NOT: linalg.generic {{.*}}outs(%{{.+}} : tensor<2x1x3x2x2x4x4xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x1x3x2x2x4x4xf32>
// CHECK: %[[S0:.+]] = tensor.extract_slice %arg1[0, 0, 0, 0, 0] [2, 1, 3, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[X0:.+]] = tensor.expand_shape %[[S0]] {{\[}}[0], [1], [2], [3, 4, 5], [6]] output_shape [2, 1, 3, 1, 1, 4, 4]
// CHECK: %[[C0:.+]] = tensor.insert_slice %[[X0]] into %[[E]][0, 0, 0, 0, 0, 0, 0] [2, 1, 3, 1, 1, 4, 4]
// CHECK: %[[S1:.+]] = tensor.extract_slice %arg1[0, 0, 0, 0, 2] [2, 1, 3, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[X1:.+]] = tensor.expand_shape %[[S1]]
// CHECK: tensor.insert_slice %[[X1]] into %[[C0]][0, 0, 0, 0, 1, 0, 0] [2, 1, 3, 1, 1, 4, 4]
// CHECK: tensor.extract_slice %arg1[0, 0, 0, 2, 0]
// CHECK: %[[S3:.+]] = tensor.extract_slice %arg1[0, 0, 0, 2, 2]
// CHECK: %[[X3:.+]] = tensor.expand_shape %[[S3]]
// CHECK: %[[C3:.+]] = tensor.insert_slice %[[X3]] into %{{.+}}[0, 0, 0, 1, 1, 0, 0]
// CHECK: tensor.collapse_shape %[[C3]] {{\[}}[0], [1], [2, 3, 4], [5, 6]] : tensor<2x1x3x2x2x4x4xf32> into tensor<2x1x12x16xf32>
#go3 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, i, oh, ow)>
#x3 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (n, g, j, oh + kh * 2, ow + kw * 2)>
#gw3 = affine_map<(g, i, j, kh, kw, n, oh, ow) -> (g, i, j, kh, kw)>
func.func @weight_grad_stride1(%go: tensor<2x1x5x4x4xf32>, %x: tensor<2x1x3x6x6xf32>, %init: tensor<1x5x3x2x2xf32>) -> tensor<1x5x3x2x2xf32> {
  %r = linalg.generic {indexing_maps = [#go3, #x3, #gw3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%go, %x : tensor<2x1x5x4x4xf32>, tensor<2x1x3x6x6xf32>) outs(%init : tensor<1x5x3x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x3x2x2xf32>
  return %r : tensor<1x5x3x2x2xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// Bilinear: 4 corners, each scatter-added into grad_input [N, C, H*W] and gathered for
// grad_grid; the x and y gradients are summed over channels and stacked last.
// CHECK-LABEL: func.func @bilinear
// CHECK-COUNT-4: "aten.scatter_add"({{.*}}) {dim = 2 : i64} : (tensor<?x3x63xf32>, tensor<?x3x20xi64>, tensor<?x3x20xf32>) -> tensor<?x3x63xf32>
// CHECK: "aten.view"({{.*}}) -> tensor<?x3x7x9xf32>
// CHECK-COUNT-4: "aten.gather"({{.*}}) {dim = 2 : i64, sparse_grad = false} : (tensor<?x3x63xf32>, tensor<?x3x20xi64>) -> tensor<?x3x20xf32>
// CHECK: "aten.sum.dim_IntList"({{.*}}) {dim = array<i64: 1>, keepdim = true} : (tensor<?x3x20xf32>) -> tensor<?x1x20xf32>
// CHECK: "aten.sum.dim_IntList"({{.*}}) {dim = array<i64: 1>, keepdim = true} : (tensor<?x3x20xf32>) -> tensor<?x1x20xf32>
// CHECK: "aten.cat"({{.*}}) {dim = -1 : i64{{.*}}} : (tensor<?x1x20x1xf32>, tensor<?x1x20x1xf32>) -> tensor<?x1x20x2xf32>
// CHECK-NOT: "aten.grid_sampler
// CHECK: return
func.func @bilinear(%g: tensor<?x3x4x5xf32>, %x: tensor<?x3x7x9xf32>, %grid: tensor<?x4x5x2xf32>) -> (tensor<?x3x7x9xf32>, tensor<?x4x5x2xf32>) {
  %0:2 = "aten.grid_sampler_2d_backward"(%g, %x, %grid) {align_corners = false, interpolation_mode = 0 : i64, padding_mode = 0 : i64, output_mask = array<i1: true, true>} : (tensor<?x3x4x5xf32>, tensor<?x3x7x9xf32>, tensor<?x4x5x2xf32>) -> (tensor<?x3x7x9xf32>, tensor<?x4x5x2xf32>)
  return %0#0, %0#1 : tensor<?x3x7x9xf32>, tensor<?x4x5x2xf32>
}

// -----

// output_mask leaves grad_input out: no scatter, only the gathers grad_grid reads.
// CHECK-LABEL: func.func @grid_only
// CHECK-NOT: "aten.scatter_add"
// CHECK-COUNT-4: "aten.gather"
// CHECK-NOT: "aten.scatter_add"
// CHECK: return
func.func @grid_only(%g: tensor<2x3x4x5xf32>, %x: tensor<2x3x7x9xf32>, %grid: tensor<2x4x5x2xf32>) -> tensor<2x4x5x2xf32> {
  %0:2 = "aten.grid_sampler_2d_backward"(%g, %x, %grid) {align_corners = true, interpolation_mode = 0 : i64, padding_mode = 2 : i64, output_mask = array<i1: false, true>} : (tensor<2x3x4x5xf32>, tensor<2x3x7x9xf32>, tensor<2x4x5x2xf32>) -> (tensor<2x3x7x9xf32>, tensor<2x4x5x2xf32>)
  return %0#1 : tensor<2x4x5x2xf32>
}

// -----

// Nearest: one scatter at the rounded (half to even) location; the grid's gradient is zero.
// CHECK-LABEL: func.func @nearest
// CHECK: "aten.round"
// CHECK-COUNT-1: "aten.scatter_add"
// CHECK-NOT: "aten.scatter_add"
// CHECK-NOT: "aten.gather"
// CHECK: "aten.full_like"(%arg2) {fill_value = 0 : i64} : (tensor<2x4x5x2xf64>) -> tensor<2x4x5x2xf64>
// CHECK: return
func.func @nearest(%g: tensor<2x3x4x5xf64>, %x: tensor<2x3x7x9xf64>, %grid: tensor<2x4x5x2xf64>) -> (tensor<2x3x7x9xf64>, tensor<2x4x5x2xf64>) {
  %0:2 = "aten.grid_sampler_2d_backward"(%g, %x, %grid) {align_corners = false, interpolation_mode = 1 : i64, padding_mode = 1 : i64, output_mask = array<i1: true, true>} : (tensor<2x3x4x5xf64>, tensor<2x3x7x9xf64>, tensor<2x4x5x2xf64>) -> (tensor<2x3x7x9xf64>, tensor<2x4x5x2xf64>)
  return %0#0, %0#1 : tensor<2x3x7x9xf64>, tensor<2x4x5x2xf64>
}

// -----

// Bicubic: 16 taps, each padded on its own.
// CHECK-LABEL: func.func @bicubic
// CHECK-COUNT-16: "aten.scatter_add"
// CHECK-COUNT-16: "aten.gather"
// CHECK-NOT: "aten.grid_sampler
// CHECK: return
func.func @bicubic(%g: tensor<2x3x4x5xf32>, %x: tensor<2x3x7x9xf32>, %grid: tensor<2x4x5x2xf32>) -> (tensor<2x3x7x9xf32>, tensor<2x4x5x2xf32>) {
  %0:2 = "aten.grid_sampler_2d_backward"(%g, %x, %grid) {align_corners = false, interpolation_mode = 2 : i64, padding_mode = 2 : i64, output_mask = array<i1: true, true>} : (tensor<2x3x4x5xf32>, tensor<2x3x7x9xf32>, tensor<2x4x5x2xf32>) -> (tensor<2x3x7x9xf32>, tensor<2x4x5x2xf32>)
  return %0#0, %0#1 : tensor<2x3x7x9xf32>, tensor<2x4x5x2xf32>
}

// -----

// 3-d trilinear: 8 corners over the D*H*W plane.
// CHECK-LABEL: func.func @trilinear_3d
// CHECK-COUNT-8: "aten.scatter_add"({{.*}}) {dim = 2 : i64} : (tensor<2x3x60xf32>, tensor<2x3x24xi64>, tensor<2x3x24xf32>) -> tensor<2x3x60xf32>
// CHECK-COUNT-8: "aten.gather"
// CHECK: "aten.cat"({{.*}}) -> tensor<2x1x24x3xf32>
// CHECK-NOT: "aten.grid_sampler
// CHECK: return
func.func @trilinear_3d(%g: tensor<2x3x2x3x4xf32>, %x: tensor<2x3x3x4x5xf32>, %grid: tensor<2x2x3x4x3xf32>) -> (tensor<2x3x3x4x5xf32>, tensor<2x2x3x4x3xf32>) {
  %0:2 = "aten.grid_sampler_3d_backward"(%g, %x, %grid) {align_corners = true, interpolation_mode = 0 : i64, padding_mode = 0 : i64, output_mask = array<i1: true, true>} : (tensor<2x3x2x3x4xf32>, tensor<2x3x3x4x5xf32>, tensor<2x2x3x4x3xf32>) -> (tensor<2x3x3x4x5xf32>, tensor<2x2x3x4x3xf32>)
  return %0#0, %0#1 : tensor<2x3x3x4x5xf32>, tensor<2x2x3x4x3xf32>
}

// -----

// A dynamic input plane is left whole (its sizes enter the coordinate arithmetic as numbers).
// CHECK-LABEL: func.func @dynamic_plane
// CHECK: "aten.grid_sampler_2d_backward"
func.func @dynamic_plane(%g: tensor<2x3x4x5xf32>, %x: tensor<2x3x?x?xf32>, %grid: tensor<2x4x5x2xf32>) -> (tensor<2x3x?x?xf32>, tensor<2x4x5x2xf32>) {
  %0:2 = "aten.grid_sampler_2d_backward"(%g, %x, %grid) {align_corners = false, interpolation_mode = 0 : i64, padding_mode = 0 : i64, output_mask = array<i1: true, true>} : (tensor<2x3x4x5xf32>, tensor<2x3x?x?xf32>, tensor<2x4x5x2xf32>) -> (tensor<2x3x?x?xf32>, tensor<2x4x5x2xf32>)
  return %0#0, %0#1 : tensor<2x3x?x?xf32>, tensor<2x4x5x2xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// A stable sort: runs of equal values numbered, then ordered by (run, index) with a second sort.
// CHECK-LABEL: func.func @sort_stable
// CHECK: "aten.sort"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.ne.Tensor"
// CHECK: "aten.isnan"
// CHECK: "aten.isnan"
// CHECK: "aten.logical_and"
// CHECK: "aten.logical_not"
// CHECK: "aten.logical_and"
// CHECK: "aten.cumsum"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.sort"
// CHECK: "aten.remainder.Scalar"
// CHECK: "aten.gather"
// CHECK-NOT: "aten.sort.stable"
// CHECK: return
func.func @sort_stable(%arg0: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi64>) {
  %0:2 = "aten.sort.stable"(%arg0) {descending = false, dim = 1 : i64, stable = true} : (tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  return %0#0, %0#1 : tensor<?x?xf32>, tensor<?x?xi64>
}

// -----

// argsort stops at the core sort (its indices).
// CHECK-LABEL: func.func @argsort
// CHECK: "aten.sort"
// CHECK-NOT: "aten.argsort"
// CHECK: return
func.func @argsort(%arg0: tensor<3x5xf32>) -> tensor<3x5xi64> {
  %0 = "aten.argsort"(%arg0) {descending = false, dim = 0 : i64} : (tensor<3x5xf32>) -> tensor<3x5xi64>
  return %0 : tensor<3x5xi64>
}

// -----

// argsort.stable stops at sort.stable, which becomes two sorts.
// CHECK-LABEL: func.func @argsort_stable
// CHECK: "aten.sort"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.ne.Tensor"
// CHECK: "aten.cumsum"
// CHECK: "aten.mul.Scalar"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.sort"
// CHECK: "aten.remainder.Scalar"
// CHECK: "aten.gather"
// CHECK-NOT: "aten.argsort.stable"
// CHECK: return
func.func @argsort_stable(%arg0: tensor<3x5xi64>) -> tensor<3x5xi64> {
  %0 = "aten.argsort.stable"(%arg0) {descending = false, dim = 1 : i64, stable = true} : (tensor<3x5xi64>) -> tensor<3x5xi64>
  return %0 : tensor<3x5xi64>
}

// -----

// msort: sort along dim 0.
// CHECK-LABEL: func.func @msort
// CHECK: "aten.sort"
// CHECK-NOT: "aten.msort"
// CHECK: return
func.func @msort(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "aten.msort"(%arg0) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// kthvalue: the sorted slice at k - 1.
// CHECK-LABEL: func.func @kthvalue
// CHECK: "aten.sort"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.squeeze.dims"
// CHECK: "aten.squeeze.dims"
// CHECK-NOT: "aten.kthvalue"
// CHECK: return
func.func @kthvalue(%arg0: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %0:2 = "aten.kthvalue"(%arg0) {dim = 1 : i64, k = 2 : i64, keepdim = false} : (tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi64>
}

// -----

// median.dim: gather at (count - 1) // 2, or at the first NaN.
// CHECK-LABEL: func.func @median_dim
// CHECK: "aten.sort"
// CHECK: "aten.isnan"
// CHECK: "aten.logical_not"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.sub.Scalar"
// CHECK: "aten.div.Scalar_mode"
// CHECK: "aten.any.dims"
// CHECK: "aten.where.self"
// CHECK: "aten.gather"
// CHECK: "aten.gather"
// CHECK: "aten.squeeze.dims"
// CHECK: "aten.squeeze.dims"
// CHECK-NOT: "aten.median.dim"
// CHECK: return
func.func @median_dim(%arg0: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %0:2 = "aten.median.dim"(%arg0) {dim = 1 : i64, keepdim = false} : (tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>)
  return %0#0, %0#1 : tensor<?xf32>, tensor<?xi64>
}

// -----

// nanmedian flattens and stops at nanmedian.dim: position clamped at 0.
// CHECK-LABEL: func.func @nanmedian
// CHECK: "aten.view"
// CHECK: "aten.sort"
// CHECK: "aten.isnan"
// CHECK: "aten.logical_not"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.sub.Scalar"
// CHECK: "aten.div.Scalar_mode"
// CHECK: "aten.clamp"
// CHECK: "aten.gather"
// CHECK: "aten.gather"
// CHECK: "aten.squeeze.dims"
// CHECK: "aten.squeeze.dims"
// CHECK-NOT: "aten.nanmedian"
// CHECK: return
func.func @nanmedian(%arg0: tensor<3x5xf32>) -> tensor<f32> {
  %0 = "aten.nanmedian"(%arg0) : (tensor<3x5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// mode: run lengths by scatter_add, the first longest run, its last index.
// CHECK-LABEL: func.func @mode
// CHECK: "aten.sort"
// CHECK: "aten.constant_pad_nd"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.ne.Tensor"
// CHECK: "aten.cumsum"
// CHECK: "aten.slice.Tensor"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.full_like"
// CHECK: "aten.full_like"
// CHECK: "aten.scatter_add"
// CHECK: "aten.gather"
// CHECK: "aten.amax"
// CHECK: "aten.eq.Tensor"
// CHECK: "aten._to_copy"
// CHECK: "aten.argmax"
// CHECK: "aten.gather"
// CHECK: "aten.eq.Tensor"
// CHECK: "aten.full_like"
// CHECK: "aten.where.self"
// CHECK: "aten.amax"
// CHECK: "aten.gather"
// CHECK: "aten.squeeze.dims"
// CHECK: "aten.squeeze.dims"
// CHECK-NOT: "aten.mode"
// CHECK: return
func.func @mode(%arg0: tensor<3x5xi64>) -> (tensor<3xi64>, tensor<3xi64>) {
  %0:2 = "aten.mode"(%arg0) {dim = 1 : i64, keepdim = false} : (tensor<3x5xi64>) -> (tensor<3xi64>, tensor<3xi64>)
  return %0#0, %0#1 : tensor<3xi64>, tensor<3xi64>
}

// -----

// quantile: sorted rows, ranks q * (n - 1) (the last one with a NaN), ATen's lerp.
// CHECK-LABEL: func.func @quantile
// CHECK: "aten.sort"
// CHECK: "aten.isnan"
// CHECK: "aten.scalar_tensor"
// CHECK: "aten.any.dim"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.where.self"
// CHECK: "aten._to_copy"
// CHECK: "aten.gather"
// CHECK: "aten.ceil"
// CHECK: "aten._to_copy"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.gather"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.abs"
// CHECK: "aten.lt.Scalar"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.add.Tensor"
// CHECK: "aten.neg"
// CHECK: "aten.add.Scalar"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.sub.Tensor"
// CHECK: "aten.where.self"
// CHECK: "aten.permute"
// CHECK-NOT: "aten.quantile"
// CHECK: return
func.func @quantile(%arg0: tensor<3x5xf32>, %arg1: tensor<2xf32>) -> tensor<2x3xf32> {
  %0 = "aten.quantile"(%arg0, %arg1) {dim = 1 : i64, interpolation = "linear", keepdim = false} : (tensor<3x5xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// nanquantile.scalar stops at nanquantile with a 0-d q.
// CHECK-LABEL: func.func @nanquantile_scalar
// CHECK: "aten.scalar_tensor"
// CHECK: "aten.permute"
// CHECK: "aten.sort"
// CHECK: "aten.view"
// CHECK: "aten.isnan"
// CHECK: "aten.logical_not"
// CHECK: "aten.sum.dim_IntList"
// CHECK: "aten.sub.Scalar"
// CHECK: "aten.mul.Tensor"
// CHECK: "aten.clamp"
// CHECK: "aten.floor"
// CHECK: "aten._to_copy"
// CHECK: "aten.gather"
// CHECK: "aten.squeeze.dims"
// CHECK-NOT: "aten.nanquantile.scalar"
// CHECK: return
func.func @nanquantile_scalar(%arg0: tensor<3x5xf32>) -> tensor<5xf32> {
  %0 = "aten.nanquantile.scalar"(%arg0) {dim = 0 : i64, interpolation = "lower", keepdim = false, q = 5.000000e-01 : f64} : (tensor<3x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

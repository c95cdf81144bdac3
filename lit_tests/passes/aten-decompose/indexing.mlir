// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// CHECK-LABEL: func.func @index_fill
// CHECK: [[V:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 2.500000e+00 : f64}
// CHECK-NEXT: "aten.index_put"(%{{.+}}, %{{.+}}, [[V]]) {accumulate = false, indices = array<i1: false, true>
func.func @index_fill(%x: tensor<3x4xf32>, %i: tensor<2xi64>) -> tensor<3x4xf32> {
  %0 = "aten.index_fill.int_Scalar"(%x, %i) {dim = 1 : i64, value = 2.5 : f64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// masked_fill keeps `?` dims: the where takes the op's result type.
// CHECK-LABEL: func.func @masked_fill
// CHECK: [[V:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 0 : i64}
// CHECK-NEXT: "aten.where.self"(%{{.+}}, [[V]], %{{.+}}) : (tensor<3x?xi1>, tensor<f32>, tensor<3x?xf32>) -> tensor<3x?xf32>
func.func @masked_fill(%x: tensor<3x?xf32>, %m: tensor<3x?xi1>) -> tensor<3x?xf32> {
  %0 = "aten.masked_fill.Scalar"(%x, %m) {value = 0 : i64} : (tensor<3x?xf32>, tensor<3x?xi1>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// CHECK-LABEL: func.func @take
// CHECK: [[F:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: 12>}
// CHECK-NEXT: "aten.index.Tensor"([[F]], %{{.+}}) {{.*}} -> tensor<2x2xf32>
func.func @take(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %0 = "aten.take"(%x, %i) : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// bucketize stops at searchsorted, which unrolls bit_length(3) = 2 bisection steps.
// CHECK-LABEL: func.func @bucketize
// CHECK: "aten.full_like"
// CHECK-COUNT-2: "aten.ge.Tensor"
// CHECK-NOT: "aten.ge.Tensor"
// CHECK-NOT: "aten.searchsorted
func.func @bucketize(%x: tensor<5xf32>, %b: tensor<3xf32>) -> tensor<5xi64> {
  %0 = "aten.bucketize.Tensor"(%x, %b) {out_int32 = false, right = false} : (tensor<5xf32>, tensor<3xf32>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// CHECK-LABEL: func.func @index_fill_tensor
// CHECK: [[V:%.+]] = "aten._to_copy"(%{{.+}}) {{.*}} : (tensor<f64>) -> tensor<f32>
// CHECK-NEXT: "aten.index_put"(%{{.+}}, %{{.+}}, [[V]]) {accumulate = false, indices = array<i1: true>
func.func @index_fill_tensor(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %v: tensor<f64>) -> tensor<3x4xf32> {
  %0 = "aten.index_fill.int_Tensor"(%x, %i, %v) {dim = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>, tensor<f64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @index_copy
// CHECK-NEXT: "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = false, indices = array<i1: false, true>{{.*}} -> tensor<3x?xf32>
func.func @index_copy(%x: tensor<3x?xf32>, %i: tensor<2xi64>, %s: tensor<3x2xf32>) -> tensor<3x?xf32> {
  %0 = "aten.index_copy"(%x, %i, %s) {dim = 1 : i64} : (tensor<3x?xf32>, tensor<2xi64>, tensor<3x2xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// CHECK-LABEL: func.func @index_add
// CHECK-NEXT: [[S:%.+]] = "aten.mul.Scalar"(%{{.+}}) {other = 2 : i64}
// CHECK-NEXT: "aten.index_put"(%{{.+}}, %{{.+}}, [[S]]) {accumulate = true
func.func @index_add(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %s: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = "aten.index_add"(%x, %i, %s) {dim = 0 : i64, alpha = 2 : i64} : (tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @index_reduce
// CHECK: [[I:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: 2, 1>}
// CHECK-NEXT: [[E:%.+]] = "aten.expand"([[I]]) {implicit = false, size = array<i64: 2, 3>}
// CHECK-NEXT: "aten.scatter_reduce.two"(%{{.+}}, [[E]], %{{.+}}) {dim = 0 : i64, include_self = true, reduce = "amax"}
func.func @index_reduce(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %s: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = "aten.index_reduce"(%x, %i, %s) {dim = 0 : i64, reduce = "amax", include_self = true} : (tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @masked_fill_tensor
// CHECK: [[V:%.+]] = "aten._to_copy"(%{{.+}}) {{.*}} : (tensor<f32>) -> tensor<i32>
// CHECK-NEXT: "aten.where.self"(%{{.+}}, [[V]], %{{.+}}) : (tensor<4xi1>, tensor<i32>, tensor<3x4xi32>) -> tensor<3x4xi32>
func.func @masked_fill_tensor(%x: tensor<3x4xi32>, %m: tensor<4xi1>, %v: tensor<f32>) -> tensor<3x4xi32> {
  %0 = "aten.masked_fill.Tensor"(%x, %m, %v) : (tensor<3x4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// CHECK-LABEL: func.func @take_along_dim
// CHECK: [[W:%.+]] = "aten.remainder.Scalar"(%{{.+}}) {other = 4 : i64}
// CHECK-NEXT: [[E:%.+]] = "aten.expand"([[W]]) {{.*}} -> tensor<3x2xi64>
// CHECK-NEXT: "aten.gather"(%{{.+}}, [[E]]) {dim = 1 : i64
func.func @take_along_dim(%x: tensor<3x4xf32>, %i: tensor<1x2xi64>) -> tensor<3x2xf32> {
  %0 = "aten.take_along_dim"(%x, %i) {dim = 1 : i64} : (tensor<3x4xf32>, tensor<1x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @put
// CHECK: [[F:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: 12>}
// CHECK-NEXT: [[P:%.+]] = "aten.index_put"([[F]], %{{.+}}, %{{.+}}) {accumulate = true
// CHECK-NEXT: "aten.view"([[P]]) {size = array<i64: 3, 4>}
func.func @put(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %s: tensor<2xf32>) -> tensor<3x4xf32> {
  %0 = "aten.put"(%x, %i, %s) {accumulate = true} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @isin
// CHECK: [[C:%.+]] = "aten.unsqueeze"
// CHECK-NEXT: [[R:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: 4>}
// CHECK-NEXT: [[E:%.+]] = "aten.eq.Tensor"([[C]], [[R]]) : (tensor<3x4x1xf32>, tensor<4xf32>) -> tensor<3x4x4xi1>
// CHECK-NEXT: [[A:%.+]] = "aten.any.dim"([[E]]) {dim = -1 : i64, keepdim = false}
// CHECK-NEXT: "aten.logical_not"([[A]])
func.func @isin(%x: tensor<3x4xf32>, %t: tensor<2x2xf32>) -> tensor<3x4xi1> {
  %0 = "aten.isin.Tensor_Tensor"(%x, %t) {assume_unique = false, invert = true} : (tensor<3x4xf32>, tensor<2x2xf32>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>
}

// -----

// side="right" wins over right=false: the search stops on `>`; the sorter permutes first.
// CHECK-LABEL: func.func @searchsorted_sorter
// CHECK: [[S:%.+]] = "aten.gather"(%{{.+}}, %{{.+}}) {dim = -1 : i64
// CHECK: "aten.gather"([[S]], %{{.+}}) {dim = -1 : i64
// CHECK-NEXT: "aten.gt.Tensor"
// CHECK-COUNT-2: "aten.gt.Tensor"
// CHECK-NOT: "aten.gt.Tensor"
// CHECK: "aten._to_copy"(%{{.+}}) {dtype = i32{{.*}}} : (tensor<2x3xi64>) -> tensor<2x3xi32>
func.func @searchsorted_sorter(%s: tensor<2x5xf32>, %x: tensor<2x3xf32>, %o: tensor<2x5xi64>) -> tensor<2x3xi32> {
  %0 = "aten.searchsorted.Tensor"(%s, %x, %o) {out_int32 = true, right = false, side = "right", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 1>} : (tensor<2x5xf32>, tensor<2x3xf32>, tensor<2x5xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @diagonal_scatter
// CHECK: [[P:%.+]] = "aten.permute"(%{{.+}}) {dims = array<i64: 0, 1>}
// CHECK-NEXT: [[R:%.+]] = "aten.arange.start_step"() {dtype = i64, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: [[C:%.+]] = "aten.arange.start_step"() {dtype = i64, end = 4 : i64, start = 1 : i64, step = 1 : i64}
// CHECK-NEXT: "aten.index_put"([[P]], [[R]], [[C]], %{{.+}}) {accumulate = false, indices = array<i1: true, true>
func.func @diagonal_scatter(%x: tensor<3x4xf32>, %s: tensor<3xf32>) -> tensor<3x4xf32> {
  %0 = "aten.diagonal_scatter"(%x, %s) {offset = 1 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @as_strided_copy
// CHECK-NOT: "aten.as_strided"
// CHECK: "aten.scalar_tensor"() {dtype = i64, s = 1 : i64}
// CHECK: "aten.mul.Scalar"(%{{.+}}) {other = 1 : i64} : (tensor<2xi64>)
// CHECK: "aten.mul.Scalar"(%{{.+}}) {other = 4 : i64} : (tensor<3xi64>)
// CHECK: [[F:%.+]] = "aten.view"(%{{.+}}) {size = array<i64: 12>}
// CHECK-NEXT: "aten.index.Tensor"([[F]], %{{.+}}) {{.*}} -> tensor<2x3xf32>
// CHECK-NOT: "aten.as_strided
func.func @as_strided_copy(%x: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %0 = "aten.as_strided_copy"(%x) {size = array<i64: 2, 3>, stride = array<i64: 1, 4>, storage_offset = 1 : i64} : (tensor<3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @argwhere
// CHECK-NEXT: "aten.nonzero"(%{{.+}}) : (tensor<3x4xf32>) -> tensor<?x2xi64>
func.func @argwhere(%x: tensor<3x4xf32>) -> tensor<?x2xi64> {
  %0 = "aten.argwhere"(%x) : (tensor<3x4xf32>) -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}

// -----

// CHECK-LABEL: func.func @nonzero_static
// CHECK-NEXT: [[N:%.+]] = "aten.nonzero"(%{{.+}}) : (tensor<3x4xf32>) -> tensor<?x2xi64>
// CHECK-NEXT: [[F:%.+]] = "aten.full"() {dtype = i64, fill_value = -1 : i64, size = array<i64: 5, 2>}
// CHECK-NEXT: [[C:%.+]] = "aten.cat"([[N]], [[F]])
// CHECK-NEXT: "aten.slice.Tensor"([[C]]) {dim = 0 : i64, end = 5 : i64, start = 0 : i64, step = 1 : i64} : (tensor<?x2xi64>) -> tensor<5x2xi64>
func.func @nonzero_static(%x: tensor<3x4xf32>) -> tensor<5x2xi64> {
  %0 = "aten.nonzero_static"(%x) {size = 5 : i64, fill_value = -1 : i64} : (tensor<3x4xf32>) -> tensor<5x2xi64>
  return %0 : tensor<5x2xi64>
}

// -----

// CHECK-LABEL: func.func @masked_select
// CHECK: [[M:%.+]] = "aten.expand"(%{{.+}}) {{.*}} -> tensor<3x4xi1>
// CHECK-NEXT: [[N:%.+]] = "aten.nonzero"([[M]]) : (tensor<3x4xi1>) -> tensor<?x2xi64>
// CHECK-NEXT: [[R:%.+]] = "aten.select.int"([[N]]) {dim = 1 : i64, index = 0 : i64}
// CHECK-NEXT: [[C:%.+]] = "aten.select.int"([[N]]) {dim = 1 : i64, index = 1 : i64}
// CHECK-NEXT: "aten.index.Tensor"(%{{.+}}, [[R]], [[C]]) {{.*}} -> tensor<?xf32>
func.func @masked_select(%x: tensor<3x4xf32>, %m: tensor<4xi1>) -> tensor<?xf32> {
  %0 = "aten.masked_select"(%x, %m) : (tensor<3x4xf32>, tensor<4xi1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A static range [min, max] needs no data: bins from (x - min) * bins / (max - min).
// CHECK-LABEL: func.func @histc
// CHECK-NOT: "aten.amin"
// CHECK: [[D:%.+]] = "aten.sub.Tensor"(%{{.+}}, %{{.+}}) {alpha = 1 : i64} : (tensor<10xf32>, tensor<f32>)
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Scalar"([[D]]) {other = 4 : i64}
// CHECK: "aten._to_copy"
// CHECK-NEXT: "aten.clamp"(%{{.+}}) {max = 3 : i64}
// CHECK: "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = true
func.func @histc(%x: tensor<10xf32>) -> tensor<4xf32> {
  %0 = "aten.histc"(%x) {bins = 4 : i64, min = -1 : i64, max = 3 : i64} : (tensor<10xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unique_consecutive
// CHECK: [[NE:%.+]] = "aten.ne.Tensor"
// CHECK: [[FIRST:%.+]] = "aten.logical_or"([[NE]], %{{.+}})
// CHECK-NEXT: [[N:%.+]] = "aten.nonzero"([[FIRST]]) : (tensor<6xi1>) -> tensor<?x1xi64>
// CHECK: "aten.index.Tensor"(%{{.+}}, %{{.+}}) {{.*}} -> tensor<?xf32>
// CHECK: "aten.cumsum"([[FIRST]]) {dim = 0 : i64, dtype = i64}
func.func @unique_consecutive(%x: tensor<6xf32>) -> (tensor<?xf32>, tensor<6xi64>, tensor<0xi64>) {
  %0:3 = "aten.unique_consecutive"(%x) {return_inverse = true, return_counts = false} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<6xi64>, tensor<0xi64>)
  return %0#0, %0#1, %0#2 : tensor<?xf32>, tensor<6xi64>, tensor<0xi64>
}

// -----

// CHECK-LABEL: func.func @select_backward
// CHECK: [[Z:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64: 3, 4, 5>}
// CHECK-NEXT: "aten.select_scatter"([[Z]], %{{.+}}) {dim = 1 : i64, index = 2 : i64}
func.func @select_backward(%arg0: tensor<3x5xf32>) -> tensor<3x4x5xf32> {
  %0 = "aten.select_backward"(%arg0) {dim = 1 : i64, index = 2 : i64, input_sizes = array<i64: 3, 4, 5>} : (tensor<3x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @slice_backward
// CHECK: [[Z:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64: 3, 5>}
// CHECK-NEXT: "aten.slice_scatter"([[Z]], %{{.+}}) {dim = 1 : i64, end = 5 : i64, start = 1 : i64, step = 2 : i64}
func.func @slice_backward(%arg0: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = "aten.slice_backward"(%arg0) {dim = 1 : i64, end = 5 : i64, input_sizes = array<i64: 3, 5>, start = 1 : i64, step = 2 : i64} : (tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// diagonal_backward stops at diagonal_scatter, which decomposes in turn.
// CHECK-LABEL: func.func @diagonal_backward
// CHECK: [[Z:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64: 3, 4>}
// CHECK-NEXT: "aten.permute"([[Z]])
// CHECK: "aten.index_put"
// CHECK-NOT: "aten.diagonal_scatter"
func.func @diagonal_backward(%arg0: tensor<3xf32>) -> tensor<3x4xf32> {
  %0 = "aten.diagonal_backward"(%arg0) {dim1 = 0 : i64, dim2 = 1 : i64, input_sizes = array<i64: 3, 4>, offset = 0 : i64} : (tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @index_select_backward
// CHECK: [[Z:%.+]] = "aten.full"() {dtype = f32, fill_value = 0 : i64, size = array<i64: 3, 4>}
// CHECK-NEXT: "aten.index_put"([[Z]], %{{.+}}, %{{.+}}) {accumulate = true, indices = array<i1: false, true>
func.func @index_select_backward(%arg0: tensor<3x2xf32>, %arg1: tensor<2xi64>) -> tensor<3x4xf32> {
  %0 = "aten.index_select_backward"(%arg0, %arg1) {dim = 1 : i64, self_sizes = array<i64: 3, 4>} : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @gather_backward
// CHECK: [[Z:%.+]] = "aten.full_like"(%{{.+}}) {dtype = f32, fill_value = 0 : i64
// CHECK-NEXT: "aten.scatter_add"([[Z]], %{{.+}}, %{{.+}}) {dim = 1 : i64}
func.func @gather_backward(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<2x3xi64>) -> tensor<3x4xf32> {
  %0 = "aten.gather_backward"(%arg0, %arg1, %arg2) {dim = 1 : i64, sparse_grad = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_reduce_multiply
// CHECK-NEXT: "aten.scatter_reduce.two"(%{{.+}}, %{{.+}}, %{{.+}}) {dim = 1 : i64, include_self = true, reduce = "prod"}
func.func @scatter_reduce_multiply(%arg0: tensor<3x4xf32>, %arg1: tensor<2x2xi64>, %arg2: tensor<2x2xf32>) -> tensor<3x4xf32> {
  %0 = "aten.scatter.reduce"(%arg0, %arg1, %arg2) {dim = 1 : i64, reduce = "multiply"} : (tensor<3x4xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_value_reduce
// CHECK-NEXT: [[V:%.+]] = "aten.full_like"(%{{.+}}) {dtype = f32, fill_value = 2.000000e+00 : f64{{.*}}} : (tensor<2x2xi64>) -> tensor<2x2xf32>
// CHECK-NEXT: "aten.scatter_reduce.two"(%{{.+}}, %{{.+}}, [[V]]) {dim = 1 : i64, include_self = true, reduce = "sum"}
func.func @scatter_value_reduce(%arg0: tensor<3x4xf32>, %arg1: tensor<2x2xi64>) -> tensor<3x4xf32> {
  %0 = "aten.scatter.value_reduce"(%arg0, %arg1) {dim = 1 : i64, reduce = "add", value = 2.000000e+00 : f64} : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @unsafe_index
// CHECK-NEXT: "aten.index.Tensor"(%{{.+}}, %{{.+}}) {indices = array<i1: false, true>{{.*}} -> tensor<3x2xf32>
func.func @unsafe_index(%arg0: tensor<3x4xf32>, %arg1: tensor<2xi64>) -> tensor<3x2xf32> {
  %0 = "aten._unsafe_index.Tensor"(%arg0, %arg1) {indices = array<i1: false, true>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @unsafe_index_put
// CHECK-NEXT: "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = true
func.func @unsafe_index_put(%arg0: tensor<3x4xf32>, %arg1: tensor<2xi64>, %arg2: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %0 = "aten._unsafe_index_put"(%arg0, %arg1, %arg2) {accumulate = true, indices = array<i1: true>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @embedding_backward
// CHECK-NEXT: "aten.embedding_dense_backward"(%{{.+}}, %{{.+}}) {num_weights = 6 : i64, padding_idx = -1 : i64, scale_grad_by_freq = false}
func.func @embedding_backward(%arg0: tensor<2x3xf32>, %arg1: tensor<2xi64>) -> tensor<6x3xf32> {
  %0 = "aten.embedding_backward"(%arg0, %arg1) {num_weights = 6 : i64, padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// -----

// CHECK-LABEL: func.func @nonzero_numpy
// CHECK-NEXT: [[N:%.+]] = "aten.nonzero"(%{{.+}}) : (tensor<3x4xf32>) -> tensor<?x2xi64>
// CHECK-NEXT: [[A:%.+]] = "aten.select.int"([[N]]) {dim = 1 : i64, index = 0 : i64}
// CHECK-NEXT: [[B:%.+]] = "aten.select.int"([[N]]) {dim = 1 : i64, index = 1 : i64}
// CHECK-NEXT: return [[A]], [[B]]
func.func @nonzero_numpy(%arg0: tensor<3x4xf32>) -> (tensor<?xi64>, tensor<?xi64>) {
  %0:2 = "aten.nonzero_numpy"(%arg0) : (tensor<3x4xf32>) -> (tensor<?xi64>, tensor<?xi64>)
  return %0#0, %0#1 : tensor<?xi64>, tensor<?xi64>
}

// -----

// Tensor edges: the bin is upper_bound(edges, x) - 1 (searchsorted, right), the last edge in the last bin.
// CHECK-LABEL: func.func @histogram_bins_tensor
// CHECK-COUNT-3: "aten.gt.Tensor"
// CHECK: [[B:%.+]] = "aten.sub.Scalar"(%{{.+}}) {alpha = 1 : i64, other = 1 : i64}
// CHECK-NEXT: "aten.clamp"([[B]]) {max = 3 : i64, min = 0 : i64}
// CHECK: "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = true
// CHECK-NOT: "aten.histogram
func.func @histogram_bins_tensor(%arg0: tensor<10xf32>, %arg1: tensor<5xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  %0:2 = "aten.histogram.bins_tensor"(%arg0, %arg1) {density = false, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<10xf32>, tensor<5xf32>) -> (tensor<4xf32>, tensor<5xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<5xf32>
}

// -----

// No range: the edges span the data (amin, amax), widened by 0.5 when equal.
// CHECK-LABEL: func.func @histogram_bin_ct
// CHECK: "aten.amin"
// CHECK: "aten.amax"
// CHECK: "aten.sub.Scalar"(%{{.+}}) {alpha = 1 : i64, other = 5.000000e-01 : f64}
// CHECK: [[E:%.+]] = "aten.cat"({{.*}}) -> tensor<5xf32>
// CHECK: "aten.index_put"
// CHECK: return %{{.+}}, [[E]]
func.func @histogram_bin_ct(%arg0: tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  %0:2 = "aten.histogram.bin_ct"(%arg0) {bins = 4 : i64, density = false, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>} : (tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<5xf32>
}

// -----

// A static range needs no data; D = 2 dims make a flat bin b0 * 3 + b1.
// CHECK-LABEL: func.func @histogramdd
// CHECK-NOT: "aten.amin"
// CHECK: "aten.mul.Scalar"(%{{.+}}) {other = 3 : i64} : (tensor<10xi64>)
// CHECK: [[H:%.+]] = "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = true{{.*}} -> tensor<6xf32>
// CHECK-NEXT: "aten.view"([[H]]) {size = array<i64: 2, 3>}
func.func @histogramdd(%arg0: tensor<10x2xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>) {
  %0:3 = "aten.histogramdd"(%arg0) {bins = array<i64: 2, 3>, density = false, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, range = array<f64: 0.000000e+00, 1.000000e+00, -1.000000e+00, 1.000000e+00>, resultSegmentSizes = array<i32: 1, 2>} : (tensor<10x2xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @histogramdd_tensor_bins
// CHECK: "aten.mul.Scalar"(%{{.+}}) {other = 3 : i64} : (tensor<10xi64>)
// CHECK: [[H:%.+]] = "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = true{{.*}} -> tensor<6xf32>
// CHECK-NEXT: [[V:%.+]] = "aten.view"([[H]]) {size = array<i64: 2, 3>}
// CHECK-NEXT: return [[V]], %arg1, %arg2
func.func @histogramdd_tensor_bins(%arg0: tensor<10x2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>) {
  %0:3 = "aten.histogramdd.TensorList_bins"(%arg0, %arg1, %arg2) {density = false, operandSegmentSizes = array<i32: 1, 2, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 2>} : (tensor<10x2xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>
}

// -----

// A float scalar is a float64 0-d tensor, as ATen's scalar_to_tensor makes it.
// CHECK-LABEL: func.func @searchsorted_scalar
// CHECK: "aten.scalar_tensor"() {dtype = f64, s = 1.500000e+00 : f64}
// CHECK-COUNT-3: "aten.ge.Tensor"
// CHECK-NOT: "aten.searchsorted
func.func @searchsorted_scalar(%arg0: tensor<4xf32>) -> tensor<i64> {
  %0 = "aten.searchsorted.Scalar"(%arg0) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>, out_int32 = false, right = false, self = 1.500000e+00 : f64} : (tensor<4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @bucketize_scalar
// CHECK: "aten.scalar_tensor"() {dtype = i64, s = 2 : i64}
// CHECK: "aten.gt.Tensor"
// CHECK-NOT: "aten.searchsorted
// CHECK-NOT: "aten.bucketize
func.func @bucketize_scalar(%arg0: tensor<4xf32>) -> tensor<i64> {
  %0 = "aten.bucketize.Scalar"(%arg0) {out_int32 = false, right = true, self = 2 : i64} : (tensor<4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @isin_tensor_scalar
// CHECK-NEXT: "aten.eq.Scalar"(%{{.+}}) {other = 1.000000e+00 : f64} : (tensor<3x4xf32>) -> tensor<3x4xi1>
func.func @isin_tensor_scalar(%arg0: tensor<3x4xf32>) -> tensor<3x4xi1> {
  %0 = "aten.isin.Tensor_Scalar"(%arg0) {assume_unique = false, invert = false, test_element = 1.000000e+00 : f64} : (tensor<3x4xf32>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>
}

// -----

// CHECK-LABEL: func.func @isin_scalar_tensor
// CHECK-NEXT: [[E:%.+]] = "aten.eq.Scalar"(%{{.+}}) {other = 3 : i64}
// CHECK-NEXT: [[A:%.+]] = "aten.any"([[E]]) : (tensor<5xi1>) -> tensor<i1>
// CHECK-NEXT: "aten.logical_not"([[A]])
func.func @isin_scalar_tensor(%arg0: tensor<5xi64>) -> tensor<i1> {
  %0 = "aten.isin.Scalar_Tensor"(%arg0) {assume_unique = false, element = 3 : i64, invert = true} : (tensor<5xi64>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// CHECK-LABEL: func.func @as_strided_scatter
// CHECK-NOT: "aten.as_strided"
// CHECK: "aten.mul.Scalar"(%{{.+}}) {other = 5 : i64}
// CHECK: [[P:%.+]] = "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = false{{.*}} -> tensor<12xf32>
// CHECK-NEXT: "aten.view"([[P]]) {size = array<i64: 3, 4>}
// CHECK-NOT: "aten.as_strided
func.func @as_strided_scatter(%arg0: tensor<3x4xf32>, %arg1: tensor<2x2xf32>) -> tensor<3x4xf32> {
  %0 = "aten.as_strided_scatter"(%arg0, %arg1) {size = array<i64: 2, 2>, storage_offset = 2 : i64, stride = array<i64: 5, 1>} : (tensor<3x4xf32>, tensor<2x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @unique2
// CHECK: [[S:%.+]] = "aten.sort"
// CHECK: "aten.ne.Tensor"
// CHECK: "aten.nonzero"
// CHECK: [[G:%.+]] = "aten.cumsum"
// CHECK: "aten.index_put"(%{{.+}}, %{{.+}}, %{{.+}}) {accumulate = true
// CHECK-NOT: "aten._unique2"
func.func @unique2(%arg0: tensor<6xf32>) -> (tensor<?xf32>, tensor<0xi64>, tensor<?xi64>) {
  %0:3 = "aten._unique2"(%arg0) {return_counts = true, return_inverse = false, sorted = true} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<0xi64>, tensor<?xi64>)
  return %0#0, %0#1, %0#2 : tensor<?xf32>, tensor<0xi64>, tensor<?xi64>
}

// -----

// CHECK-LABEL: func.func @unsafe_masked_index
// CHECK: [[C:%.+]] = "aten.clamp"(%{{.+}}) {max = 2 : i64, min = -3 : i64}
// CHECK-NEXT: [[I:%.+]] = "aten.index.Tensor"(%{{.+}}, [[C]])
// CHECK-NEXT: [[F:%.+]] = "aten.scalar_tensor"() {dtype = f32, s = 5.000000e-01 : f64}
// CHECK-NEXT: "aten.where.self"(%{{.+}}, [[I]], [[F]])
func.func @unsafe_masked_index(%arg0: tensor<3x4xf32>, %arg1: tensor<2x1xi1>, %arg2: tensor<2xi64>) -> tensor<2x4xf32> {
  %0 = "aten._unsafe_masked_index"(%arg0, %arg1, %arg2) {fill = 5.000000e-01 : f64, indices = array<i1: true>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<3x4xf32>, tensor<2x1xi1>, tensor<2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @unsafe_masked_index_put_accumulate
// CHECK: [[C:%.+]] = "aten.clamp"(%{{.+}}) {max = 2 : i64, min = -3 : i64}
// CHECK: [[V:%.+]] = "aten.where.self"
// CHECK-NEXT: "aten.index_put"(%{{.+}}, [[C]], [[V]]) {accumulate = true
func.func @unsafe_masked_index_put_accumulate(%arg0: tensor<3x4xf32>, %arg1: tensor<2x1xi1>, %arg2: tensor<2xi64>, %arg3: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %0 = "aten._unsafe_masked_index_put_accumulate"(%arg0, %arg1, %arg2, %arg3) {indices = array<i1: true>, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<3x4xf32>, tensor<2x1xi1>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @embedding_bag
// CHECK-NEXT: "aten._embedding_bag"(%{{.+}}, %{{.+}}, %{{.+}}) {include_last_offset = false, mode = 1 : i64, {{.*}}padding_idx = -1 : i64
func.func @embedding_bag(%arg0: tensor<10x3xf32>, %arg1: tensor<6xi64>, %arg2: tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<0xi64>) {
  %0:4 = "aten.embedding_bag"(%arg0, %arg1, %arg2) {include_last_offset = false, mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, scale_grad_by_freq = false, sparse = false} : (tensor<10x3xf32>, tensor<6xi64>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<0xi64>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<0xi64>
}

// -----

// CHECK-LABEL: func.func @embedding_bag_padding_idx
// CHECK-NEXT: "aten._embedding_bag"(%{{.+}}, %{{.+}}, %{{.+}}) {include_last_offset = false, mode = 0 : i64, {{.*}}padding_idx = 1 : i64
func.func @embedding_bag_padding_idx(%arg0: tensor<10x3xf32>, %arg1: tensor<6xi64>, %arg2: tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<0xi64>) {
  %0:4 = "aten.embedding_bag.padding_idx"(%arg0, %arg1, %arg2) {include_last_offset = false, mode = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0>, padding_idx = 1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<10x3xf32>, tensor<6xi64>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<0xi64>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<0xi64>
}

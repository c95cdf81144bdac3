// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// Sum / mean: the index -> bag map rebuilt from the offsets (ones at each bag's first offset,
// summed cumulatively; the forward's offset2bag is not read), each index's bag gradient row
// gathered from the gradient with a zero row appended (an index in no bag reads it), scaled by
// 1 / bag_size in double, and embedding_dense_backward (padding_idx, frequencies) adds them up.
// The offsets are cut to the gradient's bags (include_last_offset's extra one). Dynamic sizes.
// CHECK-LABEL: func.func @mean_backward
// CHECK-DAG: [[BAGS:%.+]] = tensor.dim %arg0, %c0 : tensor<?x4xf32>
// CHECK-DAG: [[N:%.+]] = tensor.dim %arg1, %c0 : tensor<?xi64>
// CHECK: [[OFF:%.+]] = "aten.slice.Tensor"(%arg2, [[BAGS]]) {dim = 0 : i64
// CHECK: [[N1:%.+]] = arith.addi [[N]], %c1 : index
// CHECK: [[MARKS:%.+]] = "aten.full"([[N1]]) {dtype = i64, fill_value = 0 : i64
// CHECK: [[ONES:%.+]] = "aten.full"([[BAGS]]) {dtype = i64, fill_value = 1 : i64
// CHECK: [[PUT:%.+]] = "aten.index_put"([[MARKS]], [[OFF]], [[ONES]]) {accumulate = true
// CHECK: [[HEAD:%.+]] = "aten.slice.Tensor"([[PUT]], [[N]])
// CHECK: [[SUM:%.+]] = "aten.cumsum"([[HEAD]]) {dim = 0 : i64}
// CHECK: [[BAG:%.+]] = "aten.sub.Scalar"([[SUM]]) {alpha = 1 : i64, other = 1 : i64}
// CHECK: [[PADG:%.+]] = "aten.constant_pad_nd"(%arg0) {pad = array<i64: 0, 0, 0, 1>, value = 0 : i64}
// CHECK: [[ROWS:%.+]] = "aten.index.Tensor"([[PADG]], [[BAG]])
// CHECK: [[PADS:%.+]] = "aten.constant_pad_nd"(%arg4) {pad = array<i64: 0, 1>
// CHECK: "aten.index.Tensor"([[PADS]], [[BAG]])
// CHECK: "aten.reciprocal"({{.*}}) : (tensor<?xf64>) -> tensor<?xf64>
// CHECK: [[SCALED:%.+]] = "aten.mul.Tensor"([[ROWS]], {{%.+}}) : (tensor<?x4xf32>, tensor<?x1xf32>)
// CHECK: [[OUT:%.+]] = "aten.embedding_dense_backward"([[SCALED]], %arg1) {num_weights = 10 : i64, padding_idx = 2 : i64, scale_grad_by_freq = true}
// CHECK: return [[OUT]]
func.func @mean_backward(%g: tensor<?x4xf32>, %i: tensor<?xi64>, %o: tensor<?xi64>, %o2b: tensor<?xi64>, %bs: tensor<?xi64>, %mi: tensor<?xi64>) -> tensor<10x4xf32> {
  %0 = "aten._embedding_bag_backward"(%g, %i, %o, %o2b, %bs, %mi) {mode = 1 : i64, num_weights = 10 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>, padding_idx = 2 : i64, scale_grad_by_freq = true, sparse = false} : (tensor<?x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

// Max: each bag's gradient scattered to the rows its maxima came from, empty bags masked out.
// CHECK-LABEL: func.func @max_backward
// CHECK: [[FILLED:%.+]] = "aten.ne.Scalar"(%arg4) {other = 0 : i64}
// CHECK: [[MASK:%.+]] = "aten.unsqueeze"([[FILLED]]) {dim = 1 : i64} : (tensor<3xi1>) -> tensor<3x1xi1>
// CHECK: [[AT:%.+]] = "aten.where.self"([[MASK]], %arg5, {{%.+}}) : (tensor<3x1xi1>, tensor<3x4xi64>, tensor<i64>)
// CHECK: [[SRC:%.+]] = "aten.where.self"([[MASK]], %arg0, {{%.+}}) : (tensor<3x1xi1>, tensor<3x4xf64>, tensor<f64>)
// CHECK: [[ZERO:%.+]] = "aten.full"() {dtype = f64, fill_value = 0 : i64, size = array<i64: 10, 4>}
// CHECK: [[OUT:%.+]] = "aten.scatter_add"([[ZERO]], [[AT]], [[SRC]]) {dim = 0 : i64}
// CHECK: return [[OUT]]
func.func @max_backward(%g: tensor<3x4xf64>, %i: tensor<7xi64>, %o: tensor<4xi64>, %o2b: tensor<7xi64>, %bs: tensor<3xi64>, %mi: tensor<3x4xi64>) -> tensor<10x4xf64> {
  %0 = "aten._embedding_bag_backward"(%g, %i, %o, %o2b, %bs, %mi) {mode = 2 : i64, num_weights = 10 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>, padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<3x4xf64>, tensor<7xi64>, tensor<4xi64>, tensor<7xi64>, tensor<3xi64>, tensor<3x4xi64>) -> tensor<10x4xf64>
  return %0 : tensor<10x4xf64>
}

// -----

// sparse=True stays whole (a sparse COO gradient has no tensor type here).
// CHECK-LABEL: func.func @sparse_backward
// CHECK: "aten._embedding_bag_backward"
func.func @sparse_backward(%g: tensor<3x4xf32>, %i: tensor<7xi64>, %o: tensor<3xi64>, %o2b: tensor<7xi64>, %bs: tensor<3xi64>, %mi: tensor<3xi64>) -> tensor<10x4xf32> {
  %0 = "aten._embedding_bag_backward"(%g, %i, %o, %o2b, %bs, %mi) {mode = 0 : i64, num_weights = 10 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>, padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = true} : (tensor<3x4xf32>, tensor<7xi64>, tensor<3xi64>, tensor<7xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

// Per-sample weights: each index's bag gradient row dotted with its weight row, 0 at padding_idx.
// CHECK-LABEL: func.func @per_sample_weights
// CHECK: "aten.cumsum"
// CHECK: [[PADG:%.+]] = "aten.constant_pad_nd"(%arg0) {pad = array<i64: 0, 0, 0, 1>, value = 0 : i64} : (tensor<3x4xf32>) -> tensor<4x4xf32>
// CHECK: [[ROWS:%.+]] = "aten.index.Tensor"([[PADG]], {{%.+}}) {{.*}} -> tensor<5x4xf32>
// CHECK: [[W:%.+]] = "aten.index.Tensor"(%arg1, %arg2) {{.*}} -> tensor<5x4xf32>
// CHECK: [[PROD:%.+]] = "aten.mul.Tensor"([[ROWS]], [[W]])
// CHECK: [[DOT:%.+]] = "aten.sum.dim_IntList"([[PROD]]) {dim = array<i64: 1>, keepdim = false}
// CHECK: [[PAD:%.+]] = "aten.eq.Scalar"(%arg2) {other = 1 : i64}
// CHECK: [[OUT:%.+]] = "aten.where.self"([[PAD]], {{%.+}}, [[DOT]])
// CHECK: return [[OUT]]
func.func @per_sample_weights(%g: tensor<3x4xf32>, %w: tensor<10x4xf32>, %i: tensor<5xi64>, %o: tensor<3xi64>, %o2b: tensor<5xi64>) -> tensor<5xf32> {
  %0 = "aten._embedding_bag_per_sample_weights_backward"(%g, %w, %i, %o, %o2b) {mode = 0 : i64, padding_idx = 1 : i64} : (tensor<3x4xf32>, tensor<10x4xf32>, tensor<5xi64>, tensor<3xi64>, tensor<5xi64>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

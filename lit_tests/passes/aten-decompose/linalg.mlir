// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// A 3-d input folds into the rows of one mm (ATen's matmul); the batch size is read at run
// time. The input is not provably contiguous, so it is cloned before the view, as reshape does.
// CHECK-LABEL: func.func @linear_3d
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x16x64xf32>, %[[W:[^ :]+]]: tensor<32x64xf32>)
// CHECK-DAG: [[C32:%.+]] = arith.constant 32 : index
// CHECK-DAG: [[C16:%.+]] = arith.constant 16 : index
// CHECK-DAG: [[C0:%.+]] = arith.constant 0 : index
// CHECK-NEXT: [[WT:%.+]] = "aten.permute"(%[[W]]) {dims = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
// CHECK-NEXT: [[XC:%.+]] = "aten.clone"(%[[X]]) {memory_format = "contiguous_format"}
// CHECK-NEXT: [[XV:%.+]] = "aten.view"([[XC]]) {size = array<i64: -1, 64>} : (tensor<?x16x64xf32>) -> tensor<?x64xf32>
// CHECK-NEXT: [[MM:%.+]] = "aten.mm"([[XV]], [[WT]]) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
// CHECK-NEXT: [[B:%.+]] = tensor.dim %[[X]], [[C0]]
// CHECK-NEXT: [[Y:%.+]] = "aten.view"([[MM]], [[B]], [[C16]], [[C32]]) {operandSegmentSizes = array<i32: 1, 3>} : (tensor<?x32xf32>, index, index, index) -> tensor<?x16x32xf32>
// CHECK-NEXT: return [[Y]]
func.func @linear_3d(%x: tensor<?x16x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x16x32xf32> {
  %0 = "aten.linear"(%x, %w) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<?x16x64xf32>, tensor<32x64xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

// CHECK-LABEL: func.func @linear_bias
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x64xf32>, %[[W:[^ :]+]]: tensor<10x64xf32>, %[[B:[^ :]+]]: tensor<10xf32>)
// CHECK-NEXT: [[WT:%.+]] = "aten.permute"(%[[W]]) {dims = array<i64: 1, 0>}
// CHECK-NEXT: [[Y:%.+]] = "aten.addmm"(%[[B]], %[[X]], [[WT]]) {alpha = 1 : i64, beta = 1 : i64} : (tensor<10xf32>, tensor<2x64xf32>, tensor<64x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT: return [[Y]]
func.func @linear_bias(%x: tensor<2x64xf32>, %w: tensor<10x64xf32>, %b: tensor<10xf32>) -> tensor<2x10xf32> {
  %0 = "aten.linear"(%x, %w, %b) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %0 : tensor<2x10xf32>
}

// -----

// Batch dims broadcast (expand), fold (clone + view, as ATen's reshape), bmm, unfold.
// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<5x1x2x3xf32>, %[[B:[^ :]+]]: tensor<4x3x2xf32>)
// CHECK-NEXT: [[EA:%.+]] = "aten.expand"(%[[A]]) {implicit = false, size = array<i64: 5, 4, 2, 3>}
// CHECK-NEXT: [[CA:%.+]] = "aten.clone"([[EA]]) {memory_format = "contiguous_format"}
// CHECK-NEXT: [[VA:%.+]] = "aten.view"([[CA]]) {size = array<i64: 20, 2, 3>}
// CHECK-NEXT: [[EB:%.+]] = "aten.expand"(%[[B]]) {implicit = false, size = array<i64: 5, 4, 3, 2>}
// CHECK-NEXT: [[CB:%.+]] = "aten.clone"([[EB]]) {memory_format = "contiguous_format"}
// CHECK-NEXT: [[VB:%.+]] = "aten.view"([[CB]]) {size = array<i64: 20, 3, 2>}
// CHECK-NEXT: [[P:%.+]] = "aten.bmm"([[VA]], [[VB]]) : (tensor<20x2x3xf32>, tensor<20x3x2xf32>) -> tensor<20x2x2xf32>
// CHECK-NEXT: [[Y:%.+]] = "aten.view"([[P]]) {size = array<i64: 5, 4, 2, 2>} : (tensor<20x2x2xf32>) -> tensor<5x4x2x2xf32>
// CHECK-NEXT: return [[Y]]
func.func @matmul_batched(%a: tensor<5x1x2x3xf32>, %b: tensor<4x3x2xf32>) -> tensor<5x4x2x2xf32> {
  %0 = "aten.matmul"(%a, %b) : (tensor<5x1x2x3xf32>, tensor<4x3x2xf32>) -> tensor<5x4x2x2xf32>
  return %0 : tensor<5x4x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @mv
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<2x3xi32>, %[[V:[^ :]+]]: tensor<3xi32>)
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%[[V]]) {dim = 1 : i64} : (tensor<3xi32>) -> tensor<3x1xi32>
// CHECK-NEXT: [[M:%.+]] = "aten.mm"(%[[A]], [[U]]) : (tensor<2x3xi32>, tensor<3x1xi32>) -> tensor<2x1xi32>
// CHECK-NEXT: [[S:%.+]] = "aten.squeeze.dims"([[M]]) {dim = array<i64: 1>} : (tensor<2x1xi32>) -> tensor<2xi32>
// CHECK-NEXT: return [[S]]
func.func @mv(%a: tensor<2x3xi32>, %v: tensor<3xi32>) -> tensor<2xi32> {
  %0 = "aten.mv"(%a, %v) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// The sum keeps the result dtype (a plain sum of i32 would give i64).
// CHECK-LABEL: func.func @dot
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"(%{{.+}}, %{{.+}}) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[M]]) {dim = array<i64: 0>, dtype = i32, keepdim = false} : (tensor<3xi32>) -> tensor<i32>
// CHECK-NEXT: return [[S]]
func.func @dot(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<i32> {
  %0 = "aten.dot"(%a, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// beta = 0: self is not read at all, so NaN in it cannot propagate.
// CHECK-LABEL: func.func @baddbmm_beta0
// CHECK-SAME: (%{{[^ :]+}}: tensor<3x2x4xf32>, %[[A:[^ :]+]]: tensor<3x2x5xf32>, %[[B:[^ :]+]]: tensor<3x5x4xf32>)
// CHECK-NEXT: [[P:%.+]] = "aten.bmm"(%[[A]], %[[B]])
// CHECK-NEXT: [[Y:%.+]] = "aten.mul.Scalar"([[P]]) {other = 2 : i64}
// CHECK-NEXT: return [[Y]]
func.func @baddbmm_beta0(%s: tensor<3x2x4xf32>, %a: tensor<3x2x5xf32>, %b: tensor<3x5x4xf32>) -> tensor<3x2x4xf32> {
  %0 = "aten.baddbmm"(%s, %a, %b) {beta = 0 : i64, alpha = 2 : i64} : (tensor<3x2x4xf32>, tensor<3x2x5xf32>, tensor<3x5x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @addmv
// CHECK-SAME: (%[[S:[^ :]+]]: tensor<2xf32>, %[[A:[^ :]+]]: tensor<2x3xf32>, %[[V:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"(%[[V]]) {dim = 1 : i64}
// CHECK-NEXT: [[M:%.+]] = "aten.mm"(%[[A]], [[U]])
// CHECK-NEXT: [[MV:%.+]] = "aten.squeeze.dims"([[M]]) {dim = array<i64: 1>}
// CHECK-NEXT: [[BS:%.+]] = "aten.mul.Scalar"(%[[S]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[Y:%.+]] = "aten.add.Tensor"([[BS]], [[MV]]) {alpha = 1 : i64}
// CHECK-NEXT: return [[Y]]
func.func @addmv(%s: tensor<2xf32>, %a: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "aten.addmv"(%s, %a, %v) {beta = 5.000000e-01 : f64, alpha = 1 : i64} : (tensor<2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// reshape of a permuted tensor copies (as eager reshape does) before the view.
// CHECK-LABEL: func.func @reshape_permuted
// CHECK-NEXT: [[P:%.+]] = "aten.permute"
// CHECK-NEXT: [[C:%.+]] = "aten.clone"([[P]]) {memory_format = "contiguous_format"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: [[V:%.+]] = "aten.view"([[C]]) {size = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
// CHECK-NEXT: return [[V]]
func.func @reshape_permuted(%x: tensor<3x4xf32>) -> tensor<12xf32> {
  %0 = "aten.permute"(%x) {dims = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "aten.reshape"(%0) {shape = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
  return %1 : tensor<12xf32>
}

// -----

// An mm result is contiguous: a plain view.
// CHECK-LABEL: func.func @reshape_mm
// CHECK-NEXT: [[M:%.+]] = "aten.mm"
// CHECK-NEXT: [[V:%.+]] = "aten.view"([[M]]) {size = array<i64: 12>} : (tensor<3x4xf32>) -> tensor<12xf32>
// CHECK-NEXT: return [[V]]
func.func @reshape_mm(%x: tensor<3x4xf32>, %y: tensor<4x4xf32>) -> tensor<12xf32> {
  %0 = "aten.mm"(%x, %y) : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %1 = "aten.reshape"(%0) {shape = array<i64: 12>} : (tensor<3x4xf32>) -> tensor<12xf32>
  return %1 : tensor<12xf32>
}

// -----

// CHECK-LABEL: func.func @chain_matmul
// CHECK-NEXT: [[AB:%.+]] = "aten.mm"(%{{.+}}, %{{.+}}) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: [[ABC:%.+]] = "aten.mm"([[AB]], %{{.+}}) : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return [[ABC]]
func.func @chain_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = "aten.chain_matmul"(%a, %b, %c) {operandSegmentSizes = array<i32: 3>} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// addbmm over a static batch accumulates one addmm per batch element, in ATen's order.
// CHECK-LABEL: func.func @addbmm_static_batch
// CHECK: %[[A0:.*]] = "aten.select.int"(%arg1) {dim = 0 : i64, index = 0 : i64}
// CHECK: %[[B0:.*]] = "aten.select.int"(%arg2) {dim = 0 : i64, index = 0 : i64}
// CHECK: %[[ACC:.*]] = "aten.addmm"(%arg0, %[[A0]], %[[B0]]) {alpha = 2 : i64, beta = 3 : i64}
// CHECK: "aten.addmm"(%[[ACC]], {{.*}}) {alpha = 2 : i64, beta = 1 : i64}
// CHECK-NOT: aten.bmm
func.func @addbmm_static_batch(%s: tensor<2x4xf32>, %a: tensor<2x2x5xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x4xf32> {
  %0 = "aten.addbmm"(%s, %a, %b) {beta = 3 : i64, alpha = 2 : i64} : (tensor<2x4xf32>, tensor<2x2x5xf32>, tensor<2x5x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s
// RUN: aten-opt %s --split-input-file -p 'aten-decompose{only=aten.cross_entropy_loss,aten.nll_loss,aten.nll_loss2d,aten.multilabel_margin_loss,aten.triplet_margin_loss,aten.binary_cross_entropy_with_logits,aten.dist}' | FileCheck %s --check-prefix=STOP

// STOP checks the bus stops: one rule applied to the op, the ops it builds left as they are.

// CHECK-LABEL: func.func @l1_loss(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<2x3xf32>, %[[Y:[^ :]+]]: tensor<2x3xf32>)
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%[[X]], %[[Y]])
// CHECK-NEXT: [[A:%.+]] = "aten.abs"([[D]])
// CHECK-NEXT: [[M:%.+]] = "aten.mean"([[A]]) : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: return [[M]]
func.func @l1_loss(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<f32> {
  %0 = "aten.l1_loss"(%arg0, %arg1) {reduction = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// mse squares as the kernel does, d * d; reduction 2 is a sum over every dim.
// CHECK-LABEL: func.func @mse_loss(
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"
// CHECK-NEXT: [[S:%.+]] = "aten.mul.Tensor"([[D]], [[D]])
// CHECK-NEXT: [[R:%.+]] = "aten.sum.dim_IntList"([[S]]) {keepdim = false} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: return [[R]]
func.func @mse_loss(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<f32> {
  %0 = "aten.mse_loss"(%arg0, %arg1) {reduction = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @smooth_l1_loss(
// CHECK: [[Z:%.+]] = "aten.abs"
// CHECK-NEXT: [[B:%.+]] = "aten.lt.Scalar"([[Z]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[H:%.+]] = "aten.mul.Scalar"([[Z]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[Q:%.+]] = "aten.mul.Tensor"([[H]], [[Z]])
// CHECK-NEXT: [[IN:%.+]] = "aten.div.Scalar"([[Q]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[OUT:%.+]] = "aten.sub.Scalar"([[Z]]) {alpha = 1 : i64, other = 2.500000e-01 : f64}
// CHECK-NEXT: [[W:%.+]] = "aten.where.self"([[B]], [[IN]], [[OUT]])
// CHECK-NEXT: return [[W]]
func.func @smooth_l1_loss(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.smooth_l1_loss"(%arg0, %arg1) {beta = 5.000000e-01 : f64, reduction = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @huber_loss(
// CHECK: [[Z:%.+]] = "aten.abs"
// CHECK-NEXT: [[B:%.+]] = "aten.lt.Scalar"([[Z]]) {other = 2.000000e+00 : f64}
// CHECK-NEXT: [[H:%.+]] = "aten.mul.Scalar"([[Z]]) {other = 5.000000e-01 : f64}
// CHECK-NEXT: [[IN:%.+]] = "aten.mul.Tensor"([[H]], [[Z]])
// CHECK-NEXT: [[S:%.+]] = "aten.sub.Scalar"([[Z]]) {alpha = 1 : i64, other = 1.000000e+00 : f64}
// CHECK-NEXT: [[OUT:%.+]] = "aten.mul.Scalar"([[S]]) {other = 2.000000e+00 : f64}
// CHECK-NEXT: "aten.where.self"([[B]], [[IN]], [[OUT]])
func.func @huber_loss(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.huber_loss"(%arg0, %arg1) {delta = 2.000000e+00 : f64, reduction = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @soft_margin_loss(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<2x3xf32>, %[[Y:[^ :]+]]: tensor<2x3xf32>)
// CHECK-NEXT: [[N:%.+]] = "aten.neg"(%[[X]])
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"([[N]], %[[Y]])
// CHECK-NEXT: [[E:%.+]] = "aten.exp"([[M]])
// CHECK-NEXT: [[L:%.+]] = "aten.log1p"([[E]])
// CHECK-NEXT: return [[L]]
func.func @soft_margin_loss(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.soft_margin_loss"(%arg0, %arg1) {reduction = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100), then the mean.
// CHECK-LABEL: func.func @binary_cross_entropy(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<2x3xf32>, %[[Y:[^ :]+]]: tensor<2x3xf32>)
// CHECK-NEXT: [[N:%.+]] = "aten.neg"(%[[X]])
// CHECK-NEXT: [[L1:%.+]] = "aten.log1p"([[N]])
// CHECK-NEXT: [[C1:%.+]] = "aten.clamp"([[L1]]) {min = -100 : i64}
// CHECK-NEXT: [[L2:%.+]] = "aten.log"(%[[X]])
// CHECK-NEXT: [[C2:%.+]] = "aten.clamp"([[L2]]) {min = -100 : i64}
// CHECK-NEXT: [[YM1:%.+]] = "aten.sub.Scalar"(%[[Y]]) {alpha = 1 : i64, other = 1 : i64}
// CHECK-NEXT: [[A:%.+]] = "aten.mul.Tensor"([[YM1]], [[C1]])
// CHECK-NEXT: [[B:%.+]] = "aten.mul.Tensor"(%[[Y]], [[C2]])
// CHECK-NEXT: [[S:%.+]] = "aten.sub.Tensor"([[A]], [[B]])
// CHECK-NEXT: "aten.mean"([[S]])
// CHECK-NOT: aten.binary_cross_entropy
func.func @binary_cross_entropy(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<f32> {
  %0 = "aten.binary_cross_entropy"(%arg0, %arg1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>, reduction = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Stops at log_sigmoid, which decomposes in turn unless kept.
// CHECK-LABEL: func.func @bce_with_logits(
// CHECK-NOT: aten.log_sigmoid
// CHECK: "aten.log1p"
// CHECK: [[LS:%.+]] = "aten.sub.Tensor"
// CHECK: [[NY:%.+]] = "aten.neg"(%arg1)
// CHECK-NEXT: [[OMY:%.+]] = "aten.add.Scalar"([[NY]]) {alpha = 1 : i64, other = 1 : i64}
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Tensor"([[OMY]], %arg0)
// CHECK-NEXT: "aten.sub.Tensor"([[P]], [[LS]])
// STOP-LABEL: func.func @bce_with_logits(
// STOP-NEXT: [[LS:%.+]] = "aten.log_sigmoid"(%arg0)
// STOP: "aten.sub.Tensor"(%{{.+}}, [[LS]])
func.func @bce_with_logits(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.binary_cross_entropy_with_logits"(%arg0, %arg1) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, reduction = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @margin_ranking_loss(
// CHECK-SAME: %[[A:[^ :]+]]: tensor<3xf32>, %[[B:[^ :]+]]: tensor<3xf32>, %[[Y:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%[[A]], %[[B]])
// CHECK-NEXT: [[N:%.+]] = "aten.neg"(%[[Y]])
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"([[N]], [[D]])
// CHECK-NEXT: [[P:%.+]] = "aten.add.Scalar"([[M]]) {alpha = 1 : i64, other = 5.000000e-01 : f64}
// CHECK-NEXT: [[C:%.+]] = "aten.clamp"([[P]]) {min = 0 : i64}
// CHECK-NEXT: return [[C]]
func.func @margin_ranking_loss(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.margin_ranking_loss"(%arg0, %arg1, %arg2) {margin = 5.000000e-01 : f64, reduction = 0 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @hinge_embedding_loss(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<3xf32>, %[[Y:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[Z:%.+]] = "aten.full_like"(%[[X]]) {fill_value = 0 : i64}
// CHECK-NEXT: [[N:%.+]] = "aten.neg"(%[[X]])
// CHECK-NEXT: [[M:%.+]] = "aten.add.Scalar"([[N]]) {alpha = 1 : i64, other = 1.000000e+00 : f64}
// CHECK-NEXT: [[C:%.+]] = "aten.clamp"([[M]]) {min = 0 : i64}
// CHECK-NEXT: [[NE1:%.+]] = "aten.ne.Scalar"(%[[Y]]) {other = 1 : i64}
// CHECK-NEXT: [[W1:%.+]] = "aten.where.self"([[NE1]], [[C]], [[Z]])
// CHECK-NEXT: [[NE2:%.+]] = "aten.ne.Scalar"(%[[Y]]) {other = -1 : i64}
// CHECK-NEXT: [[W2:%.+]] = "aten.where.self"([[NE2]], %[[X]], [[Z]])
// CHECK-NEXT: "aten.add.Tensor"([[W1]], [[W2]])
func.func @hinge_embedding_loss(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.hinge_embedding_loss"(%arg0, %arg1) {margin = 1.000000e+00 : f64, reduction = 0 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @poisson_nll_loss(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<3xf32>, %[[Y:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[E:%.+]] = "aten.exp"(%[[X]])
// CHECK-NEXT: [[M:%.+]] = "aten.mul.Tensor"(%[[Y]], %[[X]])
// CHECK-NEXT: [[S:%.+]] = "aten.sub.Tensor"([[E]], [[M]])
// CHECK-NEXT: return [[S]]
func.func @poisson_nll_loss(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.poisson_nll_loss"(%arg0, %arg1) {eps = 1.000000e-08 : f64, full = false, log_input = true, reduction = 0 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// xlogy(y, y) - y * x, with 0 where y == 0; then the sum.
// CHECK-LABEL: func.func @kl_div(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<3xf32>, %[[Y:[^ :]+]]: tensor<3xf32>)
// CHECK-NEXT: [[L:%.+]] = "aten.log"(%[[Y]])
// CHECK-NEXT: [[YL:%.+]] = "aten.mul.Tensor"(%[[Y]], [[L]])
// CHECK-NEXT: [[Z:%.+]] = "aten.eq.Scalar"(%[[Y]]) {other = 0 : i64}
// CHECK-NEXT: [[ZS:%.+]] = "aten.full_like"([[YL]])
// CHECK-NEXT: [[X0:%.+]] = "aten.where.self"([[Z]], [[ZS]], [[YL]])
// CHECK-NEXT: [[YX:%.+]] = "aten.mul.Tensor"(%[[Y]], %[[X]])
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"([[X0]], [[YX]])
// CHECK-NEXT: "aten.sum.dim_IntList"([[D]]) {keepdim = false}
func.func @kl_div(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<f32> {
  %0 = "aten.kl_div"(%arg0, %arg1) {log_target = false, reduction = 2 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Down to gather: log-probabilities of the targets, the ignored ones masked, mean over the kept.
// CHECK-LABEL: func.func @cross_entropy_loss(
// CHECK-SAME: %[[X:[^ :]+]]: tensor<4x5xf32>, %[[T:[^ :]+]]: tensor<4xi64>)
// CHECK-NEXT: [[LP:%.+]] = "aten._log_softmax"(%[[X]]) {dim = 1 : i64, half_to_float = false}
// CHECK-NEXT: [[K:%.+]] = "aten.ne.Scalar"(%[[T]]) {other = -100 : i64}
// CHECK: [[I:%.+]] = "aten.where.self"([[K]], %[[T]], %{{.+}})
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"([[I]]) {dim = 1 : i64}
// CHECK-NEXT: [[G:%.+]] = "aten.gather"([[LP]], [[U]]) {dim = 1 : i64, sparse_grad = false}
// CHECK: [[TW:%.+]] = "aten.sum.dim_IntList"([[K]]) {dtype = f32, keepdim = false}
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"
// CHECK-NEXT: [[M:%.+]] = "aten.div.Tensor"([[S]], [[TW]])
// CHECK-NEXT: return [[M]]
// STOP-LABEL: func.func @cross_entropy_loss(
// STOP-NEXT: [[LP:%.+]] = "aten._log_softmax"
// STOP-NEXT: [[N:%.+]] = "aten.nll_loss_nd"([[LP]], %arg1) {ignore_index = -100 : i64, {{.*}}reduction = 1 : i64}
// STOP-NEXT: return [[N]]
func.func @cross_entropy_loss(%arg0: tensor<4x5xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
  %0 = "aten.cross_entropy_loss"(%arg0, %arg1) {ignore_index = -100 : i64, label_smoothing = 0.000000e+00 : f64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, reduction = 1 : i64} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Class probabilities (the target shaped as the input): -sum(logp * target) over the classes.
// CHECK-LABEL: func.func @cross_entropy_loss_probs(
// CHECK-NEXT: [[LP:%.+]] = "aten._log_softmax"(%arg0) {dim = 1 : i64
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Tensor"([[LP]], %arg1)
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[P]]) {dim = array<i64: 1>, keepdim = false}
// CHECK-NEXT: [[N:%.+]] = "aten.neg"([[S]])
// CHECK-NEXT: return [[N]]
func.func @cross_entropy_loss_probs(%arg0: tensor<4x5xf32>, %arg1: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = "aten.cross_entropy_loss"(%arg0, %arg1) {ignore_index = -100 : i64, label_smoothing = 0.000000e+00 : f64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, reduction = 0 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 3-D input: viewed as [N, C, 1, rest] for nll_loss2d and back.
// CHECK-LABEL: func.func @nll_loss_nd(
// CHECK-NEXT: [[X:%.+]] = "aten.view"(%arg0) {size = array<i64: 2, 5, 1, 3>}
// CHECK-NEXT: [[T:%.+]] = "aten.view"(%arg1) {size = array<i64: 2, 1, 3>}
// CHECK: "aten.gather"([[X]], %{{.+}}) {dim = 1 : i64
// CHECK: [[L:%.+]] = "aten.where.self"
// CHECK: [[R:%.+]] = "aten.view"([[L]]) {size = array<i64: 2, 3>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return [[R]]
// CHECK-NOT: aten.nll_loss
func.func @nll_loss_nd(%arg0: tensor<2x5x3xf32>, %arg1: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "aten.nll_loss_nd"(%arg0, %arg1) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, reduction = 0 : i64} : (tensor<2x5x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @nll_loss(
// CHECK-NOT: aten.nll_loss
// CHECK: "aten.gather"
// CHECK: "aten.div.Tensor"
// STOP-LABEL: func.func @nll_loss(
// STOP-NEXT: [[F:%.+]]:2 = "aten.nll_loss_forward"(%arg0, %arg1) {ignore_index = -100 : i64, {{.*}}reduction = 1 : i64}
// STOP-NEXT: return [[F]]#0
func.func @nll_loss(%arg0: tensor<4x5xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
  %0 = "aten.nll_loss"(%arg0, %arg1) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, reduction = 1 : i64} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @nll_loss2d(
// CHECK-NOT: aten.nll_loss
// CHECK: "aten.gather"
// STOP-LABEL: func.func @nll_loss2d(
// STOP-NEXT: [[F:%.+]]:2 = "aten.nll_loss2d_forward"(%arg0, %arg1)
// STOP-NEXT: return [[F]]#0
func.func @nll_loss2d(%arg0: tensor<2x5x3x3xf32>, %arg1: tensor<2x3x3xi64>) -> tensor<f32> {
  %0 = "aten.nll_loss2d"(%arg0, %arg1) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, reduction = 1 : i64} : (tensor<2x5x3x3xf32>, tensor<2x3x3xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The total weight (second result) is the count of the targets kept.
// CHECK-LABEL: func.func @nll_loss_forward(
// CHECK-NEXT: [[K:%.+]] = "aten.ne.Scalar"(%arg1) {other = -100 : i64}
// CHECK-NEXT: [[Z:%.+]] = "aten.full_like"(%arg1) {fill_value = 0 : i64}
// CHECK-NEXT: [[I:%.+]] = "aten.where.self"([[K]], %arg1, [[Z]])
// CHECK-NEXT: [[U:%.+]] = "aten.unsqueeze"([[I]]) {dim = 1 : i64}
// CHECK-NEXT: [[G:%.+]] = "aten.gather"(%arg0, [[U]]) {dim = 1 : i64, sparse_grad = false} : (tensor<4x5xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
// CHECK-NEXT: [[SQ:%.+]] = "aten.squeeze.dims"([[G]]) {dim = array<i64: 1>}
// CHECK-NEXT: [[N:%.+]] = "aten.neg"([[SQ]])
// CHECK-NEXT: [[ZL:%.+]] = "aten.full_like"([[N]])
// CHECK-NEXT: [[L:%.+]] = "aten.where.self"([[K]], [[N]], [[ZL]])
// CHECK-NEXT: [[TW:%.+]] = "aten.sum.dim_IntList"([[K]]) {dtype = f32, keepdim = false}
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"([[L]]) {keepdim = false}
// CHECK-NEXT: [[M:%.+]] = "aten.div.Tensor"([[S]], [[TW]])
// CHECK-NEXT: return [[M]], [[TW]]
func.func @nll_loss_forward(%arg0: tensor<4x5xf32>, %arg1: tensor<4xi64>) -> (tensor<f32>, tensor<f32>) {
  %0:2 = "aten.nll_loss_forward"(%arg0, %arg1) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, reduction = 1 : i64} : (tensor<4x5xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<f32>)
  return %0#0, %0#1 : tensor<f32>, tensor<f32>
}

// -----

// Reduction 2: the sum, no division.
// CHECK-LABEL: func.func @nll_loss2d_forward(
// CHECK: "aten.gather"(%arg0, %{{.+}}) {dim = 1 : i64, sparse_grad = false} : (tensor<2x5x3x3xf32>, tensor<2x1x3x3xi64>) -> tensor<2x1x3x3xf32>
// CHECK: [[TW:%.+]] = "aten.sum.dim_IntList"(%{{.+}}) {dtype = f32, keepdim = false}
// CHECK-NEXT: [[S:%.+]] = "aten.sum.dim_IntList"
// CHECK-NEXT: return [[S]], [[TW]]
func.func @nll_loss2d_forward(%arg0: tensor<2x5x3x3xf32>, %arg1: tensor<2x3x3xi64>) -> (tensor<f32>, tensor<f32>) {
  %0:2 = "aten.nll_loss2d_forward"(%arg0, %arg1) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, reduction = 2 : i64} : (tensor<2x5x3x3xf32>, tensor<2x3x3xi64>) -> (tensor<f32>, tensor<f32>)
  return %0#0, %0#1 : tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @multilabel_margin_loss(
// CHECK-NOT: aten.multilabel_margin_loss
// CHECK: "aten.mean"
// STOP-LABEL: func.func @multilabel_margin_loss(
// STOP-NEXT: [[F:%.+]]:2 = "aten.multilabel_margin_loss_forward"(%arg0, %arg1) {reduction = 1 : i64}
// STOP-NEXT: return [[F]]#0
func.func @multilabel_margin_loss(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xi64>) -> tensor<f32> {
  %0 = "aten.multilabel_margin_loss"(%arg0, %arg1) {reduction = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The targets of a row end at its first negative entry (a cumsum of the negatives stays 0);
// z[n, j, d] = (1 - x[target_j]) + x[d] over the targets j and the non-targets d, where > 0.
// CHECK-LABEL: func.func @multilabel_margin_loss_forward(
// CHECK-NEXT: [[NEG:%.+]] = "aten.lt.Scalar"(%arg1) {other = 0 : i64}
// CHECK-NEXT: [[CS:%.+]] = "aten.cumsum"([[NEG]]) {dim = 1 : i64}
// CHECK-NEXT: [[V:%.+]] = "aten.eq.Scalar"([[CS]]) {other = 0 : i64}
// CHECK: [[CNT:%.+]] = "aten.scatter_add"
// CHECK-NEXT: [[IT:%.+]] = "aten.gt.Scalar"([[CNT]]) {other = 0 : i64}
// CHECK-NEXT: [[P:%.+]] = "aten.gather"(%arg0
// CHECK: [[Z:%.+]] = "aten.add.Tensor"(%{{.+}}, %{{.+}}) {alpha = 1 : i64} : (tensor<2x4x1xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK: [[SUM:%.+]] = "aten.sum.dim_IntList"(%{{.+}}) {dim = array<i64: 1, 2>, keepdim = false}
// CHECK-NEXT: [[L:%.+]] = "aten.div.Scalar"([[SUM]]) {other = 4 : i64}
// CHECK-NEXT: [[ITF:%.+]] = "aten._to_copy"([[IT]]) {dtype = f32
// CHECK-NEXT: return [[L]], [[ITF]]
func.func @multilabel_margin_loss_forward(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xi64>) -> (tensor<2xf32>, tensor<2x4xf32>) {
  %0:2 = "aten.multilabel_margin_loss_forward"(%arg0, %arg1) {reduction = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xi64>) -> (tensor<2xf32>, tensor<2x4xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @cdist(
// CHECK-NEXT: [[D:%.+]] = "aten._cdist_forward"(%arg0, %arg1) {p = 2.000000e+00 : f64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return [[D]]
func.func @cdist(%arg0: tensor<3x2xf32>, %arg1: tensor<4x2xf32>) -> tensor<3x4xf32> {
  %0 = "aten.cdist"(%arg0, %arg1) {p = 2.000000e+00 : f64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @pdist(
// CHECK-NEXT: [[D:%.+]] = "aten._pdist_forward"(%arg0) {p = 2.000000e+00 : f64} : (tensor<3x2xf32>) -> tensor<3xf32>
// CHECK-NEXT: return [[D]]
func.func @pdist(%arg0: tensor<3x2xf32>) -> tensor<3xf32> {
  %0 = "aten.pdist"(%arg0) {p = 2.000000e+00 : f64} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @dist(
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%arg0, %arg1)
// CHECK-NEXT: [[A:%.+]] = "aten.abs"([[D]])
// CHECK-NEXT: "aten.pow.Tensor_Scalar"([[A]]) {exponent = 3 : i64}
// STOP-LABEL: func.func @dist(
// STOP-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%arg0, %arg1)
// STOP-NEXT: [[N:%.+]] = "aten.linalg_vector_norm"([[D]]) {keepdim = false, ord = 3 : i64} : (tensor<3x2xf32>) -> tensor<f32>
// STOP-NEXT: return [[N]]
func.func @dist(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>) -> tensor<f32> {
  %0 = "aten.dist"(%arg0, %arg1) {p = 3 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @pairwise_distance(
// CHECK-NEXT: [[D:%.+]] = "aten.sub.Tensor"(%arg0, %arg1)
// CHECK-NEXT: [[E:%.+]] = "aten.add.Scalar"([[D]]) {alpha = 1 : i64, other = 9.9999999999999995E-7 : f64}
// CHECK-NEXT: [[S:%.+]] = "aten.mul.Tensor"([[E]], [[E]])
// CHECK-NEXT: [[R:%.+]] = "aten.sum.dim_IntList"([[S]]) {dim = array<i64: 1>, keepdim = false}
// CHECK-NEXT: "aten.sqrt"([[R]])
func.func @pairwise_distance(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>) -> tensor<3xf32> {
  %0 = "aten.pairwise_distance"(%arg0, %arg1) {eps = 9.9999999999999995E-7 : f64, keepdim = false, p = 2.000000e+00 : f64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The broadcast operand is expanded first (its norm is over the broadcast shape).
// CHECK-LABEL: func.func @cosine_similarity(
// CHECK-NEXT: [[X2:%.+]] = "aten.expand"(%arg1) {implicit = false, size = array<i64: 3, 2>} : (tensor<1x2xf32>) -> tensor<3x2xf32>
// CHECK: [[N1:%.+]] = "aten.clamp"(%{{.+}}) {min = 1.000000e-08 : f64}
// CHECK-NEXT: [[U1:%.+]] = "aten.div.Tensor"(%arg0, [[N1]])
// CHECK: [[N2:%.+]] = "aten.clamp"(%{{.+}}) {min = 1.000000e-08 : f64}
// CHECK-NEXT: [[U2:%.+]] = "aten.div.Tensor"([[X2]], [[N2]])
// CHECK-NEXT: [[P:%.+]] = "aten.mul.Tensor"([[U1]], [[U2]])
// CHECK-NEXT: "aten.sum.dim_IntList"([[P]]) {dim = array<i64: 1>, keepdim = false}
func.func @cosine_similarity(%arg0: tensor<3x2xf32>, %arg1: tensor<1x2xf32>) -> tensor<3xf32> {
  %0 = "aten.cosine_similarity"(%arg0, %arg1) {dim = 1 : i64, eps = 1.000000e-08 : f64} : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @cosine_embedding_loss(
// CHECK: "aten.add.Scalar"(%{{.+}}) {alpha = 1 : i64, other = 9.999999960041972E-13 : f64}
// CHECK: [[DEN:%.+]] = "aten.sqrt"
// CHECK: [[COS:%.+]] = "aten.div.Tensor"(%{{.+}}, [[DEN]])
// CHECK: "aten.eq.Scalar"(%arg2) {other = 1 : i64}
// CHECK: "aten.eq.Scalar"(%arg2) {other = -1 : i64}
// CHECK: "aten.add.Tensor"(%{{.+}}, %{{.+}})
func.func @cosine_embedding_loss(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.cosine_embedding_loss"(%arg0, %arg1, %arg2) {margin = 0.000000e+00 : f64, reduction = 0 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @triplet_margin_loss(
// CHECK-NOT: aten.pairwise_distance
// CHECK: "aten.clamp"(%{{.+}}) {min = 0 : i64}
// CHECK-NEXT: "aten.mean"
// STOP-LABEL: func.func @triplet_margin_loss(
// STOP-NEXT: [[P:%.+]] = "aten.pairwise_distance"(%arg0, %arg1) {eps = 9.9999999999999995E-7 : f64, keepdim = false, p = 2.000000e+00 : f64}
// STOP-NEXT: [[N:%.+]] = "aten.pairwise_distance"(%arg0, %arg2)
// STOP-NEXT: [[A:%.+]] = "aten.add.Scalar"([[P]]) {alpha = 1 : i64, other = 1.000000e+00 : f64}
// STOP-NEXT: [[S:%.+]] = "aten.sub.Tensor"([[A]], [[N]])
// STOP-NEXT: [[C:%.+]] = "aten.clamp"([[S]]) {min = 0 : i64}
// STOP-NEXT: "aten.mean"([[C]])
func.func @triplet_margin_loss(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<3x2xf32>) -> tensor<f32> {
  %0 = "aten.triplet_margin_loss"(%arg0, %arg1, %arg2) {eps = 9.9999999999999995E-7 : f64, margin = 1.000000e+00 : f64, p = 2.000000e+00 : f64, reduction = 1 : i64, swap = false} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

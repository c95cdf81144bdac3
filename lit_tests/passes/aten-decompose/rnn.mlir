// RUN: aten-opt %s --split-input-file -p 'aten-decompose{only=aten.rnn_tanh.input,aten.gru.input}' | FileCheck %s

// The input projection of all steps is one linear; each step adds the hidden product and
// applies tanh; the outputs and the final state are stacked.
// CHECK-LABEL: func.func @rnn_tanh
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x3x4xf32>, %[[H:[^ :]+]]: tensor<1x3x5xf32>, %[[WI:[^ :]+]]: tensor<5x4xf32>, %[[WH:[^ :]+]]: tensor<5x5xf32>)
// CHECK-NEXT: [[H0:%.+]] = "aten.select.int"(%[[H]]) {dim = 0 : i64, index = 0 : i64}
// CHECK-NEXT: [[P:%.+]] = "aten.linear"(%[[X]], %[[WI]])
// CHECK-NEXT: [[X0:%.+]] = "aten.select.int"([[P]]) {dim = 0 : i64, index = 0 : i64}
// CHECK-NEXT: [[G0:%.+]] = "aten.linear"([[H0]], %[[WH]])
// CHECK-NEXT: [[S0:%.+]] = "aten.add.Tensor"([[G0]], [[X0]])
// CHECK-NEXT: [[H1:%.+]] = "aten.tanh"([[S0]])
// CHECK-NEXT: [[X1:%.+]] = "aten.select.int"([[P]]) {dim = 0 : i64, index = 1 : i64}
// CHECK-NEXT: [[G1:%.+]] = "aten.linear"([[H1]], %[[WH]])
// CHECK-NEXT: [[S1:%.+]] = "aten.add.Tensor"([[G1]], [[X1]])
// CHECK-NEXT: [[H2:%.+]] = "aten.tanh"([[S1]])
// CHECK-NEXT: [[OUT:%.+]] = "aten.stack"([[H1]], [[H2]]) {dim = 0 : i64
// CHECK-NEXT: [[HN:%.+]] = "aten.stack"([[H2]]) {dim = 0 : i64
// CHECK-NEXT: return [[OUT]], [[HN]]
func.func @rnn_tanh(%x: tensor<2x3x4xf32>, %h: tensor<1x3x5xf32>, %wi: tensor<5x4xf32>, %wh: tensor<5x5xf32>) -> (tensor<2x3x5xf32>, tensor<1x3x5xf32>) {
  %0:2 = "aten.rnn_tanh.input"(%x, %h, %wi, %wh) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0, 0, 0, 0, 0>} : (tensor<2x3x4xf32>, tensor<1x3x5xf32>, tensor<5x4xf32>, tensor<5x5xf32>) -> (tensor<2x3x5xf32>, tensor<1x3x5xf32>)
  return %0#0, %0#1 : tensor<2x3x5xf32>, tensor<1x3x5xf32>
}

// -----

// A dynamic sequence length is left whole (convert-aten-to-linalg loops over it).
// CHECK-LABEL: func.func @gru_dynamic
// CHECK: "aten.gru.input"
func.func @gru_dynamic(%x: tensor<?x3x4xf32>, %h: tensor<1x3x5xf32>, %wi: tensor<15x4xf32>, %wh: tensor<15x5xf32>) -> (tensor<?x3x5xf32>, tensor<1x3x5xf32>) {
  %0:2 = "aten.gru.input"(%x, %h, %wi, %wh) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0, 0, 0, 0, 0>} : (tensor<?x3x4xf32>, tensor<1x3x5xf32>, tensor<15x4xf32>, tensor<15x5xf32>) -> (tensor<?x3x5xf32>, tensor<1x3x5xf32>)
  return %0#0, %0#1 : tensor<?x3x5xf32>, tensor<1x3x5xf32>
}

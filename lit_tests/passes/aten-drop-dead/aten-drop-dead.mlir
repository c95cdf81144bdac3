// RUN: aten-opt %s --split-input-file -p aten-drop-dead | FileCheck %s
// RUN: aten-opt %s --split-input-file -p 'aten-drop-dead{keep-random=false}' | FileCheck %s --check-prefix=RANDOM

// A chain of unused ops goes in one run; used ops stay.
// CHECK-LABEL: func.func @dead_chain
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<2xf32>)
// CHECK-NEXT: [[R:%.+]] = "aten.relu"(%[[A]])
// CHECK-NEXT: return [[R]]
func.func @dead_chain(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "aten.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "aten.mul.Tensor"(%1, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = "aten.neg"(%2) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// An op with several results stays while any result is used.
// CHECK-LABEL: func.func @partly_used
// CHECK-NEXT: [[M:%.+]]:2 = "aten.max.dim"
// CHECK-NEXT: return [[M]]#1
func.func @partly_used(%a: tensor<2x3xf32>) -> tensor<2xi64> {
  %0:2 = "aten.max.dim"(%a) {dim = 1 : i64, keepdim = false} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %1:2 = "aten.max.dim"(%a) {dim = 0 : i64, keepdim = false} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %0#1 : tensor<2xi64>
}

// -----

// Side effects stay: an overload that mutates an argument, an op without results, an op the
// dialect does not know, and (unless keep-random=false) random ops, which advance the RNG.
// CHECK-LABEL: func.func @side_effects
// CHECK-NEXT: "aten.add_.Tensor"
// CHECK-NEXT: "aten._assert_async.msg"
// CHECK-NEXT: "aten.frobnicate"
// CHECK-NEXT: "aten.rand_like"
// CHECK-NEXT: return
// RANDOM-LABEL: func.func @side_effects
// RANDOM-NEXT: "aten.add_.Tensor"
// RANDOM-NEXT: "aten._assert_async.msg"
// RANDOM-NEXT: "aten.frobnicate"
// RANDOM-NEXT: return
func.func @side_effects(%a: tensor<2xf32>, %b: tensor<i1>) {
  %0 = "aten.add_.Tensor"(%a, %a) {alpha = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "aten._assert_async.msg"(%b) {assert_msg = "b"} : (tensor<i1>) -> ()
  %1 = "aten.frobnicate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "aten.rand_like"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Uses inside nested regions count; upstream ops are left to upstream passes.
// CHECK-LABEL: func.func @nested_use
// CHECK-NEXT: [[N:%.+]] = "aten.neg"
// CHECK-NEXT: arith.constant
// CHECK-NEXT: scf.if
// CHECK-NEXT: "test.use"([[N]])
// CHECK-NOT: aten.exp
func.func @nested_use(%a: tensor<2xf32>, %c: i1) {
  %0 = "aten.neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "aten.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %unused = arith.constant 0 : index
  scf.if %c {
    "test.use"(%0) : (tensor<2xf32>) -> ()
    %2 = "aten.exp"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  }
  return
}

// Aten passes and upstream passes mix in one pipeline, with or without the module wrapper,
// nested in func.func(...), or as one flag per pass.
// RUN: aten-opt %s -p 'builtin.module(aten-verify,canonicalize,func.func(cse,aten-drop-dead))' | FileCheck %s
// RUN: aten-opt %s -p 'aten-verify,canonicalize,func.func(cse,aten-drop-dead)' | FileCheck %s
// RUN: aten-opt %s --aten-verify --canonicalize --cse --aten-drop-dead | FileCheck %s
// RUN: aten-opt %s --aten-drop-dead='keep-random=false' | FileCheck %s --check-prefix=NORANDOM
// RUN: aten-opt - -o %t -p 'func.func(aten-drop-dead)' < %s && FileCheck %s --input-file=%t --check-prefix=NESTED
// And our output is valid input to upstream mlir-opt.
// RUN: aten-opt %s -p aten-drop-dead | mlir-opt --allow-unregistered-dialect -p 'builtin.module(cse)' | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%[[A:[^ :]+]]: tensor<2xf32>)
// CHECK-NEXT: [[R:%.+]] = "aten.relu"(%[[A]])
// CHECK-NEXT: "aten.rand_like"
// CHECK-NEXT: return [[R]]
// NESTED-LABEL: func.func @mixed
// NESTED-NEXT: arith.constant
// NESTED-NEXT: "aten.relu"
// NESTED-NEXT: "aten.rand_like"
// NESTED-NEXT: return
// NORANDOM-LABEL: func.func @mixed
// NORANDOM-NOT: aten.rand_like
// UPSTREAM-LABEL: func.func @mixed
// UPSTREAM: "aten.relu"
func.func @mixed(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant 1 : index
  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "aten.exp"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "aten.rand_like"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

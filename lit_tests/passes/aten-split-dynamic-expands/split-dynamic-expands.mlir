// RUN: aten-opt %s -p aten-split-dynamic-expands --split-input-file | FileCheck %s

// A view that is the identity (a bmm's result viewed as its own sizes): nothing left.
// CHECK-LABEL: func.func @identity
// CHECK-NOT: expand_shape
// CHECK-NOT: collapse_shape
// CHECK: return %arg0
func.func @identity(%x: tensor<2x?x?xf32>, %n: index) -> tensor<2x?x?xf32> {
  %c = tensor.collapse_shape %x [[0, 1, 2]] : tensor<2x?x?xf32> into tensor<?xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d1 = tensor.dim %x, %c1 : tensor<2x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<2x?x?xf32>
  %e = tensor.expand_shape %c [[0, 1, 2]] output_shape [2, %d1, %d2] : tensor<?xf32> into tensor<2x?x?xf32>
  return %e : tensor<2x?x?xf32>
}

// -----

// Folded batch dims (%m = %b * 3) unfolded: regrouped, one dynamic size per group.
// CHECK-LABEL: func.func @unfold_batch
// CHECK: %[[Y:.+]] = linalg.copy
// CHECK-NOT: collapse_shape
// CHECK: tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2], [3]] output_shape [%arg1, 3, %arg2, %arg3]
func.func @unfold_batch(%x: tensor<?x?x?xf32>, %b: index, %s: index, %t: index) -> tensor<?x3x?x?xf32> {
  %c3 = arith.constant 3 : index
  %m = arith.muli %b, %c3 : index
  %e0 = tensor.empty(%m, %s, %t) : tensor<?x?x?xf32>
  %y = linalg.copy ins(%x : tensor<?x?x?xf32>) outs(%e0 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %c = tensor.collapse_shape %y [[0, 1, 2]] : tensor<?x?x?xf32> into tensor<?xf32>
  %e = tensor.expand_shape %c [[0, 1, 2, 3]] output_shape [%b, 3, %s, %t] : tensor<?xf32> into tensor<?x3x?x?xf32>
  return %e : tensor<?x3x?x?xf32>
}

// -----

// Sizes that cannot be matched: a gather at the row-major index.
// CHECK-LABEL: func.func @gather
// CHECK: %[[E:.+]] = tensor.empty(%arg1, %arg2) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
// CHECK: %[[I:.+]] = linalg.index 0
// CHECK: %[[J:.+]] = linalg.index 1
// CHECK: %[[R:.+]] = arith.muli %[[I]], %arg2
// CHECK: %[[F:.+]] = arith.addi %[[R]], %[[J]]
// CHECK: tensor.extract %arg0[%[[F]]]
// CHECK-NOT: expand_shape
func.func @gather(%x: tensor<?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b] : tensor<?xf32> into tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// The rows of a linear layer's fresh result (computed into a tensor.empty) unfolded into
// batch and sequence: left as the expand, which `aten-expands-as-casts` makes a cast of the
// same buffer (a gather would copy it, and fused into the next product make that operand a
// computed load).
// CHECK-LABEL: func.func @fresh_rows
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2]] output_shape [%arg2, %arg3, 8]
func.func @fresh_rows(%x: tensor<?x8xf32>, %n: index, %b: index, %s: index) -> tensor<?x?x8xf32> {
  %e0 = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.copy ins(%x : tensor<?x8xf32>) outs(%e0 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  return %e : tensor<?x?x8xf32>
}

// -----

// A fresh result that is also inserted into another tensor (eliminate-empty-tensors may make
// its buffer a subview of that one, not a contiguous allocation): the gather.
// CHECK-LABEL: func.func @inserted_rows
// CHECK: linalg.generic
// CHECK-NOT: tensor.expand_shape
func.func @inserted_rows(%x: tensor<?x8xf32>, %d: tensor<?x16xf32>, %n: index, %b: index, %s: index) -> (tensor<?x?x8xf32>, tensor<?x16xf32>) {
  %e0 = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.copy ins(%x : tensor<?x8xf32>) outs(%e0 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %i = tensor.insert_slice %y into %d[0, 0] [%n, 8] [1, 1] : tensor<?x8xf32> into tensor<?x16xf32>
  %e = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  return %e, %i : tensor<?x?x8xf32>, tensor<?x16xf32>
}

// -----

// Attention heads of a fused q/k/v projection: the slice [s, b, 768] viewed as [s, b * 12, 64]
// (torch's MultiheadAttention); the slice's sizes are its size operands, so the view regroups
// ([s], [b, 768] -> [b * 12, 64]) instead of gathering.
// CHECK-LABEL: func.func @heads
// CHECK-NOT: linalg.generic
// CHECK: %[[S:.+]] = tensor.extract_slice
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[S]] {{\[}}[0], [1, 2]]
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [%arg1, %{{.+}}, 64]
func.func @heads(%qkv: tensor<3x?x?x768xf32>, %s: index, %b: index) -> tensor<?x?x64xf32> {
  %c12 = arith.constant 12 : index
  %bh = arith.muli %b, %c12 : index
  %q = tensor.extract_slice %qkv[0, 0, 0, 0] [1, %s, %b, 768] [1, 1, 1, 1] : tensor<3x?x?x768xf32> to tensor<?x?x768xf32>
  %flat = tensor.collapse_shape %q [[0, 1, 2]] : tensor<?x?x768xf32> into tensor<?xf32>
  %e = tensor.expand_shape %flat [[0, 1, 2]] output_shape [%s, %bh, 64] : tensor<?xf32> into tensor<?x?x64xf32>
  return %e : tensor<?x?x64xf32>
}

// -----

// q and k share export's batch symbol (`aten.sizes`, checked equal at every call): one size
// for both, so k's folded batch unfolds by q's batch size as a regroup, not a gather.
// CHECK-LABEL: func.func @one_batch_symbol
// CHECK: %[[B:.+]] = tensor.dim %arg0, %{{.+}}
// CHECK-NOT: tensor.dim %arg1
// CHECK-NOT: linalg.generic
// CHECK: arith.muli %[[B]]
// CHECK: tensor.collapse_shape %arg1 {{\[}}[0, 1], [2], [3]]
func.func @one_batch_symbol(%q: tensor<?x3x?x4xf32> {aten.sizes = ["s0", "3", "s1", "4"]},
                            %k: tensor<?x3x?x4xf32> {aten.sizes = ["s0", "3", "s1", "4"]})
    -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b = tensor.dim %q, %c0 : tensor<?x3x?x4xf32>
  %bk = tensor.dim %k, %c0 : tensor<?x3x?x4xf32>
  %s = tensor.dim %q, %c2 : tensor<?x3x?x4xf32>
  %m = arith.maxsi %b, %bk : index
  %bh = arith.muli %m, %c3 : index
  %c = tensor.collapse_shape %k [[0, 1, 2, 3]] : tensor<?x3x?x4xf32> into tensor<?xf32>
  %e = tensor.expand_shape %c [[0, 1, 2]] output_shape [%bh, %s, 4] : tensor<?xf32> into tensor<?x?x4xf32>
  return %e : tensor<?x?x4xf32>
}

// -----

// Two symbols (nothing says the batches agree), and a derived size (`2*s0`: its text proves
// nothing the guards check): k is gathered, as before.
// CHECK-LABEL: func.func @two_batch_symbols
// CHECK: tensor.dim %arg1
// CHECK: linalg.generic
// CHECK: tensor.extract
func.func @two_batch_symbols(%q: tensor<?x3x?x4xf32> {aten.sizes = ["2*s0", "3", "s1", "4"]},
                             %k: tensor<?x3x?x4xf32> {aten.sizes = ["2*s0", "3", "s1", "4"]})
    -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b = tensor.dim %q, %c0 : tensor<?x3x?x4xf32>
  %bk = tensor.dim %k, %c0 : tensor<?x3x?x4xf32>
  %s = tensor.dim %q, %c2 : tensor<?x3x?x4xf32>
  %m = arith.maxsi %b, %bk : index
  %bh = arith.muli %m, %c3 : index
  %c = tensor.collapse_shape %k [[0, 1, 2, 3]] : tensor<?x3x?x4xf32> into tensor<?xf32>
  %e = tensor.expand_shape %c [[0, 1, 2]] output_shape [%bh, %s, 4] : tensor<?xf32> into tensor<?x?x4xf32>
  return %e : tensor<?x?x4xf32>
}

// -----

// An insert_slice's sizes are its destination's (GPT-2's v is copied into a fresh tensor
// before its heads are folded; here into a part of it): regrouped, not gathered.
// CHECK-LABEL: func.func @inserted
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]]
func.func @inserted(%x: tensor<?x4x?x16xf32>, %b: index, %s: index, %t: index) -> tensor<?x?x16xf32> {
  %c4 = arith.constant 4 : index
  %bh = arith.muli %b, %c4 : index
  %e0 = tensor.empty(%b, %s) : tensor<?x4x?x16xf32>
  %y = tensor.insert_slice %x into %e0[0, 0, 0, 0] [%b, 4, %t, 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<?x4x?x16xf32>
  %c = tensor.collapse_shape %y [[0, 1, 2, 3]] : tensor<?x4x?x16xf32> into tensor<?xf32>
  %e = tensor.expand_shape %c [[0, 1, 2]] output_shape [%bh, %s, 16] : tensor<?xf32> into tensor<?x?x16xf32>
  return %e : tensor<?x?x16xf32>
}

// -----

// A copy into the whole of a fresh tensor (slices of its own `?` sizes): the slices fold away,
// so two such copies do not bufferize to a strided `memref.copy` (a runtime element loop).
// CHECK-LABEL: func.func @full_slices
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[E:.+]] = tensor.empty
// CHECK: %[[K:.+]] = linalg.copy ins(%arg0 {{.+}} outs(%[[E]]
// CHECK: %[[V:.+]] = linalg.copy ins(%arg1 {{.+}} outs(%[[E]]
// CHECK: return %[[K]], %[[V]]
func.func @full_slices(%k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %b: index, %s: index)
    -> (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) {
  %e = tensor.empty(%b, %s) : tensor<?x4x?x16xf32>
  %part = tensor.extract_slice %e[0, 0, 0, 0] [%b, 4, %s, 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> to tensor<?x4x?x16xf32>
  %k1 = linalg.copy ins(%k : tensor<?x4x?x16xf32>) outs(%part : tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  %k2 = tensor.insert_slice %k1 into %e[0, 0, 0, 0] [%b, 4, %s, 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<?x4x?x16xf32>
  %v1 = linalg.copy ins(%v : tensor<?x4x?x16xf32>) outs(%part : tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  %v2 = tensor.insert_slice %v1 into %e[0, 0, 0, 0] [%b, 4, %s, 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<?x4x?x16xf32>
  return %k2, %v2 : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>
}

// -----

// Sizes that are not the destination's (%t is not %s): the insert stays.
// CHECK-LABEL: func.func @part_slice
// CHECK: tensor.insert_slice
func.func @part_slice(%k: tensor<?x4x?x16xf32>, %b: index, %s: index, %t: index) -> tensor<?x4x?x16xf32> {
  %e = tensor.empty(%b, %s) : tensor<?x4x?x16xf32>
  %k2 = tensor.insert_slice %k into %e[0, 0, 0, 0] [%b, 4, %t, 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<?x4x?x16xf32>
  return %k2 : tensor<?x4x?x16xf32>
}

// -----

// A whole insert of a value whose sizes are not known as the destination's (an argument):
// kept, as its result is what tells later views the sizes.
// CHECK-LABEL: func.func @whole_argument
// CHECK: tensor.insert_slice
func.func @whole_argument(%k: tensor<?x4x?x16xf32>, %b: index, %s: index) -> tensor<?x4x?x16xf32> {
  %e = tensor.empty(%b, %s) : tensor<?x4x?x16xf32>
  %k2 = tensor.insert_slice %k into %e[0, 0, 0, 0] [%b, 4, %s, 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<?x4x?x16xf32>
  return %k2 : tensor<?x4x?x16xf32>
}

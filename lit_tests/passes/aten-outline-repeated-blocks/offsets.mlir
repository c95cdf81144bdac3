// RUN: aten-opt %s -p 'aten-outline-repeated-blocks{min-period=2},duplicate-function-elimination' | FileCheck %s

#id = affine_map<(d0) -> (d0)>
// Three steps of a recurrence h = h * x[t] + h, each reading its own row of %xs: the row's
// offset differs from step to step, so it is passed (an index argument) and the function's
// slice reads it as a dynamic offset; the column offset (4 in every step) stays static.
// CHECK-LABEL: func.func @steps(
// CHECK-SAME: %[[XS:.+]]: tensor<3x12xf32>, %[[H:.+]]: tensor<8xf32>
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[R0:.+]] = call @steps_block0(%[[XS]], %[[H]], %[[C0]])
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[R1:.+]] = call @steps_block0(%[[XS]], %[[R0]], %[[C1]])
// CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[R2:.+]] = call @steps_block0(%[[XS]], %[[R1]], %[[C2]])
// CHECK: return %[[R2]]
// CHECK: func.func private @steps_block0(%[[A:.+]]: tensor<3x12xf32>, %{{.+}}: tensor<8xf32>, %[[T:.+]]: index)
// CHECK: tensor.extract_slice %[[A]][%[[T]], 4] [1, 8] [1, 1]
// CHECK-NOT: func.func private @steps_block1
func.func @steps(%xs: tensor<3x12xf32>, %h: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %x0 = tensor.extract_slice %xs[0, 4] [1, 8] [1, 1] : tensor<3x12xf32> to tensor<8xf32>
  %m0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h, %x0 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%m0, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %x1 = tensor.extract_slice %xs[1, 4] [1, 8] [1, 1] : tensor<3x12xf32> to tensor<8xf32>
  %m1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h1, %x1 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%m1, %h1 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %x2 = tensor.extract_slice %xs[2, 4] [1, 8] [1, 1] : tensor<3x12xf32> to tensor<8xf32>
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h2, %x2 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %h3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%m2, %h2 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %h3 : tensor<8xf32>
}

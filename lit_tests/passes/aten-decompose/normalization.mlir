// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<?x4xf32>, %[[W:[^ :]+]]: tensor<4xf32>, %[[B:[^ :]+]]: tensor<4xf32>)
// CHECK-NEXT: [[N:%.+]]:3 = "aten.native_layer_norm"(%[[X]], %[[W]], %[[B]]) {{.*}}normalized_shape = array<i64: 4>{{.*}} -> (tensor<?x4xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
// CHECK-NEXT: return [[N]]#0
  func.func @layer_norm(%arg0: tensor<?x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<?x4xf32> {
    %0 = "aten.layer_norm"(%arg0, %arg1, %arg2) {cudnn_enable = true, eps = 1.000000e-05 : f64, normalized_shape = array<i64: 4>, operandSegmentSizes = array<i32: 1, 0, 1, 1, 0, 0>} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }

// -----

// N and HxW are runtime sizes (tensor.dim), C is static.
// CHECK-LABEL: func.func @group_norm
// CHECK-DAG: [[N:%.+]] = tensor.dim %{{.+}}, %c0
// CHECK-DAG: [[HW:%.+]] = tensor.dim %{{.+}}, %c2
// CHECK: [[G:%.+]]:3 = "aten.native_group_norm"(%{{.+}}, [[N]], [[HW]]) {C = 6 : i64, {{.*}}group = 3 : i64
// CHECK-SAME: -> (tensor<?x6x?xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
// CHECK-NEXT: return [[G]]#0
  func.func @group_norm(%arg0: tensor<?x6x?xf32>) -> tensor<?x6x?xf32> {
    %0 = "aten.group_norm"(%arg0) {cudnn_enabled = true, eps = 1.000000e-05 : f64, num_groups = 3 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>} : (tensor<?x6x?xf32>) -> tensor<?x6x?xf32>
    return %0 : tensor<?x6x?xf32>
  }

// -----

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<2x4xf32>)
// CHECK-NEXT: [[P:%.+]] = "aten.pow.Tensor_Scalar"(%[[X]]) {exponent = 2 : i64}
// CHECK-NEXT: [[M:%.+]] = "aten.mean.dim"([[P]]) {dim = array<i64: 1>, keepdim = true} : (tensor<2x4xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: [[A:%.+]] = "aten.add.Scalar"([[M]]) {alpha = 1 : i64, other = 9.9999999999999995E-7 : f64}
// CHECK-NEXT: [[R:%.+]] = "aten.rsqrt"([[A]])
// CHECK-NEXT: [[Y:%.+]] = "aten.mul.Tensor"(%[[X]], [[R]])
// CHECK-NEXT: return [[Y]]
  func.func @rms_norm(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = "aten.rms_norm"(%arg0) {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 4>, operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }

// -----

// The training step of _native_batch_norm_legit_functional, plus the empty uint8 reserve.
// CHECK-LABEL: func.func @batch_norm_with_update
// CHECK: [[N:%.+]]:3 = "aten._native_batch_norm_legit.no_stats"(%arg0, %arg1, %arg2) {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, {{.*}}training = true}
// CHECK: [[RM:%.+]] = "aten.add.Tensor"
// CHECK: [[RV:%.+]] = "aten.add.Tensor"
// CHECK-NEXT: [[RES:%.+]] = "aten.full"() {dtype = ui8, fill_value = 0 : i64, size = array<i64: 0>} : () -> tensor<0xui8>
// CHECK-NEXT: return [[N]]#0, [[N]]#1, [[N]]#2, [[RES]], [[RM]], [[RV]]
// CHECK-NOT: aten._batch_norm_with_update_functional
  func.func @batch_norm_with_update(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>, %arg3: tensor<3xf32>, %arg4: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xui8>, tensor<3xf32>, tensor<3xf32>) {
    %0:6 = "aten._batch_norm_with_update_functional"(%arg0, %arg1, %arg2, %arg3, %arg4) {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xui8>, tensor<3xf32>, tensor<3xf32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xui8>, tensor<3xf32>, tensor<3xf32>
  }

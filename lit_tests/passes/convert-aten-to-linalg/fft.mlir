// RUN: aten-opt %s --split-input-file -p convert-aten-to-linalg | FileCheck %s

// A one-sided real DFT: one reduction over the input dim, phase (k*r mod n)/n in integers,
// accumulated in complex<f64>, then rounded to complex<f32> once.
// CHECK-LABEL: func.func @rfft
// CHECK-DAG: %[[N:.+]] = arith.constant 8 : index
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.+}} : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x5xcomplex<f64>>)
// CHECK: %[[K:.+]] = linalg.index 1 : index
// CHECK: %[[R:.+]] = linalg.index 2 : index
// CHECK: %[[KR:.+]] = arith.muli %[[K]], %[[R]] : index
// CHECK: arith.remui %[[KR]], %[[N]] : index
// CHECK: math.cos
// CHECK: math.sin
// CHECK: complex.create {{.*}} : complex<f64>
// CHECK: linalg.generic
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: complex.create {{.*}} : complex<f32>
func.func @rfft(%x: tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>> {
  %0 = "aten._fft_r2c"(%x) {dim = array<i64: 1>, normalization = 0 : i64, onesided = true} : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
  return %0 : tensor<4x5xcomplex<f32>>
}

// -----

// The Hermitian inverse: frequencies 0 and n/2 count once, the others twice, and any beyond
// n/2 not at all; "by_n" normalization divides by the signal size.
// CHECK-LABEL: func.func @irfft
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.+}} : tensor<5xcomplex<f32>>) outs(%{{.+}} : tensor<8xf64>)
// CHECK: arith.cmpi ugt
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @irfft(%x: tensor<5xcomplex<f32>>) -> tensor<8xf32> {
  %0 = "aten._fft_c2r"(%x) {dim = array<i64: 0>, normalization = 2 : i64, last_dim_size = 8 : i64} : (tensor<5xcomplex<f32>>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

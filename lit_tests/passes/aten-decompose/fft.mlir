// RUN: aten-opt %s --split-input-file -p aten-decompose | FileCheck %s

// ifft of a real signal: r2c of x[-n mod N] (first element, the rest flipped) instead of ATen's
// conj, which the core set lacks. The `?` input is padded by n and cut to n. ortho: code 1.
// CHECK-LABEL: func.func @fft_ifft
// CHECK-SAME: (%[[X:[^ :]+]]: tensor<4x?xf32>)
// CHECK-NEXT: [[PAD:%.+]] = "aten.constant_pad_nd"(%[[X]]) {pad = array<i64: 0, 6>
// CHECK-NEXT: [[CUT:%.+]] = "aten.slice.Tensor"([[PAD]]) {dim = 1 : i64, end = 6 : i64, start = 0 : i64, step = 1 : i64} : (tensor<4x?xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: [[FIRST:%.+]] = "aten.slice.Tensor"([[CUT]]) {dim = 1 : i64, end = 1 : i64, start = 0 : i64
// CHECK-NEXT: [[REST:%.+]] = "aten.slice.Tensor"([[CUT]]) {dim = 1 : i64, start = 1 : i64
// CHECK-NEXT: [[FLIP:%.+]] = "aten.flip"([[REST]]) {dims = array<i64: 1>}
// CHECK-NEXT: [[REV:%.+]] = "aten.cat"([[FIRST]], [[FLIP]]) {dim = 1 : i64
// CHECK-NEXT: [[Y:%.+]] = "aten._fft_r2c"([[REV]]) {dim = array<i64: 1>, normalization = 1 : i64, onesided = false} : (tensor<4x6xf32>) -> tensor<4x6xcomplex<f32>>
// CHECK-NEXT: return [[Y]]
// CHECK-NOT: conj
func.func @fft_ifft(%x: tensor<4x?xf32>) -> tensor<4x6xcomplex<f32>> {
  %0 = "aten.fft_ifft"(%x) {n = 6 : i64, dim = -1 : i64, norm = "ortho"} : (tensor<4x?xf32>) -> tensor<4x6xcomplex<f32>>
  return %0 : tensor<4x6xcomplex<f32>>
}

// -----

// Default n = 2 (m - 1); backward norm on an inverse transform divides by n: code 2.
// CHECK-LABEL: func.func @fft_irfft
// CHECK-NEXT: [[Y:%.+]] = "aten._fft_c2r"(%{{.+}}) {dim = array<i64: 1>, last_dim_size = 8 : i64, normalization = 2 : i64} : (tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>
// CHECK-NEXT: return [[Y]]
func.func @fft_irfft(%x: tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32> {
  %0 = "aten.fft_irfft"(%x) {dim = -1 : i64} : (tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rfft2 -> rfftn -> one r2c over both dims.
// CHECK-LABEL: func.func @fft_rfft2
// CHECK-NEXT: [[Y:%.+]] = "aten._fft_r2c"(%{{.+}}) {dim = array<i64: 0, 1>, normalization = 0 : i64, onesided = true} : (tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>>
// CHECK-NEXT: return [[Y]]
// CHECK-NOT: aten.fft_rfftn
func.func @fft_rfft2(%x: tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>> {
  %0 = "aten.fft_rfft2"(%x) {dim = array<i64: -2, -1>} : (tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>>
  return %0 : tensor<4x4xcomplex<f32>>
}

// -----

// Complex input keeps the complex-to-complex kernel (kept whole).
// CHECK-LABEL: func.func @fft_fft_complex
// CHECK-NEXT: [[Y:%.+]] = "aten._fft_c2c"(%{{.+}}) {dim = array<i64: 0>, forward = true, normalization = 0 : i64}
// CHECK-NEXT: return [[Y]]
func.func @fft_fft_complex(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %0 = "aten.fft_fft"(%x) {dim = -1 : i64} : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

// [0, 1, 2, -2, -1] * (1 / (n d)), as ATen's fft_fftfreq_out.
// CHECK-LABEL: func.func @fft_fftfreq
// CHECK-NEXT: [[LO:%.+]] = "aten.arange.start_step"() {dtype = f32, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK-NEXT: [[HI:%.+]] = "aten.arange.start_step"() {dtype = f32, end = 0 : i64, start = -2 : i64, step = 1 : i64}
// CHECK-NEXT: [[ALL:%.+]] = "aten.cat"([[LO]], [[HI]]) {dim = 0 : i64
// CHECK-NEXT: [[Y:%.+]] = "aten.mul.Tensor"([[ALL]]) {operandSegmentSizes = array<i32: 1, 0>, other = 4.000000e-01 : f64}
// CHECK-NEXT: return [[Y]]
func.func @fft_fftfreq() -> tensor<5xf32> {
  %0 = "aten.fft_fftfreq"() {n = 5 : i64, d = 0.5 : f64} : () -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

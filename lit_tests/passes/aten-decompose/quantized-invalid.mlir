// RUN: aten-opt %s --split-input-file --verify-diagnostics -p aten-decompose

// The checks the eager kernels make fail the rule at the op's location (not a silent cast).
func.func @out_of_bounds(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error@+1 {{'quantized_decomposed.quantize_per_tensor' op decomposition decompose_quantize_per_tensor: ValueError: quant_min/quant_max -200/127 out of bounds for torch.int8 (-128/127)}}
  %0 = "quantized_decomposed.quantize_per_tensor"(%x) {scale = 1.0 : f64, zero_point = 0 : i64, quant_min = -200 : i64, quant_max = 127 : i64, dtype = i8} : (tensor<4xf32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @wrong_input_dtype(%q: tensor<4xui8>) -> tensor<4xf32> {
  // expected-error@+1 {{'quantized_decomposed.dequantize_per_tensor' op decomposition decompose_dequantize_per_tensor: ValueError: Expecting input to have dtype torch.int8, got torch.uint8}}
  %0 = "quantized_decomposed.dequantize_per_tensor"(%q) {scale = 1.0 : f64, zero_point = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64, dtype = i8} : (tensor<4xui8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

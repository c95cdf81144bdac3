#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<1x2x6x6xf32>):
    %0 = "arith.constant"() <{value = 4.000000e+00 : f32}> : () -> f32
    %1 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %2 = "tensor.empty"() : () -> tensor<1x2x8x8xf32>
    %3 = "linalg.fill"(%1, %2) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg10: f32, %arg11: f32):
      "linalg.yield"(%arg10) : (f32) -> ()
    }) : (f32, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
    %4 = "tensor.extract_slice"(%3) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 1, 1>, static_sizes = array<i64: 1, 2, 6, 6>, static_strides = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x6xf32>
    %5 = "linalg.copy"(%arg0, %4) <{cast = #linalg.type_fn<cast_signed>, operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg8: f32, %arg9: f32):
      "linalg.yield"(%arg8) : (f32) -> ()
    }) : (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
    %6 = "tensor.insert_slice"(%5, %3) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 1, 1>, static_sizes = array<i64: 1, 2, 6, 6>, static_strides = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
    %7 = "tensor.empty"() : () -> tensor<1x2x4x4xf32>
    %8 = "linalg.fill"(%1, %7) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg6: f32, %arg7: f32):
      "linalg.yield"(%arg6) : (f32) -> ()
    }) : (f32, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %9 = "tensor.empty"() : () -> tensor<2x2xf32>
    %10 = "linalg.pooling_nchw_sum"(%6, %9, %8) <{dilations = dense<1> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<2xi64>}> ({
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %14 = "arith.addf"(%arg5, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%14) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<1x2x8x8xf32>, tensor<2x2xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %11 = "tensor.empty"() : () -> tensor<1x2x4x4xf32>
    %12 = "linalg.generic"(%10, %11) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg1: f32, %arg2: f32):
      %13 = "arith.divf"(%arg1, %0) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%13) : (f32) -> ()
    }) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    "func.return"(%12) : (tensor<1x2x4x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

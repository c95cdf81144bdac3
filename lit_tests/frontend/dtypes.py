# RUN: %PYTHON %s | FileCheck %s
"""Element types for every dtype the frontend maps: floats as is, bool as `i1`, signed integers
signless (`i8`..`i64`), `uint8` as `ui8`, complex64 as `complex<f32>`; a `dtype` argument is a
TypeAttr of the same element type."""

import torch

import aten_mlir


class CloneAndZeros(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, x, f):
        return x.clone(), torch.zeros_like(f, dtype=self.dtype)


def example(dtype):
    if dtype.is_complex:
        return torch.randn(2, 3, dtype=dtype)
    if dtype == torch.bool:
        return torch.tensor([[True, False, True], [False, False, True]])
    if dtype.is_floating_point:
        return torch.randn(2, 3).to(dtype)
    return torch.arange(6, dtype=dtype).reshape(2, 3)


def check_dtype(dtype):
    """Prints the imported program for `dtype`, then "ok" if the reference run equals eager."""
    print("\nTEST:", dtype)
    x, f = example(dtype), torch.randn(3)
    program = aten_mlir.import_program(torch.export.export(CloneAndZeros(dtype), (x, f)))
    aten_mlir.verify_module(program.module)
    print(program)
    clone, zeros = aten_mlir.run_reference(program, x, f)
    same = torch.equal(clone, x) and torch.equal(zeros, torch.zeros(3, dtype=dtype))
    print("ok" if same else "MISMATCH")


# CHECK-LABEL: TEST: torch.float32
# CHECK: func.func @main(%arg0: tensor<2x3xf32> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = f32, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xf32>
# CHECK: ok
check_dtype(torch.float32)

# CHECK-LABEL: TEST: torch.float16
# CHECK: func.func @main(%arg0: tensor<2x3xf16> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xf16>) -> tensor<2x3xf16>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = f16, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xf16>
# CHECK: ok
check_dtype(torch.float16)

# CHECK-LABEL: TEST: torch.bfloat16
# CHECK: func.func @main(%arg0: tensor<2x3xbf16> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = bf16, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xbf16>
# CHECK: ok
check_dtype(torch.bfloat16)

# CHECK-LABEL: TEST: torch.float64
# CHECK: func.func @main(%arg0: tensor<2x3xf64> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = f64, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xf64>
# CHECK: ok
check_dtype(torch.float64)

# CHECK-LABEL: TEST: torch.bool
# CHECK: func.func @main(%arg0: tensor<2x3xi1> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xi1>) -> tensor<2x3xi1>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = i1, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xi1>
# CHECK: ok
check_dtype(torch.bool)

# CHECK-LABEL: TEST: torch.int8
# CHECK: func.func @main(%arg0: tensor<2x3xi8> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xi8>) -> tensor<2x3xi8>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = i8, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xi8>
# CHECK: ok
check_dtype(torch.int8)

# CHECK-LABEL: TEST: torch.int16
# CHECK: func.func @main(%arg0: tensor<2x3xi16> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xi16>) -> tensor<2x3xi16>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = i16, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xi16>
# CHECK: ok
check_dtype(torch.int16)

# CHECK-LABEL: TEST: torch.int32
# CHECK: func.func @main(%arg0: tensor<2x3xi32> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xi32>) -> tensor<2x3xi32>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = i32, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xi32>
# CHECK: ok
check_dtype(torch.int32)

# CHECK-LABEL: TEST: torch.int64
# CHECK: func.func @main(%arg0: tensor<2x3xi64> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xi64>) -> tensor<2x3xi64>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = i64, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xi64>
# CHECK: ok
check_dtype(torch.int64)

# CHECK-LABEL: TEST: torch.uint8
# CHECK: func.func @main(%arg0: tensor<2x3xui8> {aten.user_input = "x"}, %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xui8>) -> tensor<2x3xui8>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = ui8, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xui8>
# CHECK: ok
check_dtype(torch.uint8)

# CHECK-LABEL: TEST: torch.complex64
# CHECK: func.func @main(%arg0: tensor<2x3xcomplex<f32>> {aten.user_input = "x"},
# CHECK-SAME: %arg1: tensor<3xf32>
# CHECK-NEXT: "aten.clone"(%arg0) : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
# CHECK-NEXT: "aten.zeros_like"(%arg1) {dtype = complex<f32>, pin_memory = false} : (tensor<3xf32>)
# CHECK-SAME: -> tensor<3xcomplex<f32>>
# CHECK: ok
check_dtype(torch.complex64)

# RUN: %PYTHON %s | FileCheck %s
"""Dtype, layout, memory-format, device and string arguments are attributes: a dtype is a TypeAttr
of the element type (`dtype = f32`), enums and devices are strings named as torch prints them
without the `torch.` prefix (`memory_format = "channels_last"`), absent optionals are omitted."""

import torch

import aten_mlir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def import_module(module, *args):
    program = aten_mlir.import_program(torch.export.export(module, args))
    aten_mlir.verify_module(program.module)
    return program


class Enums(torch.nn.Module):
    def forward(self, h, x):
        return (
            h.to(torch.float32),
            x.sum(dtype=torch.float64),
            x.to(torch.int32).to(torch.uint8),
            x.clone(memory_format=torch.channels_last),
            torch.ones_like(x, memory_format=torch.preserve_format),
            torch.empty(2, 3, layout=torch.strided, device="cpu").fill_(2.0),
            torch.div(x, 3, rounding_mode="floor"),
            torch.nn.functional.gelu(x, approximate="tanh"),
        )


# CHECK-LABEL: TEST: test_enum_attributes
@run
def test_enum_attributes():
    h, x = torch.randn(2, dtype=torch.float16), torch.randn(1, 2, 3, 3)
    program = import_module(Enums(), h, x)
    # CHECK: "aten.to.dtype"(%arg0) {copy = false, dtype = f32, non_blocking = false}
    # CHECK-SAME: : (tensor<2xf16>) -> tensor<2xf32>
    # CHECK-NEXT: "aten.sum"(%arg1) {dtype = f64} : (tensor<1x2x3x3xf32>) -> tensor<f64>
    # CHECK-NEXT: [[I32:%.+]] = "aten.to.dtype"(%arg1) {copy = false, dtype = i32,
    # CHECK-NEXT: "aten.to.dtype"([[I32]]) {copy = false, dtype = ui8, non_blocking = false}
    # CHECK-SAME: : (tensor<1x2x3x3xi32>) -> tensor<1x2x3x3xui8>
    # CHECK-NEXT: "aten.clone"(%arg1) {memory_format = "channels_last"}
    # CHECK-NEXT: "aten.ones_like"(%arg1) {memory_format = "preserve_format", pin_memory = false}
    # CHECK-NEXT: [[EMPTY:%.+]] = "aten.empty.memory_format"() {device = "cpu", layout = "strided",
    # CHECK-SAME: pin_memory = false, size = array<i64: 2, 3>} : () -> tensor<2x3xf32>
    # CHECK-NEXT: "aten.fill.Scalar"([[EMPTY]]) {value = 2.000000e+00 : f64}
    # CHECK-NEXT: "aten.div.Tensor_mode"(%arg1) {operandSegmentSizes = array<i32: 1, 0, 0>,
    # CHECK-SAME: other = 3 : i64, rounding_mode = "floor"}
    # CHECK-NEXT: "aten.gelu"(%arg1) {approximate = "tanh"}
    print(program)
    got, want = aten_mlir.run_reference(program, h, x), Enums()(h, x)
    # CHECK: ok
    print("ok" if all(torch.equal(a, b) for a, b in zip(got, want, strict=True)) else "MISMATCH")
    # The reference run honours the memory format, as eager does.
    # CHECK-NEXT: channels_last: True
    print("channels_last:", got[3].is_contiguous(memory_format=torch.channels_last))

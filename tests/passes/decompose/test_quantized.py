"""The PT2E int8 flow's `quantized_decomposed` ops import and decompose to core aten with torch's
rounding and clamping: each op and quantized dtype compiled equals eager bit for bit (ties that
round half to even, values clamped at both ends, f16/bf16 inputs, f64 per-channel scales), and
a PT2E-quantized conv + linear model compiles with no fallback on CPU and Triton."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.passes.decompose import ops_outside, target_set
from tests.modules import Fn

qd = torch.ops.quantized_decomposed
DTYPES = {
    torch.int8: (-128, 127),
    torch.uint8: (0, 255),
    torch.int16: (-32768, 32767),
    torch.int32: (-(2**31), 2**31 - 1),
}
SCALE, ZERO_POINT = 0.25, 3  # exact in binary: x * (1 / scale) lands exactly on the .5 ties


def _floats(dtype=torch.float32) -> torch.Tensor:
    """Ties (k + 0.5) * scale of both parities, far out-of-range values, and random ones."""
    ties = (torch.arange(-8, 8, dtype=torch.float64) + 0.5) * SCALE
    extremes = torch.tensor([-1e6, -40.0, 40.0, 1e6, 0.0, -0.0, 1e-9, -1e-9], dtype=torch.float64)
    noise = torch.randn(16, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 30
    return torch.cat([ties, extremes, noise]).reshape(5, 8).to(dtype)


def _quantized(qtype) -> torch.Tensor:
    low, high = DTYPES[qtype]
    values = torch.linspace(max(low, -(2**20)), min(high, 2**20), 40).round()
    return values.to(torch.int64).clamp(low, high).to(qtype).reshape(5, 8)


def _compile_and_compare(fn, args, target="cpu", decomposed_names=()):
    """`fn` exported, imported holding `decomposed_names`, compiled with no fallback: equal to
    eager bit for bit (dtype included)."""
    ep = torch.export.export(Fn(fn), args)
    program = aten_mlir.import_program(ep)
    for name in decomposed_names:
        assert f'"{name}"' in program.text(), program.text()
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), decomposed.text()
    assert "quantized_decomposed." not in decomposed.text()
    compiled = aten_mlir.compile(ep, target=target, cache=False)
    assert compiled.fallbacks == []
    want, got = fn(*args), compiled(*args)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got, strict=True):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=0)


@pytest.mark.parametrize("qtype", list(DTYPES), ids=str)
@pytest.mark.parametrize("in_dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_quantize_per_tensor(qtype, in_dtype):
    low, high = DTYPES[qtype]

    def fn(x, scale, zero_point):
        return (
            qd.quantize_per_tensor(x, SCALE, ZERO_POINT, low, high, qtype),
            qd.quantize_per_tensor.tensor(x, scale, zero_point, low, high, qtype),
        )

    args = (_floats(in_dtype), torch.tensor(0.1), torch.tensor([-2]))
    _compile_and_compare(
        fn,
        args,
        decomposed_names=[
            "quantized_decomposed.quantize_per_tensor",
            "quantized_decomposed.quantize_per_tensor.tensor",
        ],
    )


@pytest.mark.parametrize("qtype", list(DTYPES), ids=str)
@pytest.mark.parametrize("out_dtype", [None, torch.float16, torch.bfloat16], ids=str)
def test_dequantize_per_tensor(qtype, out_dtype):
    low, high = DTYPES[qtype]

    def fn(q, scale, zero_point):
        return (
            qd.dequantize_per_tensor(q, 0.037, -5, low, high, qtype, out_dtype=out_dtype),
            qd.dequantize_per_tensor.tensor(
                q, scale, zero_point, low, high, qtype, out_dtype=out_dtype
            ),
        )

    args = (_quantized(qtype), torch.tensor(0.013, dtype=torch.float64), torch.tensor(7))
    _compile_and_compare(fn, args, decomposed_names=["quantized_decomposed.dequantize_per_tensor"])


@pytest.mark.parametrize("qtype", list(DTYPES), ids=str)
@pytest.mark.parametrize("scale_dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_per_channel(qtype, scale_dtype, axis):
    low, high = DTYPES[qtype]
    channels = 5 if axis == 0 else 8
    gen = torch.Generator().manual_seed(1)
    scales = (torch.rand(channels, generator=gen) * 0.5 + 0.05).to(scale_dtype)
    scales[0] = SCALE  # a channel whose products land exactly on ties
    zero_points = torch.randint(-3, 4, (channels,), generator=gen).clamp(low, high)

    def fn(x, q, s, z):
        return (
            qd.quantize_per_channel(x, s, z, axis, low, high, qtype),
            qd.dequantize_per_channel(q, s, z, axis, low, high, qtype),
            qd.dequantize_per_channel(q, s, None, axis, low, high, qtype),
        )

    args = (_floats(), _quantized(qtype), scales, zero_points)
    _compile_and_compare(
        fn,
        args,
        decomposed_names=[
            "quantized_decomposed.quantize_per_channel",
            "quantized_decomposed.dequantize_per_channel",
        ],
    )


def test_round_trip_on_triton():
    def fn(x, s, z):
        q = qd.quantize_per_tensor(x, SCALE, ZERO_POINT, -128, 127, torch.int8)
        qc = qd.quantize_per_channel(x, s, z, 0, 0, 255, torch.uint8)
        return (
            q,
            qd.dequantize_per_tensor(q, SCALE, ZERO_POINT, -128, 127, torch.int8),
            qc,
            qd.dequantize_per_channel(qc, s, z, 0, 0, 255, torch.uint8),
        )

    scales = torch.tensor([0.25, 0.1, 0.3, 0.07, 0.5])
    _compile_and_compare(fn, (_floats(), scales, torch.tensor([0, 3, 100, 7, 128])), "triton")


class QuantizedConvLinear(torch.nn.Module):
    """What PT2E's convert_pt2e makes of a conv + relu + linear model: int8 per-channel weights
    dequantized in the graph, each activation quantized to uint8 and dequantized again."""

    def __init__(self):
        super().__init__()
        gen = torch.Generator().manual_seed(0)
        conv_w, fc_w = torch.randn(8, 3, 3, 3, generator=gen), torch.randn(10, 288, generator=gen)
        for name, w in (("conv", conv_w), ("fc", fc_w)):
            scale = w.abs().amax(dim=tuple(range(1, w.dim()))) / 127
            zero = torch.zeros(w.shape[0], dtype=torch.int64)
            q = qd.quantize_per_channel(w, scale, zero, 0, -128, 127, torch.int8)
            self.register_buffer(f"{name}_q", q)
            self.register_buffer(f"{name}_scale", scale)
            self.register_buffer(f"{name}_zero", zero)
        self.conv_b = torch.nn.Parameter(torch.randn(8, generator=gen))
        self.fc_b = torch.nn.Parameter(torch.randn(10, generator=gen))

    def _weight(self, name):
        q, s, z = (getattr(self, f"{name}_{k}") for k in ("q", "scale", "zero"))
        return qd.dequantize_per_channel(q, s, z, 0, -128, 127, torch.int8)

    @staticmethod
    def _qdq(x, scale, zero_point):
        q = qd.quantize_per_tensor(x, scale, zero_point, 0, 255, torch.uint8)
        return qd.dequantize_per_tensor(q, scale, zero_point, 0, 255, torch.uint8)

    def forward(self, x):
        y = torch.nn.functional.conv2d(self._qdq(x, 0.024, 108), self._weight("conv"), self.conv_b)
        y = self._qdq(torch.relu(y).flatten(1), 0.07, 0)
        return torch.nn.functional.linear(y, self._weight("fc"), self.fc_b)


def _check_model(model, x, target):
    ep = torch.export.export(model, (x,))
    compiled = aten_mlir.compile(ep, target=target, cache=False)
    assert compiled.fallbacks == []
    # The float conv/linear may sum in another order than eager's; a sum that lands on the other
    # side of a rounding tie moves one activation by one quantization step (0.07), so the
    # tolerance is one step through the linear layer, not a float rounding error.
    torch.testing.assert_close(compiled(x), model(x), atol=0.1, rtol=1e-3)
    return compiled


@pytest.mark.parametrize("target", ["cpu", "triton"])
def test_pt2e_form_conv_linear_model(target):
    x = torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(2))
    _check_model(QuantizedConvLinear().eval(), x, target)


def test_torchao_pt2e_conv_linear_model():
    """The real flow: prepare_pt2e / calibrate / convert_pt2e with the X86 Inductor quantizer
    (torch 2.13 moved PT2E out of torch.ao.quantization into torchao)."""
    pt2e = pytest.importorskip("torchao.quantization.pt2e.quantize_pt2e")
    x86 = pytest.importorskip("torchao.quantization.pt2e.quantizer.x86_inductor_quantizer")

    class ConvLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.fc = torch.nn.Conv2d(3, 8, 3), torch.nn.Linear(288, 10)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    torch.manual_seed(0)
    model, x = ConvLinear().eval(), torch.randn(2, 3, 8, 8)
    quantizer = x86.X86InductorQuantizer()
    quantizer.set_global(x86.get_default_x86_inductor_quantization_config())
    prepared = pt2e.prepare_pt2e(torch.export.export(model, (x,)).module(), quantizer)
    prepared(x)  # calibration
    quantized = pt2e.convert_pt2e(prepared)
    text = str(torch.export.export(quantized, (x,)).graph)
    assert "quantize_per_tensor" in text and "dequantize_per_channel" in text
    _check_model(quantized, x, "cpu")

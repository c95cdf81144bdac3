"""`aten-im2col-windows` on convolution weight gradients: values match eager for strides,
dilations, groups, 1d/3d, transposed convolutions, bf16 and a dynamic batch; the product that
remains reduces over one collapsed dim of output pixels (the IR check)."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim, export

import aten_mlir


class _Backward(torch.nn.Module):
    def __init__(self, stride, padding, dilation, groups, transposed=False, mask=(True,) * 3):
        super().__init__()
        self.args = (stride, padding, dilation, transposed, groups, list(mask))

    def forward(self, go, x, w):
        stride, padding, dilation, transposed, groups, mask = self.args
        n = x.dim() - 2
        out_pad = [0] * n
        r = torch.ops.aten.convolution_backward(
            go, x, w, [go.shape[1]], stride, padding, dilation, transposed, out_pad, groups, mask
        )
        return tuple(t for t, m in zip(r, mask) if m)


def _case(x_shape, w_shape, stride, padding, dilation, groups, transposed=False, dtype=None):
    torch.manual_seed(0)
    x, w = torch.randn(x_shape), torch.randn(w_shape)
    fn = torch.nn.functional
    if transposed:
        conv = {3: fn.conv_transpose1d, 4: fn.conv_transpose2d, 5: fn.conv_transpose3d}
        y = conv[len(x_shape)](x, w, None, stride, padding, 0, groups, dilation)
    else:
        conv = {3: fn.conv1d, 4: fn.conv2d, 5: fn.conv3d}
        y = conv[len(x_shape)](x, w, None, stride, padding, dilation, groups)
    args = (torch.randn(y.shape), x, w)
    if dtype is not None:
        args = tuple(a.to(dtype) for a in args)
    return _Backward(stride, padding, dilation, groups, transposed), args


CASES = {
    "2d-s2": ((4, 8, 17, 15), (6, 8, 3, 3), [2, 2], [1, 1], [1, 1], 1),
    "2d-s1-pad0": ((2, 3, 12, 12), (5, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1),
    "2d-dilated": ((2, 4, 16, 16), (4, 4, 3, 3), [1, 1], [2, 2], [2, 2], 1),
    "2d-groups": ((2, 8, 10, 10), (8, 4, 3, 3), [1, 1], [1, 1], [1, 1], 2),
    "2d-depthwise": ((2, 6, 9, 9), (6, 1, 5, 5), [1, 1], [2, 2], [1, 1], 6),
    "2d-7x7-s2": ((1, 3, 32, 32), (8, 3, 7, 7), [2, 2], [3, 3], [1, 1], 1),
    "1d": ((3, 4, 40), (6, 4, 5), [2], [1], [1], 1),
    "3d": ((1, 2, 8, 9, 10), (3, 2, 3, 3, 3), [1, 2, 1], [1, 1, 1], [1, 1, 1], 1),
}


def _compile(model, args, tmp_path, dynamic_shapes=None):
    ep = export(model, args, dynamic_shapes=dynamic_shapes)
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    return compiled, (tmp_path / "04-bufferize.mlir").read_text()


def _check(got, want, dtype=None):
    tol = dict(rtol=2e-2, atol=2e-2) if dtype is not None else dict(rtol=1e-4, atol=1e-4)
    for g, w in zip(got, want):
        scale = w.abs().max().clamp_min(1)
        torch.testing.assert_close(g / scale, w / scale, **tol)


def _product_iterators(text: str) -> list[str]:
    """The iterator lists of the mul-add generics in `text`."""
    found = []
    for m in re.finditer(
        r"iterator_types = \[([^\]]*)\][^\n]*\n[^\n]*\n\s*%\S+ = arith.mulf", text
    ):
        found.append(m.group(1).replace('"', "").replace(" ", ""))
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_weight_gradient_matches_eager(name, tmp_path):
    model, args = _case(*CASES[name])
    compiled, text = _compile(model, args, tmp_path)
    _check(compiled(*args), model(*args))
    if name != "2d-depthwise":
        # the weight gradient's product: sums over (batch, output pixels) as two dims; one run
        # when the windows are copied by one generic (a strided last dim), which lays the batch
        # next to the pixels
        sums = 1 if model.args[0][-1] > 1 else 2
        assert any(
            it.endswith("reduction") and it.count("reduction") == sums
            for it in _product_iterators(text)
        ), _product_iterators(text)


def test_transposed_convolution_weight_gradient(tmp_path):
    model, args = _case((2, 6, 7, 7), (6, 4, 3, 3), [2, 2], [1, 1], [1, 1], 1, transposed=True)
    compiled, _ = _compile(model, args, tmp_path)
    _check(compiled(*args), model(*args))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "f16"])
def test_narrow_weight_gradient(dtype, tmp_path):
    model, args = _case(*CASES["2d-s2"], dtype=dtype)
    compiled, _ = _compile(model, args, tmp_path)
    want = model(*(a.float() for a in args))
    _check([g.float() for g in compiled(*args)], want, dtype)


def test_dynamic_batch_and_image(tmp_path):
    model, args = _case((3, 4, 14, 14), (5, 4, 3, 3), [1, 1], [1, 1], [1, 1], 1)
    batch, size = Dim("batch", min=1, max=64), Dim("size", min=4, max=64)
    shapes = ({0: batch, 2: size, 3: size}, {0: batch, 2: size, 3: size}, None)
    compiled, text = _compile(model, args, tmp_path, shapes)
    for n, s in ((1, 5), (3, 14), (7, 23)):
        x, go, w = torch.randn(n, 4, s, s), torch.randn(n, 5, s, s), args[2]
        _check(compiled(go, x, w), model(go, x, w))
    assert any(it.endswith("reduction,reduction") for it in _product_iterators(text))


def test_dynamic_batch_strided(tmp_path):
    # the batch summed with the output pixels as one `?` run (cols [g, J, n, O])
    model, args = _case((3, 4, 15, 13), (5, 4, 3, 3), [2, 2], [1, 1], [1, 1], 1)
    batch = Dim("batch", min=1, max=64)
    compiled, text = _compile(model, args, tmp_path, ({0: batch}, {0: batch}, None))
    for n in (1, 3, 7, 33):
        x, w = torch.randn(n, 4, 15, 13), args[2]
        go = torch.randn(n, 5, 8, 7)
        _check(compiled(go, x, w), model(go, x, w))
    assert any(
        it.endswith("reduction") and it.count("reduction") == 1 for it in _product_iterators(text)
    ), _product_iterators(text)


def test_forward_grouped_convolution_keeps_its_kernel(tmp_path):
    conv = torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)
    x = torch.randn(2, 8, 16, 16)
    compiled, text = _compile(conv, (x,), tmp_path)
    torch.testing.assert_close(compiled(x), conv(x), rtol=1e-4, atol=1e-4)
    assert "tensor<" not in text  # bufferized
    assert not any(
        it.endswith("reduction,reduction") and it.count("reduction") == 2
        for it in _product_iterators(text)
    )

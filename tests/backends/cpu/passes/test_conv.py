"""Convs with output rows of a vector or more but a short reduction (C*KH*KW <= 160, a CNN's
first layer; <= 576 when the rows are ragged, not whole register tiles) run on the im2col copy,
not the direct kernel (which reloads its accumulators every KW taps: train_cnn's 3->32 conv took
2.2 ms, 0.25 on the copy; it masks the last tile of each 56-wide row of ResNet's 64->64)."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from tests.support.dynamo import fresh_dynamo, train_both
from tests.support.lowering import static_and_batch_dim
from tests.support.modules import Conv2d as _Conv


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "cin, cout, stride, hw, copied",
    [
        (3, 32, 1, (33, 35), True),  # an RGB stem: 35-wide rows, a remainder of the lanes
        (3, 40, 2, (70, 67), True),  # strided: rows of 34 gathered
        (17, 32, 1, (9, 40), True),  # k = 153, just under the bound
        (18, 32, 1, (9, 32), False),  # k = 162, whole tiles: the direct kernel
        (64, 32, 1, (9, 40), True),  # k = 576, ragged rows (40 = 32 + 8; f64: 16 + 16 + 8)
        (65, 32, 1, (9, 40), False),  # k = 585: the direct kernel
        (3, 16, 1, (9, 40), False),  # too few filters for the copy to pay
    ],
    ids=["stem", "strided", "k153", "k162", "ragged-k576", "ragged-k585", "f16"],
)
def test_a_short_reduction_takes_the_im2col_copy(cin, cout, stride, hw, copied, dtype, tmp_path):
    torch.manual_seed(0)
    x, w = torch.randn(2, cin, *hw, dtype=dtype), torch.randn(cout, cin, 3, 3, dtype=dtype)
    ep = torch.export.export(_Conv(stride, 1), (x, w), dynamic_shapes=({0: Dim("b")}, None))
    program = aten_mlir.compile(ep, dump_dir=tmp_path)
    ir_text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "linalg.conv_2d" not in ir_text and "vector.fma" in ir_text
    # the filter viewed as the matrix [F, C*3*3] over the copy's rows
    assert (f"memref<{cout}x{cin * 9}x" in ir_text) == copied
    ref = _Conv(stride, 1)
    for batch in (1, 7, 2):
        x = torch.randn(batch, cin, *hw, dtype=dtype)
        torch.testing.assert_close(program(x, w), ref(x, w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_a_cnn_stem_trains_as_eager(dynamic):
    """Forward and backward (BN in training mode after the conv) against eager."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(32),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(32, 5),
    )
    sizes = (4, 3, 7) if dynamic else (4, 4, 4)
    batches = [(torch.randn(b, 3, 32, 33), torch.randint(0, 5, (b,))) for b in sizes]
    with fresh_dynamo():
        got, want, twin = train_both(
            model, batches, torch.nn.functional.cross_entropy, dynamic=dynamic
        )
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    for p, q in zip(model.parameters(), twin.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize(
    "cin, cout, panels",
    [(20, 72, False), (3, 1030, True)],
    ids=["in-place", "panels"],
)
def test_an_im2col_product_copies_panels_only_for_many_filters(cin, cout, panels, tmp_path):
    """The outer kernel on the im2col copy reads the copy in place below IM2COL_PANEL_MIN_ROWS
    filters (a second copy of it as panels costs more than it saves: 128->128 3x3 at 28x28 1.39
    -> 1.24 ms), as panels from there. Rows of 13 (narrower than a vector: im2col), a `?` batch
    at odd sizes."""
    torch.manual_seed(0)
    x, w = torch.randn(2, cin, 9, 13), torch.randn(cout, cin, 3, 3)
    ep = torch.export.export(_Conv(1, 1), (x, w), dynamic_shapes=({0: Dim("b")}, None))
    program = aten_mlir.compile(ep, dump_dir=tmp_path, cache=False)
    ir_text = (tmp_path / "05-vectorize.mlir").read_text()
    assert f"memref<{cout}x{cin * 9}x" in ir_text  # the filter over the im2col copy
    assert bool(re.search(r"memref.alloc\(\).* : memref<\d+x\d+x32xf32>", ir_text)) == panels
    ref = _Conv(1, 1)
    for batch in (1, 7, 33):
        x = torch.randn(batch, cin, 9, 13)
        torch.testing.assert_close(program(x, w), ref(x, w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "cin, cout, kernel, stride, padding, dilation, hw, columns",
    [
        (3, 64, 7, 2, 3, 1, (224, 224), 7 * 112),  # ResNet's stem: 7 of 112 rows a block
        (3, 33, 7, 2, 3, 1, (113, 101), 19 * 51),  # 57 rows of 51: 3 blocks of 19 rows
        (5, 40, 3, 1, 2, 2, (200, 75), 8 * 75),  # dilated, padded: 25 blocks of 8 rows
        (64, 64, 3, 1, 1, 1, (56, 56), 14 * 56),  # ResNet's 56x56 3x3: ragged rows, K = 576
    ],
    ids=["resnet-stem", "odd", "dilated", "resnet-56"],
)
def test_a_large_im2col_copy_is_made_in_blocks_of_rows(
    cin, cout, kernel, stride, padding, dilation, hw, columns, tmp_path
):
    """An im2col copy over IM2COL_BLOCK_BYTES is made and multiplied a block of output rows
    at a time (rows_per_block: the fewest rows dividing OH of >= 512 columns), so each block
    is still in L2 when the kernel reads it (the stem's [147, 12544] copy went to L3 whole
    first: 1.45 -> 1.16 ms). Static and `?` batch at odd sizes, with a bias."""
    torch.manual_seed(0)
    model = torch.nn.Conv2d(cin, cout, kernel, stride, padding, dilation).eval()
    x = torch.randn(2, cin, *hw)
    for dynamic, program, ir_text in static_and_batch_dim(model, x, tmp_path):
        assert f"memref<{cin * kernel * kernel}x{columns}xf32>" in ir_text  # one block's copy
        for batch in (1, 3) if dynamic else (2,):
            x_b = torch.randn(batch, cin, *hw)
            with torch.no_grad():
                torch.testing.assert_close(program(x_b), model(x_b), rtol=1e-4, atol=1e-4)

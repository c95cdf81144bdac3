"""`cpu-vectorize-contractions`: products run as vector micro-kernels and equal eager on every
shape, the register block's remainders included."""

from __future__ import annotations

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.passes import b_panels
from tests.modules import Fn


def _compiled(fn, *args, tmp_path):
    program = aten_mlir.compile(torch.export.export(Fn(fn), args), dump_dir=tmp_path)
    assert program.fallbacks == []
    return program, (tmp_path / "05-vectorize.mlir").read_text()


def _check(fn, args, tmp_path, kernel_op):
    program, ir_text = _compiled(fn, *args, tmp_path=tmp_path)
    # sums of a few hundred f32 products, added in another order than eager's
    torch.testing.assert_close(program(*args), fn(*args), rtol=1e-4, atol=1e-4)
    # the product became the kernel: no reduction nest is left for the loops stage
    assert kernel_op in ir_text
    assert '"reduction"' not in ir_text and "linalg.matmul" not in ir_text


# (M, K, N): full register blocks, and every kind of remainder (rows, lanes, k)
SHAPES = [(1, 1, 1), (7, 5, 3), (8, 16, 32), (13, 300, 37), (64, 17, 48), (70, 260, 130)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_plain_product_is_the_outer_product_kernel(shape, dtype, tmp_path):
    m, k, n = shape
    a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
    _check(torch.mm, (a, b), tmp_path, "vector.broadcast")


def _transposed_kernel(m: int, k: int) -> str:
    """The dot kernel, unless k is short next to m: then the outer kernel, which needs no
    reduction across lanes, on B copied as [k, n] (under 64 rows) or on panels transposed from
    B's rows in registers (vector.shuffle)."""
    if k >= 3 * m:
        return "vector.reduction"
    return "vector.shuffle" if m >= 64 else "vector.broadcast"


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_transposed_weight_runs_the_dot_or_packed_kernel(shape, tmp_path):
    m, k, n = shape
    x, w, bias = torch.randn(m, k), torch.randn(n, k), torch.randn(n)
    _check(torch.nn.functional.linear, (x, w, bias), tmp_path, _transposed_kernel(m, k))


@pytest.mark.parametrize("shape", [(300, 530, 1100), (257, 256, 128)], ids=str)
def test_several_cache_blocks_of_b_panels(shape, tmp_path):
    """More rows than one panel block (256), k than one k block (256), columns than one n block
    (512 on AVX-512): B copied as panels per block, every block edge and remainder."""
    m, k, n = shape
    a, b = torch.randn(m, k), torch.randn(k, n)
    _check(torch.mm, (a, b), tmp_path, "vector.broadcast")


def test_a_transposed_left_operand_still_runs_the_outer_kernel(tmp_path):
    a, b = torch.randn(37, 19), torch.randn(37, 45)
    _check(lambda a, b: a.t() @ b, (a, b), tmp_path, "vector.broadcast")


@pytest.mark.parametrize("transposed", [False, True])
def test_batched_products_loop_over_the_batch(transposed, tmp_path):
    q, k = torch.randn(2, 3, 20, 24), torch.randn(2, 3, 24, 33)
    if transposed:
        k = k.transpose(-1, -2).contiguous()

        def fn(q, k):
            return q @ k.transpose(-1, -2)
    else:
        fn = torch.matmul
    _check(fn, (q, k), tmp_path, _transposed_kernel(20, 24) if transposed else "vector.broadcast")


def test_a_computed_operand_is_split_out_and_computed_once(tmp_path):
    x, w = torch.randn(9, 40), torch.randn(40, 21)
    program, ir_text = _compiled(lambda x, w: torch.tanh(x) @ w, x, w, tmp_path=tmp_path)
    torch.testing.assert_close(program(x, w), torch.tanh(x) @ w, rtol=1e-5, atol=1e-5)
    # the tanh runs once per element of x, in its own nest before the kernel
    assert ir_text.count("math.tanh") == 1
    assert ir_text.index("math.tanh") < ir_text.index("vector.fma")


def test_integer_products_stay_loop_nests(tmp_path):
    a, b = torch.randint(-5, 5, (6, 7)), torch.randint(-5, 5, (7, 5))
    program, ir_text = _compiled(torch.mm, a, b, tmp_path=tmp_path)
    assert torch.equal(program(a, b), a @ b)
    assert "vector.fma" not in ir_text


@pytest.mark.parametrize(
    "equation, shapes",
    [
        ("bsk,hdk->bshd", [(2, 5, 24), (3, 8, 24)]),  # a head-split projection: n is (h, d)
        ("bsk,hdk->bshd", [(2, 50, 24), (3, 8, 24)]),  # the same, B packed
        ("bhsd,nhd->bsn", [(2, 3, 5, 8), (24, 3, 8)]),  # heads merged
    ],
    ids=["split", "split-packed", "merge"],
)
def test_several_column_dims(equation, shapes, tmp_path):
    args = tuple(torch.randn(s) for s in shapes)
    program, ir_text = _compiled(lambda *a: torch.einsum(equation, *a), *args, tmp_path=tmp_path)
    torch.testing.assert_close(program(*args), torch.einsum(equation, *args), rtol=1e-4, atol=1e-4)
    assert "vector.fma" in ir_text and '"reduction"' not in ir_text


@pytest.mark.parametrize(
    "stride, dilation, padding",
    [(1, 1, 1), (1, 2, 2), (2, 1, 1)],
    ids=["3x3", "dilated", "strided"],
)
def test_wide_convolutions_run_the_outer_kernel_along_output_columns(
    stride, dilation, padding, tmp_path
):
    x, w = torch.randn(2, 5, 11, 37), torch.randn(9, 5, 3, 3)

    def conv(x, w):
        return torch.nn.functional.conv2d(x, w, stride=stride, padding=padding, dilation=dilation)

    program, ir_text = _compiled(conv, x, w, tmp_path=tmp_path)
    torch.testing.assert_close(program(x, w), conv(x, w), rtol=1e-4, atol=1e-4)
    assert "vector.fma" in ir_text and "linalg.conv_2d" not in ir_text
    # a stride of 2 along the output columns takes the image's even lanes (two loads and a
    # shuffle); it also halves the output rows to 19, narrower than the register block: those
    # run on an im2col copy
    assert ("vector.shuffle" in ir_text) == (stride != 1) and "vector.gather" not in ir_text
    assert ("memref.collapse_shape" in ir_text) == (stride != 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "shape, stride, dilation, padding",
    [
        ((2, 64, 4, 4), 1, 1, 1),  # rows of 4 in 16 lanes: ResNet's last stage
        ((1, 3, 9, 7), 1, 1, 0),  # rows shorter than a vector, every remainder of the block
        ((2, 16, 16, 16), 1, 1, 1),  # one vector per row: the copy fills the register block
        ((1, 5, 13, 41), 2, 1, 1),  # rows of 21: two vectors per row, gathered (stride 2)
        ((2, 4, 10, 12), 1, 2, 2),  # dilated
    ],
    ids=["4x4", "7-wide", "16-wide", "strided-21", "dilated"],
)
def test_narrow_convolutions_run_the_outer_kernel_on_an_im2col_copy(
    shape, stride, dilation, padding, dtype, tmp_path
):
    x = torch.randn(shape, dtype=dtype)
    w = torch.randn(11, shape[1], 3, 3, dtype=dtype)

    def conv(x, w):
        return torch.nn.functional.conv2d(x, w, stride=stride, padding=padding, dilation=dilation)

    program, ir_text = _compiled(conv, x, w, tmp_path=tmp_path)
    torch.testing.assert_close(program(x, w), conv(x, w), rtol=1e-4, atol=1e-4)
    assert "vector.broadcast" in ir_text and "vector.fma" in ir_text
    assert "linalg.conv_2d" not in ir_text
    # the filter and the output viewed as matrices over the copy's rows, when the output rows
    # are narrower than the register block's two vectors (f64 has half the lanes)
    narrow = conv(x, w).shape[-1] < 2 * (16 if dtype == torch.float32 else 8)
    assert ("memref.collapse_shape" in ir_text) == narrow


@pytest.mark.parametrize("shape", SHAPES + [(50, 33, 70), (250, 300, 150)], ids=str)
def test_the_avx2_register_blocks_equal_eager(shape, tmp_path, monkeypatch):
    """The 256-bit blocks (6 x 2 outer, 2 x 4 dot; cache blocks multiples of them), run here on
    whatever the host has: every remainder against eager."""
    from aten_mlir.backends.cpu.passes import contractions, kernels

    monkeypatch.setattr(contractions, "_blocking", lambda cpu: kernels.AVX2)
    m, k, n = shape
    a, b, w = torch.randn(m, k), torch.randn(k, n), torch.randn(n, k)

    def fn(a, b, w):
        return a @ b, a @ w.t()

    # not cached: a library built with the default blocks would be found by the same input
    ep = torch.export.export(Fn(fn), (a, b, w))
    program = aten_mlir.compile(ep, dump_dir=tmp_path, cache=False)
    ir_text = (tmp_path / "05-vectorize.mlir").read_text()
    ours = program(a, b, w)
    torch.testing.assert_close(ours, (a @ b, a @ w.t()), rtol=1e-4, atol=1e-4)
    assert "vector<8xf32>" in ir_text and "vector<16xf32>" not in ir_text


@pytest.mark.parametrize("m", [5, 6, 8])
def test_a_few_rows_are_one_dot_block(m, tmp_path):
    """Decode-shaped linears (M <= 8): all rows in one register block, so the weight streams
    once; every column and k remainder."""
    x, w = torch.randn(m, 300), torch.randn(37, 300)
    program, ir_text = _compiled(lambda x, w: x @ w.t(), x, w, tmp_path=tmp_path)
    torch.testing.assert_close(program(x, w), x @ w.t(), rtol=1e-4, atol=1e-4)
    # m x (4 or 2) accumulators in the k loop
    cols = 4 if m == 5 else 2
    assert f"-> ({', '.join(['vector<16xf32>'] * (m * cols))})" in ir_text


@pytest.mark.parametrize("m", [64, 100, 257])
@pytest.mark.parametrize(
    "k_n", [(1, 1), (7, 33), (17, 257), (33, 7), (100, 17), (20, 600)], ids=str
)
def test_panels_transposed_from_b_rows(m, k_n, tmp_path):
    """`q @ k.T` with k short next to m: panels copied from k's rows by 16 x 16 register
    transposes; odd n and k end in masked blocks (rows past n read nothing)."""
    k, n = k_n
    q, kt = torch.randn(2, m, k), torch.randn(2, n, k)
    _check(lambda q, kt: q @ kt.transpose(-1, -2), (q, kt), tmp_path, "vector.shuffle")


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (torch.mm, [(33, 257), (257, 17)]),
        (lambda x, w: x @ w.t(), [(7, 300), (33, 300)]),  # the dot kernel
        (lambda q, k: q @ k.transpose(-1, -2), [(2, 100, 17), (2, 33, 17)]),  # panels
    ],
    ids=["outer", "dot", "panels"],
)
def test_zero_fill_of_c_is_folded_into_the_kernel(fn, shapes, tmp_path):
    """C's zero fill before the product is dropped: the first k block starts from zeros."""
    args = [torch.randn(*s) for s in shapes]
    program, ir_text = _compiled(fn, *args, tmp_path=tmp_path)
    torch.testing.assert_close(program(*args), fn(*args), rtol=1e-4, atol=1e-4)
    assert "linalg.fill" not in ir_text


def test_a_conv_keeps_its_zero_fill(tmp_path):
    """The direct conv kernel loops over the window outside the kernel (sums across trips), so
    C is not written whole in one k block: the fill stays."""
    x, w = torch.randn(1, 5, 40, 40), torch.randn(6, 5, 3, 3)
    program, ir_text = _compiled(torch.nn.functional.conv2d, x, w, tmp_path=tmp_path)
    torch.testing.assert_close(
        program(x, w), torch.nn.functional.conv2d(x, w), rtol=1e-4, atol=1e-4
    )
    assert "linalg.fill" in ir_text


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(8, 300, 8), (13, 257, 37), (33, 100, 17)], ids=str)
def test_dot_kernel_sums_whole_blocks_in_vectors(shape, dtype, tmp_path):
    """The dot kernel's whole register blocks form their sums with shuffles and adds (one
    vector of sums per L accumulators, two for f64's 8 lanes), the remainders with reductions."""
    m, k, n = shape
    x, w = torch.randn(m, k, dtype=dtype), torch.randn(n, k, dtype=dtype)
    program, ir_text = _compiled(lambda x, w: x @ w.t(), x, w, tmp_path=tmp_path)
    torch.testing.assert_close(program(x, w), x @ w.t(), rtol=1e-4, atol=1e-4)
    assert "vector.shuffle" in ir_text and "vector.extract_strided_slice" in ir_text


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda q, k: q @ k.transpose(-1, -2), [(2, 100, 17), (2, 33, 17)]),  # 8 x 8 transposes
        (lambda x, w: x @ w.t(), [(13, 257), (37, 257)]),  # sums of 8 accumulators at once
    ],
    ids=["panels", "dot"],
)
def test_shuffle_kernels_on_avx2(fn, shapes, tmp_path, monkeypatch):
    """On a 256-bit target the register transposes and vector sums run on 8 lanes."""
    from aten_mlir.backends.cpu import native

    monkeypatch.setattr(native, "CPU", "x86-64-v3")
    args = [torch.randn(*s) for s in shapes]
    program, ir_text = _compiled(fn, *args, tmp_path=tmp_path)
    torch.testing.assert_close(program(*args), fn(*args), rtol=1e-4, atol=1e-4)
    assert "vector.shuffle" in ir_text and "vector<16xf32>" not in ir_text


@pytest.mark.parametrize("batch", [1, 3, 33, None], ids=["1", "3", "33", "dynamic"])
def test_narrow_convolutions_take_blocks_of_images(batch, tmp_path):
    """Narrow convs run on one im2col copy per block of images ([C*3*3, G*16] for 4x4 outputs,
    G = 64 // 16 or the batch), the filter read once per block; the first conv writes into the
    second's padded input (a view), the second into a plain output. A `?` batch: whole blocks,
    then one block of the rest (`conv_tail`), its C as wide as its images' whole vectors."""
    model = torch.nn.Sequential(
        torch.nn.Conv2d(13, 17, 3, padding=1, bias=False),
        torch.nn.ReLU(),
        torch.nn.Conv2d(17, 9, 3, padding=1, bias=False),
    ).eval()
    x = torch.randn(batch or 5, 13, 4, 4)
    dims = ({0: torch.export.Dim("b", min=1, max=64)},) if batch is None else None
    program = aten_mlir.compile(
        torch.export.export(model, (x,), dynamic_shapes=dims), dump_dir=tmp_path
    )
    ir_text = (tmp_path / "05-vectorize.mlir").read_text()
    assert "linalg.conv_2d" not in ir_text and "vector.fma" in ir_text
    g = min(4, batch or 4)
    assert f"memref<17x{g * 16}xf32>" in ir_text  # the block's C
    assert ("memref<17x?xf32>" in ir_text) == (batch is None)  # the block of the rest
    assert "memref<17x32xf32>" not in ir_text  # (no blocks of 2 images)
    for b in [batch] if batch else [1, 5, 33]:
        x = torch.randn(b, 13, 4, 4)
        with torch.no_grad():
            torch.testing.assert_close(program(x), model(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rows", [1, 7, 33, 100, 257, 1000])
@pytest.mark.parametrize("transposed", [False, True], ids=["a@b", "x@W.T"])
def test_b_panels_are_copied_once_per_block_of_b(rows, transposed, tmp_path, monkeypatch):
    """Several n blocks (1100 columns: 512, 512, 76), k blocks (530: 256, 256, 18) and m blocks
    (1000 rows: 8 of 128), each ending in a remainder: the copy of each [k, n] block of B sits
    in the n and k block loops only, before the m blocks (GotoBLAS's order), so B is copied
    once whatever the rows; under 64 rows a @ b reads B in place. x @ W.T takes the packed
    kernel with k short next to the rows (k < 3 rows), else the dot kernel."""
    # the panel path (an unaliased f32 B would be read in place: test_b_in_place.py)
    monkeypatch.setattr(b_panels, "IN_PLACE_UNALIASED_B", False)
    from tests.support.panel_loops import loops_around_copy_and_tiles

    k = 530 if not transposed or 530 < 3 * rows else 3 * rows - 1
    a = torch.randn(rows, k)
    if transposed:
        fn, b, kernel = (lambda x, w: x @ w.t()), torch.randn(1100, k), "vector.shuffle"
    else:
        fn, b, kernel = torch.mm, torch.randn(k, 1100), "vector.broadcast"
    _check(fn, (a, b), tmp_path, kernel)
    loops = loops_around_copy_and_tiles(tmp_path)
    if not transposed and rows < 64:
        assert loops is None
    else:  # a single-trip k loop (k <= 256) is folded away; an m loop around the copy is 3
        assert loops == (2 if k > 256 else 1)

"""`cpu-vectorize-contractions` on `?` dims: the micro-kernels read their trip counts at run
time, end each range in a masked or one-row remainder, and equal eager at every size from one
compile."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import b_panels
from tests.modules import Fn
from tests.support.dynamic_products import (
    ODD_SIZES,
    PRODUCTS,
    compile_product_any_size,
    inputs_at,
)

ANY = Dim("any", min=1, max=4096)


def _vector_ir(tmp_path) -> str:
    text = (tmp_path / "05-vectorize.mlir").read_text()
    # the product became a kernel on the dynamic memrefs, not a scalar reduction nest
    assert "vector.fma" in text
    assert '"reduction"' not in text and "linalg.matmul" not in text
    assert "memref.dim" in text
    return text


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_dynamic_products_equal_eager_at_odd_sizes(name, tmp_path):
    compiled, fn = compile_product_any_size(name, "cpu", dump_dir=tmp_path, cache=False)
    _vector_ir(tmp_path)
    # one operand gathered (a copy read at computed indices) would be a load in the body
    assert "linalg.index" not in (tmp_path / "04-bufferize.mlir").read_text()
    for size, batch in zip(ODD_SIZES, (1, 3, 8, 2, 5, 1)):
        args = inputs_at(name, size, batch)
        torch.testing.assert_close(compiled(*args), fn(*args), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["attention_scores", "einsum"])
def test_batches_that_differ_are_refused(name):
    """The kernels read both operands with one batch size: export's guard (one symbol on both
    batch dims) refuses a call whose batches differ, before any read."""
    compiled, _ = compile_product_any_size(name, "cpu", cache=False)
    q, k = inputs_at(name, 7, 3)
    with pytest.raises(ValueError):
        compiled(q, k[:2])


def _scores(q, k):
    return q @ k.transpose(-1, -2)


@pytest.mark.parametrize("fn, value_dim", [(_scores, 8), (torch.matmul, None)], ids=["qk", "pv"])
def test_dynamic_attention_sequence(fn, value_dim, tmp_path):
    """`q @ k.T` and `p @ v` with the sequence `?` in both dims of the scores."""
    seq = Dim("seq", min=1, max=4096)

    def make(s):
        q = torch.randn(2, 3, s, 8)
        return (q, torch.randn(2, 3, s, 8)) if value_dim else (torch.randn(2, 3, s, s), q)

    dynamic = ({2: seq}, {2: seq}) if value_dim else ({2: seq, 3: seq}, {2: seq})
    ep = torch.export.export(Fn(fn), make(5), dynamic_shapes=(dynamic,))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    _vector_ir(tmp_path)
    for size in ODD_SIZES:
        args = make(size)
        torch.testing.assert_close(compiled(*args), fn(*args), rtol=1e-4, atol=1e-4)


def _linear(x, w):
    return x @ w.t()


# (fn, example inputs, dynamic dims per input, inputs at size s): every dim of the product `?`
CASES = {
    "mm": (torch.mm, lambda m, k, n: (torch.randn(m, k), torch.randn(k, n)), ((0, 1), (0, 1))),
    "linear": (_linear, lambda m, k, n: (torch.randn(m, k), torch.randn(n, k)), ((0, 1), (1, 0))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_all_dims_dynamic(name, tmp_path):
    fn, make, axes = CASES[name]
    m, k, n = Dim("m", min=1, max=4096), Dim("k", min=1, max=4096), Dim("n", min=1, max=4096)
    order = {"mm": ((m, k), (k, n)), "linear": ((m, k), (n, k))}[name]
    dynamic = tuple(dict(enumerate(dims)) for dims in order)
    ep = torch.export.export(Fn(fn), make(5, 40, 37), dynamic_shapes=(dynamic,))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = _vector_ir(tmp_path)
    assert "vector.create_mask" in text  # the column or k remainder: lanes masked at run time
    for shape in [(1, 1, 1), (7, 17, 33), (100, 257, 17), (33, 100, 257), (17, 7, 100)]:
        args = make(*shape)
        torch.testing.assert_close(compiled(*args), fn(*args), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("k", [512, 20])
def test_linear_with_a_dynamic_batch(k, tmp_path):
    """A Linear on `[?, k]`: the dot kernel (k long) or B packed (k short), remainders at run
    time."""
    layer = torch.nn.Linear(k, 45)
    ep = torch.export.export(layer, (torch.randn(5, k),), dynamic_shapes=({0: ANY},))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = _vector_ir(tmp_path)
    # the dot kernel at least (few rows); B^T packed too when rows may reach k / 3, chosen at
    # run time (kernel_choice)
    assert "vector.reduction" in text
    with torch.no_grad():
        for size in ODD_SIZES:
            x = torch.randn(size, k)
            torch.testing.assert_close(compiled(x), layer(x), rtol=1e-4, atol=1e-4)


def test_a_dynamic_batch_convolution(tmp_path):
    conv = torch.nn.Conv2d(5, 7, 3, padding=1, bias=False)
    for width in (6, 40):  # im2col (rows narrower than the block), and the direct kernel
        ep = torch.export.export(conv, (torch.randn(2, 5, 9, width),), dynamic_shapes=({0: ANY},))
        compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
        _vector_ir(tmp_path)
        with torch.no_grad():
            for batch in (1, 3):
                x = torch.randn(batch, 5, 9, width)
                torch.testing.assert_close(compiled(x), conv(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("transposed", [False, True], ids=["a@b", "x@W.T"])
def test_b_panels_copied_once_with_dynamic_rows(transposed, tmp_path, monkeypatch):
    """`?` rows over several n blocks (1100 columns) and k blocks (530): the copy of each block
    of B sits in the n and k block loops only, before the loop over m blocks (GotoBLAS's
    order); every row count from one compile equals eager, 1000 rows making 4 m blocks."""
    # the panel path (an unaliased f32 B would be read in place: test_b_in_place.py)
    monkeypatch.setattr(b_panels, "IN_PLACE_UNALIASED_B", False)
    from tests.support.panel_loops import loops_around_copy_and_tiles

    b = torch.randn(1100, 530) if transposed else torch.randn(530, 1100)
    fn = (lambda x, w: x @ w.t()) if transposed else torch.mm
    ep = torch.export.export(Fn(fn), (torch.randn(300, 530), b), dynamic_shapes=(({0: ANY}, None),))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    _vector_ir(tmp_path)
    assert loops_around_copy_and_tiles(tmp_path) == 2
    for size in (*ODD_SIZES, 1000):
        a = torch.randn(size, 530)
        torch.testing.assert_close(compiled(a, b), fn(a, b), rtol=1e-4, atol=1e-4)


def _attention_chain(q, k, v):
    return (q @ k.transpose(-1, -2)) @ v


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_attention_products_at_odd_sequences(dtype, tmp_path):
    """dyn_attention's products, [b, 8, s, 64] with batch and sequence `?`: `q @ k.T` (rows and
    columns `?`; A copied as strips from 512 columns on, decided at run time) and `@ v` (rows and
    k `?`, C's zero fill folded into the kernel but for k = 0), one compile, at sequences below,
    across and past every block, against eager."""
    seq, batch = Dim("seq", min=1, max=1024), Dim("batch", min=1, max=64)

    def make(b, s):
        g = torch.Generator().manual_seed(s)
        return tuple((torch.randn(b, 8, s, 64, generator=g) / 8).to(dtype) for _ in range(3))

    dynamic = tuple({0: batch, 2: seq} for _ in range(3))
    ep = torch.export.export(Fn(_attention_chain), make(2, 5), dynamic_shapes=(dynamic,))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    text = _vector_ir(tmp_path)
    if dtype == torch.float32:  # (bf16 products run kernels of their own)
        # the one fill left is `@ v`'s, under the k = 0 test
        assert re.search(r"scf\.if %\w+ \{\s*linalg\.fill", text), text
        assert text.count("linalg.fill") == 1
    tol = {} if dtype == torch.float32 else {"rtol": 2e-2, "atol": 2e-2}
    # (520: q copied as strips, from 512 columns; below: read in place)
    for b, s in ((1, 1), (2, 7), (1, 33), (1, 77), (2, 129), (1, 200), (1, 520)):
        args = make(b, s)
        expected = _attention_chain(*(x.double() for x in args)).to(dtype)
        torch.testing.assert_close(compiled(*args), expected, **tol)


def test_an_empty_dynamic_k_gives_zeros(tmp_path):
    """`x.T @ g` (a weight gradient: k the `?` tokens) called with no tokens: no k block runs,
    so C is the zero fill kept under the k = 0 test, not uninitialized memory."""
    tokens = Dim("tokens", max=4096)
    ep = torch.export.export(
        Fn(lambda x, g: x.t() @ g),
        (torch.randn(9, 40), torch.randn(9, 37)),
        dynamic_shapes=(({0: tokens}, {0: tokens}),),
    )
    compiled = aten_mlir.compile(ep, target="cpu", cache=False)
    for t in (0, 1, 7, 33):
        x, g = torch.randn(t, 40), torch.randn(t, 37)
        torch.testing.assert_close(compiled(x, g), x.t() @ g, rtol=1e-4, atol=1e-4)

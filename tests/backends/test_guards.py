"""Call-time guards (`backends/guards.py`): a compiled program refuses the calls `ep.module()`
refuses (sizes sharing a `Dim`, `Dim` ranges, derived dims, dims static at export, specialised
non-tensor arguments, the tracer's own shape guards) with one `ValueError` naming the argument
and the dim, on both targets and on a program loaded from the cache."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim, export

import aten_mlir
from aten_mlir.backends import guards
from tests.support.triton import triton_interpreter  # noqa: F401  (a fixture)


def compile_uncached(program, **options):
    """A fresh compile: the guards under test come from this program, not an earlier run's."""
    return aten_mlir.compile(program, cache=False, **options)


class Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


def shared_dim(**range_):
    s = Dim("s", **range_)
    return export(
        Add(), (torch.randn(4, 4), torch.randn(4, 4)), dynamic_shapes={"x": {0: s}, "y": {0: s}}
    )


@pytest.mark.parametrize("target", ["cpu", "triton"])
def test_inputs_sharing_a_dim_must_agree(target, request):
    if target == "triton":
        request.getfixturevalue("triton_interpreter")
    compiled = compile_uncached(shared_dim(), target=target)
    x, y = torch.randn(6, 4), torch.randn(6, 4)
    torch.testing.assert_close(compiled(x, y), x + y)
    # was: reads y out of bounds and returns garbage
    with pytest.raises(ValueError, match=r"argument 'y' dim 0: expected 2000 .*'x' dim 0.*got 2"):
        compiled(torch.randn(2000, 4), torch.randn(2, 4))


def test_dim_range_is_checked():
    compiled = compile_uncached(shared_dim(min=3, max=100))
    x = torch.randn(100, 4)
    torch.testing.assert_close(compiled(x, x), x + x)
    with pytest.raises(ValueError, match=r"argument 'x' dim 0: .*\[3, 100\].*got 101"):
        compiled(torch.randn(101, 4), torch.randn(101, 4))
    with pytest.raises(ValueError, match=r"argument 'x' dim 0: .*\[3, 100\].*got 2"):
        compiled(torch.randn(2, 4), torch.randn(2, 4))


def test_sizes_0_and_1_pass_as_in_ep_module_but_not_a_bad_relation():
    """torch lets a Dim whose lower bound is 2 or less take 0 and 1 at run time."""
    ep = shared_dim()
    compiled = compile_uncached(ep)
    for n in (0, 1):
        x = torch.randn(n, 4)
        torch.testing.assert_close(compiled(x, x), ep.module()(x, x))
    with pytest.raises(ValueError, match=r"argument 'y' dim 0: expected 1 .*got 0"):
        compiled(torch.randn(1, 4), torch.randn(0, 4))


class Batched(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(x).relu()


def test_dynamic_batch_keeps_its_other_dims_static():
    model = Batched()
    ep = export(model, (torch.randn(4, 8),), dynamic_shapes={"x": {0: Dim("batch", max=64)}})
    compiled = compile_uncached(ep)
    for n in (2, 33):
        x = torch.randn(n, 8)
        torch.testing.assert_close(compiled(x), model(x))
    with pytest.raises(ValueError, match=r"argument 'x': expected tensor<\?x8xf32>.*dim 1 was 8"):
        compiled(torch.randn(4, 9))
    with pytest.raises(ValueError, match=r"argument 'x' dim 0: .*\[0, 64\].*got 65"):
        compiled(torch.randn(65, 8))


class Attention(torch.nn.Module):
    def forward(self, q, k, mask):
        return torch.softmax(q @ k.transpose(1, 2) + mask, dim=-1)


def test_dynamic_sequence_at_two_sizes_and_a_mismatch():
    seq = Dim("seq", max=128)
    args = (torch.randn(2, 16, 8), torch.randn(2, 16, 8), torch.randn(2, 16, 16))
    ep = export(
        Attention(),
        args,
        dynamic_shapes={"q": {1: seq}, "k": {1: seq}, "mask": {1: seq, 2: seq}},
    )
    compiled = compile_uncached(ep)
    for n in (5, 40):
        q, k, mask = torch.randn(2, n, 8), torch.randn(2, n, 8), torch.randn(2, n, n)
        torch.testing.assert_close(compiled(q, k, mask), Attention()(q, k, mask))
    with pytest.raises(ValueError, match=r"argument 'mask' dim 2: expected 5 .*got 7"):
        compiled(torch.randn(2, 5, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 7))


class Pairs(torch.nn.Module):
    def forward(self, x, y):
        return x.reshape(-1, 2).sum(1) + y


def derived(d):
    return export(
        Pairs(), (torch.randn(8), torch.randn(4)), dynamic_shapes={"x": {0: 2 * d}, "y": {0: d}}
    )


def test_derived_dim_relation_and_range():
    compiled = compile_uncached(derived(Dim("d", max=50)))
    x, y = torch.randn(10), torch.randn(5)
    torch.testing.assert_close(compiled(x, y), Pairs()(x, y))
    with pytest.raises(ValueError, match=r"argument 'x' dim 0: expected 8 \(2\*s\d+ where"):
        compiled(torch.randn(9), torch.randn(4))
    with pytest.raises(ValueError, match=r"argument 'x' dim 0: .*\[0, 100\] of 2\*s\d+.*got 102"):
        compiled(torch.randn(102), torch.randn(51))


class Twice(torch.nn.Module):
    def forward(self, x):
        return x.reshape(-1, 2).sum(1)


def test_a_derived_dim_alone_must_have_its_form():
    """Only `2*d` is an input size: `d` is solved from it, and an odd size is refused."""
    d = Dim("d", max=50)
    compiled = compile_uncached(export(Twice(), (torch.randn(8),), dynamic_shapes=({0: 2 * d},)))
    torch.testing.assert_close(compiled(torch.ones(6)), torch.full((3,), 2.0))
    with pytest.raises(ValueError, match=r"dim 0: expected a size of the form 2\*s\d+.*got 7"):
        compiled(torch.ones(7))


class NotSeven(torch.nn.Module):
    def forward(self, x):
        torch._check(x.shape[0] != 7)
        return x + 1


def test_the_tracers_guards_are_checked():
    ep = export(NotSeven(), (torch.randn(16),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    compiled = compile_uncached(ep)
    torch.testing.assert_close(compiled(torch.zeros(8)), torch.ones(8))
    with pytest.raises(ValueError, match=r"x.size\(\)\[0\] != 7 \(got sizes x \[7\]\)"):
        compiled(torch.zeros(7))


class Scale(torch.nn.Module):
    def forward(self, x, n: int, *, mode: str = "sum"):
        return x * n if mode == "mul" else x + n


def test_specialised_non_tensor_arguments_are_checked():
    ep = export(Scale(), (torch.randn(3), 3), {"mode": "mul"})
    compiled = compile_uncached(ep)
    x = torch.randn(3)
    torch.testing.assert_close(compiled(x, 3, mode="mul"), x * 3)
    # was: returned x * 3
    with pytest.raises(ValueError, match=r"argument 'n': expected 3 .*got 5"):
        compiled(x, 5, mode="mul")
    with pytest.raises(ValueError, match=r"argument 'n': expected 3 .*got 3.0"):
        compiled(x, 3.0, mode="mul")
    with pytest.raises(ValueError, match=r"argument 'mode': expected 'mul' .*got 'sum'"):
        compiled(x, 3, mode="sum")


def check_guards(compiled) -> None:
    assert compiled.from_cache
    x = torch.randn(5, 4)
    torch.testing.assert_close(compiled(x=x, y=x), x + x)
    with pytest.raises(ValueError, match=r"argument 'y' dim 0: expected 2000"):
        compiled(torch.randn(2000, 4), torch.randn(2, 4))
    with pytest.raises(ValueError, match=r"argument 'x' dim 0: .*\[0, 100\].*got 101"):
        compiled(torch.randn(101, 4), torch.randn(101, 4))


def test_guards_hold_on_a_program_loaded_by_its_ir(tmp_path):
    assert not aten_mlir.compile(
        aten_mlir.import_program(shared_dim(max=100)), cache_dir=tmp_path
    ).from_cache
    check_guards(
        aten_mlir.compile(aten_mlir.import_program(shared_dim(max=100)), cache_dir=tmp_path)
    )


def test_guards_hold_on_a_program_loaded_by_its_export(tmp_path):
    """A fresh export hits the entry keyed before import: its Signature is rebuilt from `ep`."""
    assert not aten_mlir.compile(shared_dim(max=100), cache_dir=tmp_path).from_cache
    check_guards(aten_mlir.compile(shared_dim(max=100), cache_dir=tmp_path))


@pytest.mark.parametrize(
    "index",
    [
        torch.tensor(5),
        torch.tensor([[3, -2, 9]]),
        torch.arange(24).view(4, 6)[:, 1],  # not contiguous: aminmax
        torch.arange(-30, 70),  # more than the memoryview path reads
        torch.tensor([[1, 2], [3, -4]], dtype=torch.int32)[1:],  # offset into its storage
        torch.tensor([-7, 5], dtype=torch.int8),
        torch.tensor([200, 7], dtype=torch.uint8),
        torch.tensor([2**40, -(2**40)]),
    ],
)
def test_index_range_reads_the_true_extremes(index):
    assert guards._index_range(index) == (int(index.min()), int(index.max()))


@pytest.mark.parametrize("dynamic", [False, True])
def test_a_user_index_at_the_tables_size_raises_before_the_call(dynamic):
    table = torch.nn.Embedding(10, 4)
    ids = torch.tensor([[1, 9, 0]])
    shapes = ({1: Dim("s", min=1, max=32)},) if dynamic else None
    compiled = compile_uncached(export(table, (ids,), dynamic_shapes=shapes))
    assert len(compiled._guards.index_checks) == 1
    torch.testing.assert_close(compiled(ids), table(ids))
    for bad in (10, -1, 2**40):
        with pytest.raises(IndexError, match=f"index {bad} is out of range"):
            compiled(torch.tensor([[1, bad, 0]]))


def test_a_static_dim_is_checked_at_sizes_seen_before_and_at_new_ones():
    """The static dims of a dynamic program are checked with its sizes, once per distinct set of
    input sizes: a bad one is refused on every call, also after good calls of the same batch."""
    ep = export(Add(), (torch.randn(4, 3), torch.randn(4, 3)), dynamic_shapes=_batch_only())
    compiled = compile_uncached(ep)
    for batch in (2, 7, 2):
        x = torch.randn(batch, 3)
        torch.testing.assert_close(compiled(x, x), x + x)
        for _ in range(2):
            with pytest.raises(ValueError, match=r"argument 'y'.*dim 1 was 3"):
                compiled(x, torch.randn(batch, 4))
        with pytest.raises(ValueError, match="argument 'y'"):
            compiled(x, torch.randn(batch, 3, dtype=torch.float64))


def _batch_only():
    b = Dim("b", min=1, max=64)
    return {"x": {0: b}, "y": {0: b}}

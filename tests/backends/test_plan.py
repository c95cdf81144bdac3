"""`backends/plan.py`: `@main` as one native call on the user inputs runs without its slots (the
direct call), other programs through the steps, both giving eager's answer; the returned pytree is
rebuilt as the module's (`runtime._packer`)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim, export

import aten_mlir
from tests.modules import Fn


def _compiled(f, args, dynamic_shapes=None):
    ep = export(Fn(f), args, dynamic_shapes=dynamic_shapes)
    return aten_mlir.compile(ep, target="cpu", cache=False)


def test_one_native_call_runs_directly_at_every_size():
    w = torch.randn(8, 8)

    def f(x, i):
        return torch.softmax(x @ w, -1) * 2, x.sum() + 1, i + 1

    n = Dim("n", min=1, max=64)
    args = (torch.randn(5, 8), torch.arange(5))
    compiled = _compiled(f, args, (({0: n}, {0: n}),))
    assert compiled._plan.direct is not None and compiled._fresh_outputs == [0, 1, 2]
    for rows in (1, 7, 33):
        x, i = torch.randn(rows, 8), torch.arange(rows)
        got = compiled(x, i)
        assert isinstance(got, tuple) and len(got) == 3
        for g, want in zip(got, f(x, i)):
            torch.testing.assert_close(g, want)
            assert g.data_ptr() not in (x.data_ptr(), i.data_ptr(), w.data_ptr())


def test_bool_inputs_and_outputs_run_directly():
    """Bool tensors cross native calls as i8 bytes: the direct call views the bool input as
    int8 (`_storage_view`) and the bool result is wrapped as bool (`NativeFunction.wrap_as`)."""

    def f(x, m):
        return torch.where(m, x, -x), m & (x > 0)

    compiled = _compiled(f, (torch.randn(6), torch.rand(6) > 0.5))
    assert compiled._plan.direct is not None and compiled._fresh_outputs is not None
    for _ in range(3):
        x, m = torch.randn(6), torch.rand(6) > 0.5
        got = compiled(x, m)
        for g, want in zip(got, f(x, m)):
            assert g.dtype == want.dtype and torch.equal(g, want)
        assert got[1].data_ptr() != m.data_ptr()


def test_bool_and_unsigned_inputs_alone_run_directly_as_their_bytes():
    """Only the inputs narrow: their lowered types are signless ints (a bool's is i8), so the
    direct call must view them from the declared dtypes, not the lowered ones (888b39e passed
    the bool tensor as is and the call raised)."""
    x = torch.randn(5)
    for extra in (x > 0, torch.randint(0, 255, (5,), dtype=torch.uint8)):

        def f(x, m):
            return torch.where(m.bool(), x, 0.0) * 2

        compiled = _compiled(f, (x, extra))
        _, order, views, _ = compiled._plan.direct
        assert [order[i] for i in views] == [1]  # the user input viewed as int8 is `m`
        torch.testing.assert_close(compiled(x, extra), f(x, extra))
        with pytest.raises(ValueError, match="'args_1'.*torch.int8"):  # declared, not its bytes'
            compiled(x, extra.view(torch.int8))


def test_an_input_returned_as_is_goes_through_the_steps():
    def f(x):
        return x, x * 3

    compiled = _compiled(f, (torch.randn(4),))
    assert compiled._plan.direct is None
    x = torch.randn(4)
    same, tripled = compiled(x)
    assert torch.equal(same, x) and same.data_ptr() != x.data_ptr()
    torch.testing.assert_close(tripled, x * 3)


def test_outputs_keep_the_modules_structure():
    def leaf(x):
        return x + 1

    def nested(x):
        return {"a": x + 1, "b": [x * 2, 3]}

    x = torch.randn(3)
    got = _compiled(leaf, (x,))(x)
    assert isinstance(got, torch.Tensor) and torch.equal(got, x + 1)
    got = _compiled(nested, (x,))(x)
    assert set(got) == {"a", "b"} and got["b"][1] == 3
    torch.testing.assert_close(got["a"], x + 1)
    torch.testing.assert_close(got["b"][0], x * 2)


class _Returns(torch.nn.Module):
    """Outputs that may come back as an argument's buffer: the weight, a view of the input."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 3))

    def forward(self, x):
        return self.w.clone(), x.view(3, 4), x.reshape(-1)[2:], x * 2


def test_outputs_never_share_storage_with_an_input_or_the_state():
    module, x = _Returns(), torch.randn(4, 3)
    compiled = aten_mlir.compile(export(module, (x,)), target="cpu", cache=False)
    got = compiled(x)
    want = module(x)
    taken = {x.untyped_storage().data_ptr(), module.w.untyped_storage().data_ptr()}
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
        assert g.untyped_storage().data_ptr() not in taken

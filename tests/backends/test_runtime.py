"""`CompiledProgram.__call__`: arguments bound like the module's forward (positional, by name,
keyword-only, nested), readable errors naming the argument, a mutated input aliased by another
input, inputs that require grad, parameters replaced after compile."""

from __future__ import annotations

import time
import warnings

import pytest
import torch
from torch.export import export

import aten_mlir


def compile_uncached(program, **options):
    return aten_mlir.compile(program, cache=False, **options)


class Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


@pytest.fixture(scope="module")
def add():
    return compile_uncached(export(Add(), (torch.randn(3), torch.randn(3))))


def test_positional_arguments_can_be_passed_by_name(add):
    x, y = torch.randn(3), torch.randn(3)
    for args, kwargs in [((), {"x": x, "y": y}), ((), {"y": y, "x": x}), ((x,), {"y": y})]:
        torch.testing.assert_close(add(*args, **kwargs), x + y)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((1,), {}, r"missing argument 'y'; exported as \(x, y\)"),
        ((1, 2, 3), {}, "takes 2 positional argument"),
        ((1,), {"x": 2}, "multiple values for argument 'x'"),
        ((1, 2), {"z": 3}, "unexpected keyword argument.*'z'"),
    ],
)
def test_a_call_of_another_shape_is_one_readable_line(add, args, kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        add(*args, **kwargs)
    assert "TreeSpec" not in str(info.value) and "\n" not in str(info.value)


def test_type_errors_name_the_argument(add):
    x = torch.randn(3)
    with pytest.raises(ValueError, match=r"argument 'y': expected tensor<3xf32> \(torch.float32"):
        add(x, x.double())
    with pytest.raises(ValueError, match=r"argument 'y': expected tensor<3xf32>.*got \[3, 1\]"):
        add(x, x[:, None])
    with pytest.raises(ValueError, match=r"argument 'x': expected a tensor .*got int"):
        add(1, x)
    with pytest.raises(ValueError, match="argument 'x': expected tensor<3xf32>.*dim 0 was 3"):
        add(torch.randn(4), x)
    with pytest.raises(ValueError, match="argument 'y' is on meta"):
        add(x, torch.empty(3, device="meta"))


class Nested(torch.nn.Module):
    def forward(self, x, ys, *, shift):
        return x + ys[0] + ys[1]["k"] * shift


def test_nested_and_keyword_only_arguments():
    t = torch.ones(3)
    ep = export(Nested(), (t, [t, {"k": t}]), {"shift": t})
    compiled = compile_uncached(ep)
    expected = torch.full((3,), 3.0)
    torch.testing.assert_close(compiled(t, [t, {"k": t}], shift=t), expected)
    torch.testing.assert_close(compiled(shift=t, ys=[t, {"k": t}], x=t), expected)
    with pytest.raises(ValueError, match=r"argument 'ys' is \[\*, \*\], exported as \[\*, "):
        compiled(t, [t, t], shift=t)
    with pytest.raises(ValueError, match=r"argument ys\[1\]\['k'\]: expected tensor<3xf32>"):
        compiled(t, [t, {"k": t.double()}], shift=t)
    with pytest.raises(ValueError, match=r"takes 2 positional .*exported as \(x, ys=.*\*, shift\)"):
        compiled(t, [t, {"k": t}], t)


class Options(torch.nn.Module):
    def forward(self, x, opts):
        return x * opts["scale"] + opts["shift"]


def test_dict_arguments_match_by_key_in_any_order():
    x, scale, shift = torch.randn(3), torch.randn(3), torch.randn(3)
    compiled = compile_uncached(export(Options(), (x, {"scale": scale, "shift": shift})))
    torch.testing.assert_close(compiled(x, {"shift": shift, "scale": scale}), x * scale + shift)


class AddInto(torch.nn.Module):
    def forward(self, a, b):
        a.add_(b)
        return b * 2


def test_a_mutated_input_aliased_by_another_runs_as_eager():
    ep = export(AddInto(), (torch.ones(3), torch.ones(3)))
    compiled = compile_uncached(aten_mlir.import_program(ep))  # no module to run eagerly
    a, b = torch.ones(3), torch.ones(3)
    torch.testing.assert_close(compiled(a, b), torch.full((3,), 2.0))
    assert torch.equal(a, torch.full((3,), 2.0))
    t = torch.ones(6)  # views of one storage that do not overlap are not aliases
    torch.testing.assert_close(compiled(t[:3], t[3:]), torch.full((3,), 2.0))
    assert t.tolist() == [2.0] * 3 + [1.0] * 3
    t = torch.ones(3)
    # was: 2 (the compiled graph read b before the write through a)
    with pytest.raises(ValueError, match="'a' is written by the program and shares memory with"):
        compiled(t, t)
    compiled = compile_uncached(ep)  # from the ExportedProgram: such a call runs ep.module()
    for b_of in (lambda t: t, lambda t: t.view(3)):
        t, e = torch.ones(3), torch.ones(3)
        torch.testing.assert_close(compiled(t, b_of(t)), AddInto()(e, b_of(e)))
        assert torch.equal(t, e)


class Accumulate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.ones(3))

    def forward(self, x):
        self.total.add_(x)
        return x * 2


def test_an_input_aliasing_a_mutated_buffer_runs_as_eager():
    ep = export(Accumulate(), (torch.ones(3),))
    compiled = compile_uncached(aten_mlir.import_program(ep))
    with pytest.raises(ValueError, match="buffer 'total' is written .* argument 'x'"):
        compiled(compiled.state["total"])
    compiled = compile_uncached(ep)
    # was: 2 (x read before the write to total); eager reads x after it: (1 + 1) * 2
    torch.testing.assert_close(compiled(compiled.state["total"]), torch.full((3,), 4.0))
    assert torch.equal(ep.state_dict["total"], torch.full((3,), 2.0))


def test_parameters_updated_in_place_are_seen_and_replaced_ones_refused():
    """The state is bound once: in-place updates (an optimizer step, `load_state_dict`) reach
    the compiled code; a parameter given new storage (`.to(dtype)`, `.data =`) would hand it a
    buffer of another size or type, so the call raises instead of reading out of bounds."""
    model = torch.nn.Linear(16, 8)
    x = torch.randn(4, 16)
    compiled = compile_uncached(export(model, (x,)))
    with torch.no_grad():
        model.weight.mul_(3)
    torch.testing.assert_close(compiled(x), model(x))
    model.load_state_dict(torch.nn.Linear(16, 8).state_dict())
    torch.testing.assert_close(compiled(x), model(x))
    with torch.no_grad():
        model.weight.data = torch.randn(2, 2)
    with pytest.raises(RuntimeError, match=r"parameter 'weight' was replaced after compile"):
        compiled(x)
    model.bfloat16()
    with pytest.raises(RuntimeError, match=r"was replaced after compile .*torch.bfloat16"):
        compiled(x)


def test_requires_grad_warns_once(add):
    x = torch.randn(3, requires_grad=True)
    fresh = compile_uncached(export(Add(), (torch.randn(3), torch.randn(3))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fresh(x, x.detach())
        fresh(x, x.detach())
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert len(messages) == 1 and "input 'x' requires grad" in messages[0]
    assert "gradients are not tracked" in messages[0]


def test_a_call_costs_little_more_than_running_the_plan(add):
    """The guards run on plain ints: a call of a two-input program stays within a few
    microseconds of the plan alone (generous bound: the machine is shared)."""
    x, y = torch.randn(3), torch.randn(3)

    def best(fn, n=2000):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            times.append((time.perf_counter() - start) / n)
        return min(times)

    checks = best(lambda: add._guards.check((x, y)))
    assert checks < 20e-6, f"guards take {checks * 1e6:.1f} us per call"

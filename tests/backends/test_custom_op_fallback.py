"""A custom op (`torch.library`) in a model runs as one eager step between native segments,
through `aten_mlir.compile(torch.export.export(...))` and `torch.compile(backend="aten_mlir")`,
and is reported by its name (backends/partition.py, plan.py, dynamo.py); results against eager."""

from __future__ import annotations

import logging

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch._dynamo.utils import counters
from torch.export import Dim

import aten_mlir
from aten_mlir.tests.support.dynamo import compiled, fresh_dynamo, train_both
from aten_mlir.tests.support.triton import triton_interpreter  # noqa: F401 (fixture)

SIZES = (1, 7, 33)


@torch.library.custom_op("aten_mlir_be::shifted", mutates_args=())
def shifted(x: torch.Tensor, k: int, s: float) -> torch.Tensor:
    return x.roll(k, dims=-1) * s + 1.0


@shifted.register_fake
def _(x, k, s):
    return torch.empty_like(x)


@torch.library.custom_op("aten_mlir_be::split_stats", mutates_args=())
def split_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.amax(-1), x.sum(-1, keepdim=True)


@split_stats.register_fake
def _(x):
    return x.new_empty(x.shape[:-1]), x.new_empty((*x.shape[:-1], 1))


@torch.library.custom_op("aten_mlir_be::window", mutates_args=())
def window(x: torch.Tensor, sizes: list[int], scale: float) -> torch.Tensor:
    return x[..., : sizes[0]] * scale + x[..., sizes[1] : sizes[1] + sizes[0]]


@window.register_fake
def _(x, sizes, scale):
    return x.new_empty((*x.shape[:-1], sizes[0]))


@torch.library.custom_op("aten_mlir_be::cube", mutates_args=())
def cube(x: torch.Tensor) -> torch.Tensor:
    return x * x * x


@cube.register_fake
def _(x):
    return torch.empty_like(x)


def _cube_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 3 * x * x


def _cube_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


torch.library.register_autograd("aten_mlir_be::cube", _cube_backward, setup_context=_cube_setup)


@torch.library.custom_op("aten_mlir_be::strict_log", mutates_args=())
def strict_log(x: torch.Tensor) -> torch.Tensor:
    if (x <= 0).any():
        raise ValueError("strict_log of a value <= 0")
    return x.log()


@strict_log.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("aten_mlir_be::roll_rows", mutates_args=())
def roll_rows(x: torch.Tensor, k: int) -> torch.Tensor:
    return x.roll(k, 0)


@roll_rows.register_fake
def _(x, k):
    return torch.empty_like(x)


class Middle(nn.Module):
    """Native work on both sides of the custom op."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 8), nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(shifted(torch.tanh(self.fc1(x)), 3, 0.5)).relu()


class Tupled(nn.Module):
    def forward(self, x):
        top, total = split_stats(x.exp())
        return top.sin() + total.squeeze(-1), total * 2


class Windowed(nn.Module):
    def forward(self, x):
        return window(x * 2, [3, 4], 0.25).cos()


class Cubed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 12), nn.Linear(12, 3)

    def forward(self, x):
        return self.fc2(cube(torch.tanh(self.fc1(x))))


class Rolled(nn.Module):
    """An int argument computed from a size (a runtime scalar with a batch Dim)."""

    def forward(self, x):
        return roll_rows(x.sin(), x.shape[0] - 1).cos()


def _close(got, want):
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def _export(model, x, dynamic: bool):
    shapes = ({0: Dim("batch", min=1, max=64)},) if dynamic else None
    return torch.export.export(model, (x,), dynamic_shapes=shapes)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "batch_dim"])
@pytest.mark.parametrize(
    "model, width, name",
    [
        (Middle(), 8, "aten_mlir_be::shifted.default"),
        (Tupled(), 5, "aten_mlir_be::split_stats.default"),
        (Windowed(), 9, "aten_mlir_be::window.default"),
        (Rolled(), 3, "aten_mlir_be::roll_rows.default"),
    ],
    ids=["middle", "tuple", "int_list_float", "size_int"],
)
def test_export_compiles_around_the_custom_op(model, width, name, dynamic, tmp_path):
    ep = _export(model, torch.randn(4, width), dynamic)
    program = aten_mlir.compile(ep, cache_dir=tmp_path)
    assert [f.op for f in program.fallbacks] == [name]
    for batch in SIZES if dynamic else (4,):
        x = torch.randn(batch, width)
        _close(program(x), model(x))
    # the same IR again loads from the on-disk cache: the name comes back from the plan's text
    again = aten_mlir.compile(_export(model, torch.randn(4, width), dynamic), cache_dir=tmp_path)
    assert again.from_cache and [f.op for f in again.fallbacks] == [name]
    x = torch.randn(4, width)
    _close(again(x), model(x))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize(
    "model, width, name",
    [
        (Middle(), 8, "aten_mlir_be::shifted.default"),
        (Tupled(), 5, "aten_mlir_be::split_stats.default"),
        (Windowed(), 9, "aten_mlir_be::window.default"),
    ],
    ids=["middle", "tuple", "int_list_float"],
)
def test_torch_compile_compiles_around_the_custom_op(model, width, name, dynamic, caplog):
    with fresh_dynamo() as counts, torch.no_grad():
        f = compiled(model, dynamic=dynamic)
        with caplog.at_level(logging.INFO, logger="aten_mlir.backends.dynamo"):
            # dynamo specialises a size of 1: a dynamic graph takes the others
            for batch in (2, 7, 33) if dynamic else (4, 4):
                x = torch.randn(batch, width)
                _close(f(x), model(x))
        assert counts["graphs_compiled"] == 1 and counts["graph_fallbacks"] == 0
        assert counts["op_fallbacks"] == 1
        assert dict(counters["aten_mlir_op_fallbacks"]) == {name: 1}
    logged = [r.getMessage() for r in caplog.records if "eagerly" in r.getMessage()]
    assert len(logged) == 1 and name in logged[0], logged


def test_training_through_a_custom_op_with_an_autograd_formula():
    torch.manual_seed(0)
    batches = [(torch.randn(5, 6), torch.randint(0, 3, (5,))) for _ in range(3)]
    with fresh_dynamo() as counts:
        got, want, twin = train_both(Cubed(), batches, nn.CrossEntropyLoss())
        assert counts["graphs_compiled"] == 2 and counts["graph_fallbacks"] == 0
        # the forward runs the op; its backward formula is aten ops, compiled
        assert dict(counters["aten_mlir_op_fallbacks"]) == {"aten_mlir_be::cube.default": 1}
    _close(torch.tensor(got), torch.tensor(want))


@pytest.mark.skipif(
    not hasattr(F, "linear_cross_entropy"), reason="torch without F.linear_cross_entropy"
)
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_chunked_linear_cross_entropy_trains_with_its_torch_nn_op(reduction):
    from torch.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.head = nn.Linear(16, 16), nn.Linear(16, 40, bias=False)

        def forward(self, h, y):
            options = LinearCrossEntropyOptions(batch_chunk_size=4, allow_retain_graph=True)
            loss = F.linear_cross_entropy(
                torch.tanh(self.fc(h)), self.head.weight, y, reduction=reduction, options=options
            )
            return loss.mean()

    torch.manual_seed(0)
    model = Head()
    twin = Head()
    twin.load_state_dict(model.state_dict())
    h, y = torch.randn(12, 16), torch.randint(0, 40, (12,))
    with fresh_dynamo() as counts:
        loss = compiled(model)(h, y)
        loss.backward()
        assert counts["graphs_compiled"] == 2 and counts["graph_fallbacks"] == 0
        names = set(counters["aten_mlir_op_fallbacks"])
    assert {n.split("::")[0] for n in names} == {"torch_nn"}, names
    want = twin(h, y)
    want.backward()
    _close(loss, want)
    for p, q in zip(model.parameters(), twin.parameters()):
        _close(p.grad, q.grad)


def test_the_triton_target_runs_the_custom_op_between_kernels(triton_interpreter, tmp_path):  # noqa: F811
    model = Middle()
    ep = _export(model, torch.randn(4, 8), dynamic=False)
    program = aten_mlir.compile(ep, target="triton", cache_dir=tmp_path)
    assert [f.op for f in program.fallbacks] == ["aten_mlir_be::shifted.default"]
    x = torch.randn(4, 8)
    _close(program(x), model(x))


def test_a_failing_custom_op_names_itself_and_the_line():
    class Fails(nn.Module):
        def forward(self, x):
            return strict_log(x - 1)  # FAILS_LINE

    ep = torch.export.export(Fails(), (torch.randn(2, 9),))
    program = aten_mlir.compile(ep, cache=False)
    x = torch.rand(2, 9) + 1.5
    _close(program(x), (x - 1).log())
    line = next(
        n for n, text in enumerate(open(__file__).read().splitlines(), 1) if "# FAILS_LINE" in text
    )
    with pytest.raises(RuntimeError, match="fallback 'aten_mlir_be::strict_log.default' failed"):
        program(torch.zeros(2, 9))
    with pytest.raises(RuntimeError, match=f"test_custom_op_fallback.py:{line}"):
        program(torch.zeros(2, 9))


RECORDED: list[float] = []


@torch.library.custom_op("aten_mlir_be::record", mutates_args=())
def record(x: torch.Tensor) -> None:
    RECORDED.append(float(x.sum()))


@record.register_fake
def _(x):
    return None


def test_a_custom_op_without_results_runs_for_its_effect():
    """Nothing reads it, but MLIR knows nothing of its effects: no pass erases it."""

    class Records(nn.Module):
        def forward(self, x):
            y = x.sin()
            record(y)
            return y * 2

    program = aten_mlir.compile(torch.export.export(Records(), (torch.randn(3),)), cache=False)
    assert [f.op for f in program.fallbacks] == ["aten_mlir_be::record.default"]
    RECORDED.clear()
    x = torch.randn(3)
    _close(program(x), x.sin() * 2)
    assert RECORDED == pytest.approx([float(x.sin().sum())], rel=1e-5)


# torch itself traces only ops whose names are identifiers (its dispatcher parses the name), so a
# name with quotes reaches us only as IR text: it must be refused by name, never looked up as code.
ODD_NAMES = [
    'aten_mlir_be::shifted.default"; import os; os.system("true") #',
    "aten_mlir_be::shifted.default\\",
    'aten_mlir_be"::shifted.default',
    "aten_mlir_be::shifted.default\n",
    "__import__('os')::system.default",
]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_an_overload_name_with_quotes_is_refused_by_name(name):
    from mlir import ir

    from aten_mlir.dialects.opaque import OPAQUE_CALL, OVERLOAD_ATTR

    program = aten_mlir.import_program(_export(Middle(), torch.randn(4, 8), dynamic=False))
    (op,) = [
        o.operation
        for o in program.main.regions[0].blocks[0].operations
        if o.operation.name == OPAQUE_CALL
    ]
    with program.module.context:
        op.attributes[OVERLOAD_ATTR] = ir.StringAttr.get(name)
    with pytest.raises(Exception, match="not a registered operator overload") as info:
        aten_mlir.compile(program, cache=False)
    assert name in str(info.value)


@pytest.mark.parametrize(
    "model, width", [(Middle(), 8), (Tupled(), 5), (Windowed(), 9)], ids=["middle", "tuple", "list"]
)
def test_the_reference_interpreter_runs_the_custom_op(model, width):
    """`aten_mlir.run_reference` on the imported program runs an opaque call's overload too."""
    x = torch.randn(4, width)
    program = aten_mlir.import_program(_export(model, x, False))
    _close(aten_mlir.run_reference(program, x), model(x))

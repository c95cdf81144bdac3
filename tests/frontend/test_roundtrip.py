"""print -> `Program.from_text` -> verify -> print gives back the same text, with and without
debug info, for programs covering the dialect's encodings (segments, masks, enums, symbolic
sizes, special floats, complex numbers, result lists)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir import Program
from aten_mlir.dialects import describe_location


class ParamsAndBuffers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.ln = torch.nn.LayerNorm(3, elementwise_affine=False)
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
        self.offset = torch.tensor([1.0, 2.0, 3.0])

    def forward(self, x):
        self.steps.add_(1)
        return self.ln(self.fc(x)) + self.offset


class Dynamic(torch.nn.Module):
    def forward(self, x, y):
        n = x.shape[0]
        return x.view(n * 2, -1) * n, torch.arange(n % 3 + n // 2), y.expand(n, -1)


class ListsAndResults(torch.nn.Module):
    def forward(self, x, i):
        values, indices = torch.max(x, dim=1, keepdim=True)
        parts = torch.split(x, 2, dim=1)
        return torch.cat([parts[0], values, parts[1]], dim=1), indices, x[:, i], x[i, :, None]


class AttributesAndDtypes(torch.nn.Module):
    def forward(self, x, c, m):
        return (
            x.to(torch.bfloat16),
            torch.zeros_like(x, dtype=torch.uint8, memory_format=torch.contiguous_format),
            x.masked_fill(m, float("-inf")).masked_fill(~m, float("nan")),
            c * (2 - 0.5j),
            x.sum(dtype=torch.float64) * 1e-300,
            torch.nn.functional.gelu(x, approximate="tanh") > 0.1,
        )


def _dynamic_example():
    n = Dim("n", min=4, max=64)
    args = (torch.randn(6, 4), torch.randn(1, 5))
    return args, {"x": {0: n}, "y": None}


CASES = {
    "params_and_buffers": (ParamsAndBuffers, lambda: ((torch.randn(2, 4),), None)),
    "dynamic": (Dynamic, _dynamic_example),
    "lists_and_results": (
        ListsAndResults,
        lambda: ((torch.randn(3, 4, 5), torch.tensor([0, 2])), None),
    ),
    "attributes_and_dtypes": (
        AttributesAndDtypes,
        lambda: (
            (
                torch.randn(2, 3),
                torch.randn(3, dtype=torch.complex64),
                torch.tensor([[True, False, True], [False, False, True]]),
            ),
            None,
        ),
    ),
}


@pytest.fixture(scope="module")
def imported():
    """name -> (module, example args, program), each exported once per module."""
    cache = {}

    def get(name):
        if name not in cache:
            cls, example = CASES[name]
            args, dynamic_shapes = example()
            module = cls()
            ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
            cache[name] = (module, args, aten_mlir.import_program(ep))
        return cache[name]

    return get


@pytest.mark.parametrize("debug_info", [False, True], ids=["plain", "debug_info"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_print_parse_print_is_identity(imported, name, debug_info):
    _, _, program = imported(name)
    text = program.text(debug_info=debug_info)
    parsed = Program.from_text(text)
    aten_mlir.verify_module(parsed.module)
    assert parsed.text(debug_info=debug_info) == text
    # And once more: printing the parsed program is a fixed point.
    assert Program.from_text(parsed.text(debug_info=debug_info)).text(debug_info=debug_info) == text


@pytest.mark.parametrize("name", sorted(CASES))
def test_str_is_text_without_debug_info(imported, name):
    _, _, program = imported(name)
    assert str(program) == program.text() == program.text(debug_info=False)
    assert "loc(" not in str(program)
    assert "loc(" in program.text(debug_info=True)


def _aten_ops(program):
    return [
        op.operation
        for op in program.main.regions[0].blocks[0].operations
        if op.operation.name.startswith("aten.")
    ]


def test_debug_info_survives_the_round_trip(imported):
    _, _, program = imported("params_and_buffers")
    parsed = Program.from_text(program.text(debug_info=True))
    before = [describe_location(op.location) for op in _aten_ops(program)]
    after = [describe_location(op.location) for op in _aten_ops(parsed)]
    assert after == before
    assert all("test_roundtrip.py:" in d and "(node " in d for d in before), before


def test_text_without_debug_info_is_located_in_the_source(imported):
    """Parsed IR without locations points into the text itself (`name:line:col` of the op)."""
    _, _, program = imported("lists_and_results")
    text = program.text()
    lines = text.splitlines()
    parsed = Program.from_text(text, source_name="lists.mlir")  # ops die with their module
    ops = _aten_ops(parsed)
    assert len(ops) == len(_aten_ops(program)) >= 5
    for op in ops:
        file, line, col = describe_location(op.location).split(":")
        assert file == "lists.mlir"
        source_line = lines[int(line) - 1]
        assert source_line[int(col) - 1 :].startswith(f'"{op.name}"(')


def test_parsed_signature_reads_roles_from_result_attributes(imported):
    _, _, program = imported("params_and_buffers")
    parsed = Program.from_text(program.text())
    # Without state, every argument is a user input ...
    assert [s.role for s in parsed.signature.inputs] == ["user_input"] * len(
        program.signature.inputs
    )
    # ... but what the results are is read back from their `aten.*` attributes.
    assert parsed.signature.outputs == program.signature.outputs
    assert [(s.role, s.name) for s in parsed.signature.outputs][1:] == [("mutated_buffer", "steps")]
    assert parsed.state == {}


@pytest.mark.parametrize("name", ["params_and_buffers", "dynamic", "lists_and_results"])
def test_parsed_program_runs_like_the_original(imported, name):
    module, args, program = imported(name)
    parsed = Program.from_text(program.text(debug_info=True))
    # The parsed program takes the state as leading user inputs, in signature order.
    state_args = [program.state[s.name] for s in program.signature.inputs if s.role != "user_input"]
    got = aten_mlir.run_reference(parsed, *state_args, *args)
    want = module(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)

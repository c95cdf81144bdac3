"""Ops outside the aten dialect's namespaces (a user's `torch.library` op) import as one
`aten.opaque_call` naming the overload, its arguments laid out by the overload's schema
(dialects/opaque.py, frontend/importer.py `_import_opaque`); what cannot be carried is refused
with the op and the user's line."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from mlir import ir

import aten_mlir
from aten_mlir import UnsupportedOpError
from aten_mlir.dialects import AtenVerificationError, make_context, verify_module
from aten_mlir.dialects.opaque import (
    OPAQUE_CALL,
    OVERLOAD_ATTR,
    OpaqueOverloadError,
    resolve_overload,
)

THIS_FILE = Path(__file__).name


def line_of(marker: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.rstrip().endswith("# " + marker))


@torch.library.custom_op("aten_mlir_fe::scale_pad", mutates_args=())
def scale_pad(x: torch.Tensor, pads: list[int], alpha: float, mode: str) -> torch.Tensor:
    return torch.nn.functional.pad(x * alpha, pads) if mode == "pad" else x * alpha


@scale_pad.register_fake
def _(x, pads, alpha, mode):
    if mode != "pad":
        return torch.empty_like(x)
    return torch.nn.functional.pad(torch.empty_like(x), pads)


@torch.library.custom_op("aten_mlir_fe::bump_", mutates_args=("x",))
def bump_(x: torch.Tensor) -> None:
    x.add_(1)


@bump_.register_fake
def _(x):
    return None


class ScalePad(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten_mlir_fe.scale_pad(x.relu(), [1, 2], 0.5, "pad").exp()


class Bumps(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        bump_(y)  # BUMP_LINE
        return y + 1


def _opaque_calls(program) -> list:
    return [
        op
        for op in program.main.regions[0].blocks[0].operations
        if op.operation.name == OPAQUE_CALL
    ]


def test_custom_op_imports_as_an_opaque_call_with_its_arguments():
    ep = torch.export.export(ScalePad(), (torch.randn(3, 4),))
    program = aten_mlir.import_program(ep)
    (op,) = _opaque_calls(program)
    attrs = op.operation.attributes
    assert ir.StringAttr(attrs[OVERLOAD_ATTR]).value == "aten_mlir_fe::scale_pad.default"
    # ints, floats and strings stay attributes named after the schema's arguments
    assert str(attrs["pads"]) == "array<i64: 1, 2>"
    assert ir.FloatAttr(attrs["alpha"]).value == 0.5
    assert ir.StringAttr(attrs["mode"]).value == "pad"
    assert str(op.operation.results[0].type) == "tensor<3x7xf32>"
    # the aten ops around it stay aten ops
    names = [o.operation.name for o in program.main.regions[0].blocks[0].operations]
    assert names.index("aten.relu") < names.index(OPAQUE_CALL) < names.index("aten.exp")


def test_the_opaque_call_survives_print_and_parse():
    ep = torch.export.export(ScalePad(), (torch.randn(3, 4),))
    text = str(aten_mlir.import_program(ep).module)
    with make_context():
        module = ir.Module.parse(text)
        verify_module(module)
    assert '"aten_mlir_fe::scale_pad.default"' in str(module)


def test_the_verifier_refuses_an_overload_name_that_resolves_to_nothing():
    ep = torch.export.export(ScalePad(), (torch.randn(3, 4),))
    text = str(aten_mlir.import_program(ep).module)
    bad = text.replace("aten_mlir_fe::scale_pad.default", "aten_mlir_fe::scale_pad.nosuch")
    with make_context():
        module = ir.Module.parse(bad)
        with pytest.raises(AtenVerificationError, match="not a registered operator overload"):
            verify_module(module)


def test_the_verifier_checks_the_arguments_against_the_overloads_schema():
    ep = torch.export.export(ScalePad(), (torch.randn(3, 4),))
    text = str(aten_mlir.import_program(ep).module)
    bad = text.replace('mode = "pad"', "mode = 3 : i64")
    assert bad != text
    with make_context():
        module = ir.Module.parse(bad)
        with pytest.raises(AtenVerificationError, match="mode"):
            verify_module(module)


@pytest.mark.parametrize(
    "name",
    [
        "aten_mlir_fe::scale_pad",  # no overload
        "aten_mlir_fe::scale_pad.",
        "aten_mlir_fe::nosuch.default",
        "__class__::__init__.default",  # not an op namespace
        "ops::load_library.default",
        "aten_mlir_fe::scale_pad.default.default",
        "aten_mlir_fe:scale_pad.default",
        "",
    ],
)
def test_names_that_are_not_exactly_an_overload_resolve_to_nothing(name):
    with pytest.raises(OpaqueOverloadError):
        resolve_overload(name)


def test_names_resolve_to_the_overload_they_spell():
    assert resolve_overload("aten_mlir_fe::scale_pad.default") is scale_pad._opoverload
    assert resolve_overload("aten::add.Tensor") is torch.ops.aten.add.Tensor


def test_a_mutating_custom_op_is_refused_with_op_and_line():
    ep = torch.export.export(Bumps(), (torch.randn(3),))
    with pytest.raises(UnsupportedOpError) as info:
        aten_mlir.import_program(ep)
    first = str(info.value).splitlines()[0]
    assert "'aten_mlir_fe::bump_.default' mutates its arguments" in first
    assert f"{THIS_FILE}:{line_of('BUMP_LINE')}" in first


def test_a_mutating_schema_reaching_the_importer_directly_is_refused():
    """A graph that was never functionalized holds the op itself (`functional=True` trusts it)."""
    ep = torch.export.export(Bumps(), (torch.randn(3),), strict=False)
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    x.meta["val"] = ep.graph_module.graph.find_nodes(op="placeholder")[0].meta["val"]
    node = graph.call_function(torch.ops.aten_mlir_fe.bump_.default, (x,))
    node.meta["val"] = None
    graph.output((x,))
    from aten_mlir.frontend.importer import _Importer

    importer = _Importer(ep)
    with make_context(), ir.Location.unknown():
        with pytest.raises(UnsupportedOpError, match="'aten_mlir_fe::bump_.default' mutates"):
            importer._import_call(node)


def test_a_functional_custom_op_keeps_the_fast_import_path(retraces):
    """Torch's re-trace would leave the op as it is: the program is imported as exported."""
    ep = torch.export.export(ScalePad(), (torch.randn(3, 4),))
    (op,) = _opaque_calls(aten_mlir.import_program(ep))
    assert not retraces
    # a mutating one needs the re-trace (it makes the op `auto_functionalized`)
    with pytest.raises(UnsupportedOpError):
        aten_mlir.import_program(torch.export.export(Bumps(), (torch.randn(3),)))
    assert len(retraces) == 1

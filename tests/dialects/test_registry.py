"""The op registry: one op per `aten::` schema known to the JIT, named after its overload, with
argument and result kinds taken from the schema, and the 193-op core set tagged."""

from __future__ import annotations

import pytest
import torch

from aten_mlir.dialects import (
    ArgKind,
    ResultKind,
    all_op_names,
    core_op_names,
    get_op_def,
    op_name_of_overload,
)


def _jit_aten_schemas():
    return [s for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")]


def test_one_op_per_aten_schema():
    schemas = _jit_aten_schemas()
    names = all_op_names()
    assert len(names) == len(schemas) == 3754  # torch 2.13
    assert names == sorted(set(names))
    expected = {
        "aten." + s.name[len("aten::") :] + (f".{s.overload_name}" if s.overload_name else "")
        for s in schemas
    }
    assert set(names) == expected


def test_every_name_round_trips_through_its_torch_overload():
    bad = []
    for name in all_op_names():
        opdef = get_op_def(name)
        overload = opdef.overload
        if not isinstance(overload, torch._ops.OpOverload) or op_name_of_overload(overload) != name:
            bad.append(name)
        elif str(overload._schema) != opdef.schema:
            bad.append(f"{name}: schema")
    assert not bad, bad[:20]


def test_default_overload_drops_its_suffix():
    assert get_op_def("aten._softmax") is not None
    assert get_op_def("aten._softmax.default") is None
    assert op_name_of_overload(torch.ops.aten._softmax.default) == "aten._softmax"
    assert op_name_of_overload(torch.ops.aten.add.Tensor) == "aten.add.Tensor"
    assert get_op_def("aten._softmax").qualified_name == "aten::_softmax"
    assert get_op_def("aten.add.Tensor").qualified_name == "aten::add.Tensor"
    assert get_op_def("aten.add.Tensor").overload is torch.ops.aten.add.Tensor


def test_unknown_names_have_no_definition():
    assert get_op_def("aten.no_such_op") is None
    assert get_op_def("aten.add.NoSuchOverload") is None
    assert get_op_def("prims.no_such_op") is None


def _core_by_tag() -> set[str]:
    core = set()
    for packet_name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, packet_name)
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload_name in packet.overloads():
            overload = getattr(packet, overload_name)
            if torch.Tag.core in overload.tags:
                core.add(op_name_of_overload(overload))
    return core


def test_core_set_is_the_193_overloads_tagged_core():
    core = core_op_names()
    assert len(core) == 193  # torch 2.13
    assert core == _core_by_tag()
    assert all(get_op_def(n).is_core for n in core)
    assert not get_op_def("aten.linear").is_core and get_op_def("aten.addmm").is_core


def test_every_core_op_is_expressible():
    assert [n for n in core_op_names() if get_op_def(n).inexpressible] == []


def test_inexpressible_ops_say_why():
    opdef = get_op_def("aten.Complex.Scalar")  # returns a Python complex
    assert opdef.inexpressible and "complex" in opdef.inexpressible
    opdef = get_op_def("aten.size")  # returns int[]
    assert opdef.inexpressible and "List[int]" in opdef.inexpressible


def _kinds(op_name):
    opdef = get_op_def(op_name)
    return [(a.name, a.kind, a.optional) for a in opdef.args], [r.kind for r in opdef.results]


@pytest.mark.parametrize(
    "op_name, args, results",
    [
        (
            "aten.add.Tensor",
            [
                ("self", ArgKind.TENSOR, False),
                ("other", ArgKind.TENSOR, False),
                ("alpha", ArgKind.SCALAR, False),
            ],
            [ResultKind.TENSOR],
        ),
        (
            "aten.cat",
            [("tensors", ArgKind.TENSOR_LIST, False), ("dim", ArgKind.INT, False)],
            [ResultKind.TENSOR],
        ),
        (
            "aten.index.Tensor",
            [("self", ArgKind.TENSOR, False), ("indices", ArgKind.OPT_TENSOR_LIST, False)],
            [ResultKind.TENSOR],
        ),
        (
            "aten.linear",
            [
                ("input", ArgKind.TENSOR, False),
                ("weight", ArgKind.TENSOR, False),
                ("bias", ArgKind.TENSOR, True),
            ],
            [ResultKind.TENSOR],
        ),
        (
            "aten.native_layer_norm",
            [
                ("input", ArgKind.TENSOR, False),
                ("normalized_shape", ArgKind.INT_LIST, False),
                ("weight", ArgKind.TENSOR, True),
                ("bias", ArgKind.TENSOR, True),
                ("eps", ArgKind.FLOAT, False),
            ],
            [ResultKind.TENSOR] * 3,
        ),
        (
            "aten.split.Tensor",
            [
                ("self", ArgKind.TENSOR, False),
                ("split_size", ArgKind.INT, False),
                ("dim", ArgKind.INT, False),
            ],
            [ResultKind.TENSOR_LIST],
        ),
        (
            "aten.sum.dim_IntList",
            [
                ("self", ArgKind.TENSOR, False),
                ("dim", ArgKind.INT_LIST, True),
                ("keepdim", ArgKind.BOOL, False),
                ("dtype", ArgKind.DTYPE, True),
            ],
            [ResultKind.TENSOR],
        ),
        (
            "aten.zeros_like",
            [
                ("self", ArgKind.TENSOR, False),
                ("dtype", ArgKind.DTYPE, True),
                ("layout", ArgKind.LAYOUT, True),
                ("device", ArgKind.DEVICE, True),
                ("pin_memory", ArgKind.BOOL, True),
                ("memory_format", ArgKind.MEMORY_FORMAT, True),
            ],
            [ResultKind.TENSOR],
        ),
        (
            "aten.gelu",
            [("self", ArgKind.TENSOR, False), ("approximate", ArgKind.STR, False)],
            [ResultKind.TENSOR],
        ),
        (
            "aten.clamp",
            [
                ("self", ArgKind.TENSOR, False),
                ("min", ArgKind.SCALAR, True),
                ("max", ArgKind.SCALAR, True),
            ],
            [ResultKind.TENSOR],
        ),
        (
            "aten.bernoulli",
            [("self", ArgKind.TENSOR, False), ("generator", ArgKind.GENERATOR, True)],
            [ResultKind.TENSOR],
        ),
        (
            "aten.sym_size.int",
            [("self", ArgKind.TENSOR, False), ("dim", ArgKind.INT, False)],
            [ResultKind.INT],
        ),
        ("aten.item", [("self", ArgKind.TENSOR, False)], [ResultKind.SCALAR]),
    ],
)
def test_definitions_follow_the_schema(op_name, args, results):
    assert _kinds(op_name) == (args, results)


def test_defaults_keyword_only_and_mutability():
    add = get_op_def("aten.add.Tensor")
    alpha = add.arg("alpha")
    assert alpha.has_default and alpha.default == 1 and alpha.kwarg_only
    assert not add.arg("self").mutable
    assert get_op_def("aten.add_.Tensor").arg("self").mutable
    gelu = get_op_def("aten.gelu").arg("approximate")
    assert gelu.has_default and gelu.default == "none" and gelu.required
    assert not get_op_def("aten.linear").arg("bias").required
    full = get_op_def("aten.full")
    assert full.arg("dtype").kwarg_only and not full.arg("size").kwarg_only
    with pytest.raises(KeyError, match="no argument 'nope'"):
        add.arg("nope")


def test_fixed_operands():
    assert get_op_def("aten.add.Tensor").has_fixed_operands
    assert get_op_def("aten.relu").has_fixed_operands
    assert not get_op_def("aten.cat").has_fixed_operands
    assert not get_op_def("aten.linear").has_fixed_operands
    assert not get_op_def("aten.index.Tensor").has_fixed_operands

"""Whole models through the frontend: `torch.export` -> `import_program` -> `verify_module` ->
`run_reference`, checked against eager PyTorch. Run with `-s` to see each model's op histogram."""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections import Counter

import pytest
import torch
from mlir import ir

import aten_mlir
from aten_mlir.dialects import op_name_of_overload

from .model_zoo import MODEL_ZOO, format_histogram, op_histogram

# float32. The reference interpreter runs the same eager kernels as the module, and today every
# model here matches bitwise; the margin lets a stage rewrite the graph (e.g. decompose an op)
# while a wrong weight, statistic or mask still fails by orders of magnitude more.
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
EVAL_MODELS = [name for name in MODEL_ZOO if name != "resnet_train"]


@dataclasses.dataclass
class Imported:
    model: torch.nn.Module  # untouched by any run: copy it before running eagerly
    example_inputs: tuple
    ep: torch.export.ExportedProgram  # after run_decompositions({}), as the importer sees it
    program: aten_mlir.Program  # copy its state before running (train mode writes buffers)


@functools.cache
def imported(name: str) -> Imported:
    """Exports, imports and verifies one zoo model, once per session."""
    model, inputs, _ = MODEL_ZOO[name].build()
    ep = torch.export.export(model, inputs, strict=False).run_decompositions({})
    program = aten_mlir.import_program(ep)
    aten_mlir.verify_module(program.module)
    return Imported(model, inputs, ep, program)


def assert_matches_eager(imp: Imported, inputs: tuple) -> None:
    """Runs the program and the eager model from their initial state (copies of both, since a
    train-mode run writes buffers) and compares the outputs."""
    program = dataclasses.replace(imp.program, state=dict(imp.program.state))
    actual = aten_mlir.run_reference(program, *inputs)
    with torch.no_grad():
        expected = copy.deepcopy(imp.model)(*inputs)
    torch.testing.assert_close(actual, expected, **TOLERANCE)


def graph_op_histogram(ep: torch.export.ExportedProgram) -> Counter[str]:
    """The aten ops of the exported graph under their dialect names, minus the runtime asserts
    the importer drops by design."""
    names = (
        op_name_of_overload(n.target)
        for n in ep.graph.nodes
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
    )
    return Counter(n for n in names if not n.startswith(("aten._assert", "aten.sym_constrain")))


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_builder_is_deterministic(name):
    """Same weights on every build, whatever the global RNG state was."""
    entry = MODEL_ZOO[name]
    with torch.random.fork_rng(devices=[]):
        first = entry.build_model().state_dict()
        torch.rand(100)  # the second build starts from another global RNG state
        second = entry.build_model().state_dict()
    assert first.keys() == second.keys()
    for key, value in first.items():
        assert torch.equal(value, second[key]), key
    assert torch.equal(entry.make_inputs(seed=5)[0], entry.make_inputs(seed=5)[0])


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_example_inputs_match_eager(name):
    imp = imported(name)
    assert_matches_eager(imp, imp.example_inputs)


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_fresh_inputs_match_eager(name):
    imp = imported(name)
    entry = MODEL_ZOO[name]
    inputs = entry.make_inputs(batch=entry.batch, seed=1)
    assert not torch.equal(inputs[0], imp.example_inputs[0])
    assert_matches_eager(imp, inputs)


def index_check_ops(program) -> Counter[str]:
    """The ops the importer adds to flag out-of-range indices (`frontend/index_checks.py`):
    those only the `index_check` result uses."""
    block = program.main.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1].operation
    roles = [s.role for s in program.signature.outputs]
    if "index_check" not in roles:
        return Counter()
    work = [ret.operands[roles.index("index_check")].owner]
    seen: list = []
    while work:
        op = getattr(work.pop(), "operation", None)  # None: a block argument's block
        if op is None or op in seen:
            continue
        users = [u.owner.operation for r in op.results for u in r.uses]
        if any(u != ret and u not in seen for u in users):
            continue  # used by the model as well
        seen.append(op)
        work += [v.owner for v in op.operands]
    return Counter(op.name for op in seen if op.name.startswith("aten."))


@pytest.mark.parametrize("name", list(MODEL_ZOO))
def test_ir_has_every_graph_op(name):
    """Each aten node of the exported graph became exactly one aten op: nothing dropped or
    duplicated, and the ops that characterize the model are there."""
    imp = imported(name)
    hist = op_histogram(imp.program.module)
    print("\n" + format_histogram(f"{name} (aten dialect)", hist))
    ir_aten = Counter({op: n for op, n in hist.items() if op.startswith("aten.")})
    assert ir_aten - index_check_ops(imp.program) == graph_op_histogram(imp.ep)
    assert MODEL_ZOO[name].key_ops <= hist.keys()


def test_gpt2_attention_is_one_sdpa_op_per_layer():
    imp = imported("gpt2")
    config = imp.model.model.config
    assert config._attn_implementation == "sdpa"
    sdpa = torch.ops.aten.scaled_dot_product_attention.default
    assert sum(n.target is sdpa for n in imp.ep.graph.nodes) == config.n_layer
    hist = op_histogram(imp.program.module)
    assert hist["aten.scaled_dot_product_attention"] == config.n_layer
    assert "aten.scaled_dot_product_attention" in str(imp.program)


def test_train_mode_batch_norm_writes_running_stats():
    imp = imported("resnet_train")
    bn_buffers = {
        name: buf
        for name, buf in imp.model.named_buffers()
        if name.endswith(("running_mean", "running_var", "num_batches_tracked"))
    }
    written = {s.name for s in imp.program.signature.outputs if s.role == "mutated_buffer"}
    assert written == bn_buffers.keys()

    entry = MODEL_ZOO["resnet_train"]
    program = dataclasses.replace(imp.program, state=dict(imp.program.state))
    eager = copy.deepcopy(imp.model)
    for step in range(2):  # the second step starts from the statistics the first one wrote
        inputs = entry.make_inputs(batch=entry.batch, seed=step)
        actual = aten_mlir.run_reference(program, *inputs)
        with torch.no_grad():
            expected = eager(*inputs)
        torch.testing.assert_close(actual, expected, **TOLERANCE)
        eager_buffers = dict(eager.named_buffers())
        for name in bn_buffers:
            torch.testing.assert_close(
                program.state[name],
                eager_buffers[name],
                **TOLERANCE,
                msg=lambda m, name=name: f"{name}: {m}",
            )
    assert int(program.state["stem.1.num_batches_tracked"]) == 2
    assert not torch.equal(program.state["stem.1.running_mean"], bn_buffers["stem.1.running_mean"])


@pytest.mark.parametrize("name", EVAL_MODELS)
def test_dynamic_batch(name):
    entry = MODEL_ZOO[name]
    model, inputs, dynamic_shapes = entry.build(dynamic_batch=True)
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes, strict=False)
    program = aten_mlir.import_program(ep)
    aten_mlir.verify_module(program.module)
    arguments = program.main.regions[0].blocks[0].arguments
    user_args = [
        ir.RankedTensorType(arg.type)
        for spec, arg in zip(program.signature.inputs, arguments, strict=True)
        if spec.role == "user_input"
    ]
    assert user_args and all(t.is_dynamic_dim(0) for t in user_args)
    for batch in (1, 3):
        inputs = entry.make_inputs(batch=batch, seed=batch)
        actual = aten_mlir.run_reference(program, *inputs)
        with torch.no_grad():
            expected = model(*inputs)
        assert actual.shape[0] == batch
        torch.testing.assert_close(actual, expected, **TOLERANCE)

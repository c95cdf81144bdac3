"""Running passes: aten-verify, aten-drop-dead, and pipelines mixing them with upstream passes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import pytest
from mlir import ir

from aten_mlir.dialects import file_position
from aten_mlir.frontend.program import parse_module
from aten_mlir.passes import (
    PASSES,
    ModulePass,
    PassFailure,
    PipelineError,
    PipelineFailedError,
    UnknownPassError,
    get_pass,
    register_pass,
    run_pipeline,
)
from aten_mlir.passes.aten.drop_dead import AtenDropDead
from aten_mlir.passes.aten.verify import AtenVerify

T = "tensor<2xf32>"


def module(body: str, args: str = f"%a: {T}", results: str = "") -> ir.Module:
    text = f"func.func @f({args}){' -> ' + results if results else ''} {{\n{body}\n}}\n"
    return parse_module(text, "test.mlir")


def ops(m: ir.Module) -> list[str]:
    found = []

    def visit(op):
        if op.operation.name.startswith("aten."):
            found.append(op.operation.name)
        return ir.WalkResult.ADVANCE

    m.operation.walk(visit)
    return found


@pytest.fixture
def registry():
    saved = dict(PASSES)
    yield PASSES
    PASSES.clear()
    PASSES.update(saved)


def test_drop_dead_erases_unused_chains_and_keeps_side_effects():
    m = module(
        f"""
  %0 = "aten.exp"(%a) : ({T}) -> {T}
  %1 = "aten.neg"(%0) : ({T}) -> {T}
  %2 = "aten.mul.Tensor"(%1, %1) : ({T}, {T}) -> {T}
  %3 = "aten.add_.Tensor"(%a, %a) {{alpha = 1 : i64}} : ({T}, {T}) -> {T}
  %4 = "aten.rand_like"(%a) : ({T}) -> {T}
  %5 = "aten.not_an_op"(%a) : ({T}) -> {T}
  %6 = "aten.relu"(%a) : ({T}) -> {T}
  return %6 : {T}""",
        results=T,
    )
    AtenDropDead().run(m.operation)
    assert ops(m) == ["aten.add_.Tensor", "aten.rand_like", "aten.not_an_op", "aten.relu"]
    AtenDropDead(keep_random=False).run(m.operation)
    assert ops(m) == ["aten.add_.Tensor", "aten.not_an_op", "aten.relu"]


def test_drop_dead_keeps_ops_without_results_and_mutating_out_variants():
    m = module(
        f"""
  "aten._assert_async"(%b) : (tensor<i1>) -> ()
  %0 = "aten.relu_"(%a) : ({T}) -> {T}
  %1 = "aten.exp.out"(%a, %a) : ({T}, {T}) -> {T}
  return""",
        args=f"%a: {T}, %b: tensor<i1>",
    )
    AtenDropDead().run(m.operation)
    assert ops(m) == ["aten._assert_async", "aten.relu_", "aten.exp.out"]


def test_drop_dead_reaches_a_fixed_point_in_graph_regions():
    # In a graph region a use may come before its def, so one reverse sweep is not enough.
    text = f"""
"test.graph"() ({{
  %1 = "aten.neg"(%0) : ({T}) -> {T}
  %0 = "aten.exp"(%2) : ({T}) -> {T}
  %2 = "test.source"() : () -> {T}
}}) : () -> ()
"""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    m = parse_module(text, "graph.mlir", context=ctx)
    AtenDropDead().run(m.operation)
    assert ops(m) == []


def test_verify_reports_every_problem_at_its_op():
    m = module(
        f"""
  %0 = "aten.add.Tensor"(%a, %a) : ({T}, {T}) -> {T}
  %1 = "aten.frobnicate"(%a) : ({T}) -> {T}
  return""",
    )
    with pytest.raises(PipelineFailedError) as e:
        run_pipeline(m, "aten-verify")
    found = [(file_position(d.location), d.message) for d in e.value.diagnostics]
    assert found == [
        (("test.mlir", 3, 8), "'aten.add.Tensor' op requires attribute 'alpha' (Scalar)"),
        (
            ("test.mlir", 4, 8),
            "'aten.frobnicate' op is not an op of the aten dialect (no such ATen schema)",
        ),
    ]
    assert str(e.value).startswith(
        "pass pipeline failed: test.mlir:3:8: 'aten.add.Tensor' op requires"
    )
    assert str(e.value).endswith("(and 1 more)")


def test_verify_run_raises_pass_failure_outside_a_pass_manager():
    linear = (
        '  %0 = "aten.linear"(%a, %w) {operandSegmentSizes = array<i32: 1, 1, 0>}'
        " : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<3xf32>\n  return"
    )
    m = module(linear, args=f"%a: {T}, %w: tensor<3x2xf32>")
    AtenVerify().run(m.operation)  # well formed
    AtenVerify(target="core", allow=("aten.linear",)).run(m.operation)
    with m.context:
        handled = []
        handler = m.context.attach_diagnostic_handler(lambda d: handled.append(d.message) or True)
        with pytest.raises(PassFailure, match="'aten.linear' op is not in the core ATen opset"):
            AtenVerify(target="core").run(m.operation)
        handler.detach()
    assert handled == ["'aten.linear' op is not in the core ATen opset"]


def test_mixed_pipeline_with_upstream_passes():
    m = module(
        f"""
  %c = arith.constant 1 : index
  %d = arith.constant 1 : index
  %0 = "aten.exp"(%a) : ({T}) -> {T}
  "test.use"(%c, %d) : (index, index) -> ()
  return""",
    )
    run_pipeline(m, "builtin.module(aten-verify,func.func(cse,aten-drop-dead),canonicalize)")
    text = str(m)
    assert "aten.exp" not in text
    assert text.count("arith.constant") == 1


@dataclass(frozen=True)
class Record(ModulePass):
    """Records the ops it runs on."""

    name: ClassVar[str] = "test-record"
    seen: ClassVar[list] = []

    def run(self, module_op) -> None:
        Record.seen.append(module_op.name)


def test_aten_pass_nested_in_a_pipeline_runs_on_each_anchored_op(registry):
    register_pass(Record)
    m = parse_module(
        "func.func @f() { return }\nfunc.func @g() { return }\n"
        "module { func.func @h() { return } }\n",
        "nested.mlir",
    )
    Record.seen.clear()
    run_pipeline(m, "test-record,func.func(test-record),builtin.module(func.func(test-record))")
    assert Record.seen == ["builtin.module", "func.func", "func.func", "func.func"]


def test_python_exceptions_in_passes_propagate(registry):
    @register_pass
    @dataclass(frozen=True)
    class Broken(ModulePass):
        """Has a bug."""

        name: ClassVar[str] = "test-broken"

        def run(self, module_op) -> None:
            raise ZeroDivisionError("a bug")

    with pytest.raises(ZeroDivisionError, match="a bug"):
        run_pipeline(module("  return"), "test-broken")


@pytest.mark.parametrize(
    "pipeline, error, message",
    [
        (
            "canonicalise",
            UnknownPassError,
            r"unknown pass 'canonicalise' \(did you mean 'canonicalize'\?\)",
        ),
        (
            "cse,func.func(aten-drop-dead,csee)",
            UnknownPassError,
            r"unknown pass 'csee' \(did you mean 'cse'",
        ),
        (
            "canonicalize{max-iterations=x}",
            PipelineError,
            "cannot add 'canonicalize{max-iterations=x}'",
        ),
        ("aten-verify{target=most}", PipelineError, "option 'target' must be one of all, core"),
    ],
)
def test_bad_pipelines(pipeline, error, message):
    with pytest.raises(error, match=message):
        run_pipeline(module("  return"), pipeline)


def test_print_ir_after_all(capfd):
    m = module(f'  %0 = "aten.exp"(%a) : ({T}) -> {T}\n  return')
    run_pipeline(m, "aten-drop-dead,cse", print_ir_after_all=True)
    err = capfd.readouterr().err
    assert "// -----// IR Dump After aten-drop-dead (aten-drop-dead) //----- //" in err
    assert "IR Dump After CSE (cse)" in err
    assert "aten.exp" not in err


def test_pass_timing_from_the_environment(capfd, monkeypatch):
    m = module(f'  %0 = "aten.exp"(%a) : ({T}) -> {T}\n  return')
    run_pipeline(m, "aten-drop-dead,cse")
    assert "Execution time report" not in capfd.readouterr().err
    monkeypatch.setenv("ATEN_MLIR_PASS_TIMING", "1")
    run_pipeline(m, "aten-drop-dead,cse")
    err = capfd.readouterr().err
    assert "Execution time report" in err
    assert re.search(r"\)\s+aten-drop-dead\n", err) and re.search(r"\)\s+CSE\n", err), err


def test_get_pass_returns_the_shipped_classes():
    assert get_pass("aten-verify") is AtenVerify
    assert get_pass("aten-drop-dead") is AtenDropDead

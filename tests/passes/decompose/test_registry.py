"""The decomposition table: real overloads, one rule each, documented, never for target ops."""

from __future__ import annotations

import pytest
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects import get_op_def
from aten_mlir.frontend.program import Program
from aten_mlir.passes.decompose import DECOMPOSITIONS, register_decomposition, target_set
from aten_mlir.passes.decompose.registry import Decomposition
from aten_mlir.passes.pipeline import run_pipeline


def test_every_key_is_an_expressible_aten_overload():
    for op_name in DECOMPOSITIONS:
        opdef = get_op_def(op_name)
        assert opdef is not None and not opdef.inexpressible, op_name
        assert opdef.overload is not None


def test_no_rule_decomposes_a_default_target_op():
    assert not set(DECOMPOSITIONS) & target_set()


def test_every_rule_says_source_and_targets_in_one_docstring_line():
    for op_name, d in DECOMPOSITIONS.items():
        assert d.summary.startswith(f"{op_name} -> aten."), (op_name, d.summary)
        for target in d.summary.split("->", 1)[1].replace(":", ",").split(","):
            name = target.strip().split(" ")[0]
            if name.startswith("aten."):
                assert get_op_def(name) is not None, (op_name, name)


def test_registering_a_key_twice_raises():
    with pytest.raises(KeyError, match="twice"):

        @register_decomposition("aten.silu")
        def again(op, rewriter):
            """aten.silu -> aten.sigmoid"""


def test_registering_an_unknown_op_raises():
    with pytest.raises(KeyError, match="not an op"):

        @register_decomposition("aten.no_such_op")
        def nothing(op, rewriter):
            """aten.no_such_op -> aten.relu"""


def test_a_rule_without_its_summary_line_is_refused():
    with pytest.raises(ValueError, match="docstring"):

        @register_decomposition("aten.logit")
        def undocumented(op, rewriter):
            return None

    assert "aten.logit" not in DECOMPOSITIONS


def test_rewriter_sizes_are_ints_when_static_and_tensor_dim_when_dynamic(monkeypatch):
    """`size()` queries `tensor.dim` for a `?` dim; a rule that gives up after building leaves
    no ops behind (else the greedy driver never converges)."""
    seen = {}

    def probe(op, rewriter):
        seen["sizes"] = rewriter.sizes(rewriter.args["self"])
        seen["product"] = rewriter.index_arith(arith.MulIOp, seen["sizes"][0], 3)
        seen["folded"] = rewriter.index_arith(arith.MulIOp, seen["sizes"][1], 3)
        return None

    monkeypatch.setitem(
        DECOMPOSITIONS, "aten.silu", Decomposition("aten.silu", probe, "aten.silu -> aten.silu")
    )
    program = Program.from_text(
        "func.func @main(%a: tensor<?x5xf32>) -> tensor<?x5xf32> {\n"
        '  %0 = "aten.silu"(%a) : (tensor<?x5xf32>) -> tensor<?x5xf32>\n'
        "  return %0 : tensor<?x5xf32>\n}"
    )
    before = str(program)
    run_pipeline(program.module, "aten-decompose{only=aten.silu}")
    dim0, dim1 = seen["sizes"]
    assert isinstance(dim0, ir.Value) and dim1 == 5
    assert isinstance(seen["product"], ir.Value) and seen["folded"] == 15
    assert str(program) == before

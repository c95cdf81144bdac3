"""The decomposition table: real overloads, one rule each, documented, never for target ops."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from mlir.dialects import arith
from torch._decomp import core_aten_decompositions, decomposition_table

from aten_mlir.dialects import get_op_def
from aten_mlir.frontend.program import Program
from aten_mlir.passes.decompose import (
    DECOMPOSITIONS,
    KEPT_WHOLE,
    keep_whole,
    register_decomposition,
    target_set,
)
from aten_mlir.passes.decompose.coverage import op_name_of, torch_table_coverage
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
        for target in d.summary.split("->", 1)[1].replace(":", ",").replace(";", ",").split(","):
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
    free = "aten.hardtanh_backward"  # no rule, not kept, not core
    assert free not in DECOMPOSITIONS and free not in KEPT_WHOLE and free not in target_set()
    with pytest.raises(ValueError, match="docstring"):

        @register_decomposition(free)
        def undocumented(op, rewriter):
            return None

    assert free not in DECOMPOSITIONS


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


def _overload(op_name):
    parts = op_name.removeprefix("aten.").split(".")
    return getattr(getattr(torch.ops.aten, parts[0]), parts[1] if len(parts) > 1 else "default")


def test_every_kept_op_is_a_real_non_core_op_without_a_rule():
    assert KEPT_WHOLE, "the table of ops kept whole is empty"
    for op_name, reason in KEPT_WHOLE.items():
        opdef = get_op_def(op_name)
        assert opdef is not None and not opdef.inexpressible, op_name
        assert op_name not in target_set() and op_name not in DECOMPOSITIONS, op_name
        assert len(reason) > 15, (op_name, reason)


def test_torch_has_no_aten_level_decomposition_for_a_kept_op():
    """The keep table's claim, checked against torch: not a key of the core table, no
    CompositeImplicitAutograd kernel, and where torch's reference table has an entry the reason
    says why it does not apply (it only reaches prims, or what core lacks for it)."""
    core_keys = {op_name_of(k) for k in core_aten_decompositions() if hasattr(k, "_schema")}
    reference_keys = {op_name_of(k) for k in decomposition_table if hasattr(k, "_schema")}
    for op_name, reason in KEPT_WHOLE.items():
        overload = _overload(op_name)
        assert op_name not in core_keys, op_name
        has_cia = torch._C._dispatch_has_kernel_for_dispatch_key(
            overload.name(), "CompositeImplicitAutograd"
        )
        assert not has_cia, op_name
        if op_name in reference_keys:
            assert "prims" in reason or "torch's" in reason, (op_name, reason)


def test_keep_whole_refuses_unknown_ops_and_duplicates():
    with pytest.raises(KeyError, match="not an op"):
        keep_whole("aten.no_such_op", "a reason that is long enough")
    with pytest.raises(KeyError, match="already"):
        keep_whole("aten.silu", "silu has a rule, so it cannot be kept whole")


def test_coverage_of_torchs_table_is_reported():
    coverage = torch_table_coverage()
    assert coverage.total > 800
    assert set(coverage.covered) <= set(DECOMPOSITIONS)
    assert not set(coverage.covered) & set(coverage.kept)
    parts = (coverage.covered, coverage.kept, coverage.in_target, coverage.uncovered)
    assert sum(map(len, parts)) == coverage.total
    assert str(coverage.total) in coverage.summary()


def test_no_rule_builds_as_strided():
    """Views decompose to views (or gathers), never to `as_strided`: its strides would bake the
    example's memory layout into a value-semantic program."""
    import inspect

    for d in DECOMPOSITIONS.values():
        fn = d.fn.func if hasattr(d.fn, "func") else d.fn
        source = inspect.getsource(inspect.getmodule(fn))
        assert '"aten.as_strided"' not in source, d.op_name

"""The lowering table against the core op set: prints the table, and every core overload has a
rule."""

from aten_mlir.dialects import core_op_names
from aten_mlir.passes.aten_to_linalg import LOWERINGS
from aten_mlir.passes.aten_to_linalg.coverage import lowering_coverage


def test_print_coverage_table():
    coverage = lowering_coverage()
    print("\n" + coverage.table(everything=True))
    assert len(coverage.status) == 193
    assert not coverage.names("fallback")


def test_every_core_overload_has_a_lowering():
    missing = sorted(core_op_names() - set(LOWERINGS))
    assert not missing, f"{len(missing)} core overloads without a lowering: {missing}"


def test_no_lowering_rule_is_untested():
    assert not lowering_coverage().names("untested")


def test_lowering_summaries_name_the_op():
    for name, rule in LOWERINGS.items():
        assert rule.summary.startswith(name + " -> "), rule.summary

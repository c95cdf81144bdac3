"""How the decomposition table compares with torch's: which `core_aten_decompositions()` aten
keys have a rule here, which are kept whole on purpose, and which are neither."""

from __future__ import annotations

from dataclasses import dataclass

from .registry import DECOMPOSITIONS, KEPT_WHOLE


def op_name_of(overload) -> str:
    """`aten.silu.default` -> `aten.silu`, `aten.add.Tensor` -> `aten.add.Tensor`."""
    base = "aten." + overload._schema.name.split("::", 1)[1]
    return base if overload._overloadname == "default" else f"{base}.{overload._overloadname}"


@dataclass(frozen=True)
class Coverage:
    total: int  # aten keys of torch's core_aten_decompositions()
    covered: tuple[str, ...]  # keys with a rule here
    kept: tuple[str, ...]  # keys we keep whole (with a reason in KEPT_WHOLE)
    uncovered: tuple[str, ...]  # neither

    def summary(self) -> str:
        return (
            f"core_aten_decompositions() aten keys: {self.total}; with a rule here: "
            f"{len(self.covered)}; kept whole: {len(self.kept)}; neither: {len(self.uncovered)}"
        )


def torch_table_coverage() -> Coverage:
    from torch._decomp import core_aten_decompositions

    names = sorted(
        {op_name_of(k) for k in core_aten_decompositions() if getattr(k, "namespace", "") == "aten"}
    )
    return Coverage(
        total=len(names),
        covered=tuple(n for n in names if n in DECOMPOSITIONS),
        kept=tuple(n for n in names if n in KEPT_WHOLE),
        uncovered=tuple(n for n in names if n not in DECOMPOSITIONS and n not in KEPT_WHOLE),
    )


if __name__ == "__main__":  # python -m aten_mlir.passes.decompose.coverage
    from aten_mlir.passes import decompose  # noqa: F401  (fills the tables)

    print(torch_table_coverage().summary())

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
    in_target: tuple[str, ...]  # keys that are in our default target set (core ops torch splits)
    uncovered: tuple[str, ...]  # none of the above

    def summary(self) -> str:
        return (
            f"core_aten_decompositions() aten keys: {self.total}; with a rule here: "
            f"{len(self.covered)}; kept whole: {len(self.kept)}; in the target set: "
            f"{len(self.in_target)}; neither: {len(self.uncovered)}"
        )


def torch_table_coverage() -> Coverage:
    from torch._decomp import core_aten_decompositions

    from .decompose_pass import target_set

    targets = target_set()
    names = sorted(
        {op_name_of(k) for k in core_aten_decompositions() if getattr(k, "namespace", "") == "aten"}
    )
    return Coverage(
        total=len(names),
        covered=tuple(n for n in names if n in DECOMPOSITIONS),
        kept=tuple(n for n in names if n in KEPT_WHOLE),
        in_target=tuple(n for n in names if n in targets),
        uncovered=tuple(
            n for n in names if n not in DECOMPOSITIONS and n not in KEPT_WHOLE and n not in targets
        ),
    )


def kept_table() -> str:
    """The ops kept whole, as a Markdown table (op | why)."""
    rows = [f"| `{name}` | {why} |" for name, why in sorted(KEPT_WHOLE.items())]
    return "\n".join(["| op kept whole | why |", "|---|---|", *rows])


if __name__ == "__main__":  # python -m aten_mlir.passes.decompose.coverage [--kept]
    import sys

    from aten_mlir.passes import decompose  # noqa: F401  (fills the tables)

    print(torch_table_coverage().summary())
    if "--kept" in sys.argv:
        print(kept_table())

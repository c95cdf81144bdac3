"""How much of the core ATen op set `convert-aten-to-linalg` lowers: a table to read, not guess.

    python -m aten_mlir.passes.aten_to_linalg.coverage          # summary and the gaps
    python -m aten_mlir.passes.aten_to_linalg.coverage --all    # every core overload

Status per core overload: `lowered` (a rule exists and a test compiles the op: OpInfo samples
through `tests/opinfo/core_opinfos.json`, or a test under `tests/passes/aten_to_linalg` naming
it), `untested` (a rule, but no test reaches it) and `fallback` (no rule: `compile()` runs it
eagerly).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from aten_mlir.dialects import core_op_names

from .registry import LOWERINGS

_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class LoweringCoverage:
    status: dict[str, str]  # core op -> lowered / untested / fallback
    opinfo_ops: set[str]
    tested_ops: set[str]

    def names(self, status: str) -> list[str]:
        return sorted(n for n, s in self.status.items() if s == status)

    def summary(self) -> str:
        n = len(self.status)
        parts = [f"{s} {len(self.names(s))}" for s in ("lowered", "untested", "fallback")]
        return (
            f"core overloads: {n}; "
            + ", ".join(parts)
            + (f"; with OpInfo samples: {len(self.opinfo_ops & set(self.status))}")
        )

    def table(self, everything: bool = False) -> str:
        lines = [self.summary()]
        for name, status in sorted(self.status.items()):
            if everything or status != "lowered":
                how = (
                    "opinfo"
                    if name in self.opinfo_ops
                    else "unit"
                    if name in self.tested_ops
                    else ""
                )
                lines.append(f"  {status:<9} {name:<45} {how}")
        return "\n".join(lines)


def _test_mentions() -> set[str]:
    found = set()
    for path in (_ROOT / "tests" / "passes" / "aten_to_linalg").glob("test_*.py"):
        found.update(re.findall(r"aten\.[A-Za-z0-9_.]+", path.read_text()))
    return {n.rstrip(".") for n in found}


def lowering_coverage() -> LoweringCoverage:
    core = core_op_names()
    map_file = _ROOT / "tests" / "opinfo" / "core_opinfos.json"
    opinfo_ops = set(json.loads(map_file.read_text())) if map_file.exists() else set()
    tested = _test_mentions()
    status = {}
    for name in core:
        if name not in LOWERINGS:
            status[name] = "fallback"
        elif name in opinfo_ops or name in tested:
            status[name] = "lowered"
        else:
            status[name] = "untested"
    return LoweringCoverage(status, opinfo_ops, tested)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every core overload")
    args = parser.parse_args(argv)
    print(lowering_coverage().table(everything=args.all))
    return 0


if __name__ == "__main__":
    sys.exit(main())

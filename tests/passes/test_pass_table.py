"""The pass table (`aten_mlir.pass_table`): each line names the module defining that pass, every
pass of the tree has a line, and a pass's module is imported only when the pass is used."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from aten_mlir.pass_table import PASS_MODULES
from aten_mlir.passes import PASSES

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("passes", "backends", "frontend", "dialects", "tools")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["aten_mlir", *parts])


def defined_passes() -> dict[str, list[str]]:
    """pass name -> the modules whose source has a `@register_pass` class of that name."""
    found: dict[str, list[str]] = {}
    for d in SOURCE_DIRS:
        for path in sorted((ROOT / d).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
                if not any(getattr(d, "id", None) == "register_pass" for d in cls.decorator_list):
                    continue
                for stmt in cls.body:
                    target = (
                        getattr(stmt, "target", None)
                        or (getattr(stmt, "targets", None) or [None])[0]
                    )
                    if getattr(target, "id", None) == "name" and isinstance(
                        stmt.value, ast.Constant
                    ):
                        found.setdefault(stmt.value.value, []).append(module_name(path))
    return found


def test_every_pass_in_the_source_has_its_line():
    defined = defined_passes()
    assert {n: m for n, m in defined.items() if len(m) > 1} == {}, "a name defined twice"
    table = {n: m[0] for n, m in defined.items()}
    missing = sorted(set(table) - set(PASS_MODULES))
    stale = sorted(set(PASS_MODULES) - set(table))
    wrong = sorted(n for n in set(table) & set(PASS_MODULES) if table[n] != PASS_MODULES[n])
    assert (missing, stale, wrong) == ([], [], []), [
        f"{n}: {PASS_MODULES.get(n)} -> {table.get(n)}" for n in missing + stale + wrong
    ]


@pytest.mark.parametrize("name", sorted(PASS_MODULES))
def test_each_line_names_the_module_defining_the_pass(name):
    module = importlib.import_module(PASS_MODULES[name])
    cls = PASSES[name]
    assert cls.__module__ == module.__name__ and cls.name == name


def test_every_registered_pass_has_a_line():
    PASSES.load_all()
    assert sorted(set(PASSES) - set(PASS_MODULES)) == []
    assert PASSES.names() == sorted(PASS_MODULES)


PROBE = """
import importlib.util, sys, types
# the passes package alone: aten_mlir's own __init__ imports the compiler driver (a backend)
root = importlib.util.find_spec("aten_mlir").submodule_search_locations[0]
package = types.ModuleType("aten_mlir")
package.__path__ = [root]
sys.modules["aten_mlir"] = package
import aten_mlir.passes
from aten_mlir.passes import get_pass, parse_pipeline
def backends():
    return sorted(m for m in sys.modules if m.startswith("aten_mlir.backends"))
assert backends() == [], backends()
parse_pipeline("aten-verify,canonicalize")
assert backends() == [], backends()
get_pass("cpu-fast-math")
assert "aten_mlir.backends.cpu.passes.fast_math" in sys.modules, backends()
assert "aten_mlir.backends.triton.passes.fuse_rows" not in sys.modules, backends()
print("ok")
"""


def test_importing_passes_imports_no_backend_and_a_lookup_imports_the_pass_module():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, cwd="/"
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]

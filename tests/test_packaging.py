"""pyproject lists every package directory, so a built wheel holds all of the code."""

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
SKIP = {"tests", "lit_tests", "bench", ".ci", "build"}


def test_every_package_is_listed():
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {"aten_mlir"}
    for init in ROOT.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts and (rel.parts[0] in SKIP or rel.parts[0].startswith(".")):
            continue
        if "egg-info" in str(rel) or "__pycache__" in rel.parts:
            continue
        found.add(".".join(("aten_mlir", *rel.parts)) if rel.parts else "aten_mlir")
    assert found == listed, f"missing: {sorted(found - listed)}; stale: {sorted(listed - found)}"

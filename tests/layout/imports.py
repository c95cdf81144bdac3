"""The package's import graph, read from the source (no module is imported): for the layout
checks in test_imports.py and as a command, `python -m tests.layout.imports`, which prints
every cycle and every forbidden import."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "aten_mlir"
# where the package's own modules live (tests, lit tests and the bench are users of it)
SOURCE_DIRS = ("dialects", "frontend", "passes", "backends", "tools")
TOP_MODULES = ("__init__.py", "cache.py", "errors.py", "registry.py", "pass_table.py")


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def source_files() -> list[Path]:
    files = [ROOT / m for m in TOP_MODULES if (ROOT / m).exists()]
    for d in SOURCE_DIRS:
        files += sorted(p for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path) -> list[tuple[str, str | None, int, bool]]:
    """(module imported, name taken from it or None, line, at module level) for each import of
    one of the package's modules in `path`."""
    current = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), str(path))
    top = {id(n) for n in tree.body}
    for n in tree.body:  # `if TYPE_CHECKING:` / try blocks at module level count as top level
        for child in ast.walk(n):
            top.add(id(child))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(PACKAGE):
                    out.append((a.name, None, node.lineno, id(node) in top))
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(current, is_package, node)
            if not mod.startswith(PACKAGE):
                continue
            for a in node.names:
                out.append((mod, a.name, node.lineno, id(node) in top))
    return out


def known_modules() -> set[str]:
    return {module_name(p) for p in source_files()}


def graph(module_level_only: bool = True) -> dict[str, set[str]]:
    """module -> the package modules it imports (a `from pkg import mod` names the module)."""
    known = known_modules()
    edges: dict[str, set[str]] = {}
    for path in source_files():
        src = module_name(path)
        targets = edges.setdefault(src, set())
        for mod, name, _line, at_top in imports(path):
            if module_level_only and not at_top:
                continue
            full = f"{mod}.{name}" if name else mod
            targets.add(full if full in known else mod)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _room(module: str) -> str:
    """The part of the tree a module belongs to: `passes`, `backends.cpu`, `backends.triton`..."""
    parts = module.split(".")[1:]
    if parts[:1] == ["backends"] and len(parts) > 1 and parts[1] in ("cpu", "triton", "reference"):
        return ".".join(parts[:2])
    return parts[0] if parts else ""


# (importing module, imported module): allowed with the reason. The fast import path's legality
# is a fact about the decompose table (one definition keeps `import_program(ep)` and
# `compile(ep)` equal); frontend/importer.py reads it lazily, in the function that needs it.
ALLOWED = {
    ("aten_mlir.frontend.importer", "aten_mlir.passes.decompose"),
}


def forbidden() -> list[str]:
    """Upward imports (a target-neutral pass importing a backend; the frontend or dialects
    importing passes or backends), private names imported from another room, and private
    names imported across modules of the Triton backend."""
    bad = []
    for path in source_files():
        src = module_name(path)
        room = _room(src)
        for mod, name, line, _top in imports(path):
            if (src, mod) in ALLOWED:
                continue
            where = f"{path.relative_to(ROOT)}:{line}"
            target_room = _room(mod)
            if room == "passes" and target_room.startswith("backends"):
                bad.append(f"{where}: passes/ imports {mod}")
            if (
                room in ("dialects", "frontend")
                and target_room in ("passes",)
                or (room in ("dialects", "frontend") and target_room.startswith("backends"))
            ):
                bad.append(f"{where}: {room}/ imports {mod}")
            if name and name.startswith("_") and not name.startswith("__") and mod != src:
                if target_room != room or room.startswith("backends."):
                    bad.append(f"{where}: private name {name} from {mod}")
    return bad


def main() -> int:
    found = cycles(graph())
    for c in found:
        print("cycle:", " <-> ".join(c))
    bad = forbidden()
    for b in bad:
        print(b)
    print(f"{len(found)} cycles, {len(bad)} forbidden imports")
    return 1 if found or bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
